#!/usr/bin/env python3
"""Fidelity of the server family, side by side in one run (issue 6), all on loopback:
  * concbench's load generator vs wrk against the same nginx (1 worker pinned to one CPU,
    a small static file, keep-alive): concbench's requests/s must be >= wrk's;
  * concbench's best design vs that nginx on scenario A (1000 keep-alive connections, the
    same concbench load generator against each);
  * generator capacity: concbench's load generator vs wrk against a server faster than either
    (concbench serve tokio-multi on the other CPU), so the client, not the server, is the limit.
    Against nginx on one CPU both generators only measure nginx; this row shows which generator
    saturates first.
Server on one CPU, load generator (one thread) on another; rounds interleaved so drift hits
all alike. Installs wrk and nginx from Debian if missing (needs root for apt-get).
Target: generator capacity, concbench load / wrk >= 1.2 (paired rounds; see verdict.py; issue 41).
Usage: bench/fidelity/server.py [ROUNDS] [SECONDS]   (default 6 rounds of 5 s: six are the
fewest that give a 95% interval)"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from common import BIN, build, report
from verdict import Target, check

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
seconds = sys.argv[2] if len(sys.argv) > 2 else "5"
DESIGNS = ["epoll", "epoll-per-cpu", "io_uring", "tokio-current", "tokio-multi"]
# The server for the capacity row: the fastest design on one CPU in development runs.
CAPACITY_DESIGN = "tokio-multi"


def ensure(tool, package):
    if shutil.which(tool) is None and not os.path.exists(f"/usr/sbin/{tool}"):
        subprocess.run(["apt-get", "update", "-q"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-q", package], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpus():
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        sys.exit("needs two CPUs: one for the server, one for the load generator")
    return allowed[0], allowed[-1]  # (server, client), as concbench's cross-cpu placement


NGINX_CONF = """
worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
    default_type text/plain;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {d}/www;
    }}
}}
"""


def start_nginx(server_cpu):
    d = tempfile.mkdtemp(prefix="concbench-nginx-")
    os.chmod(d, 0o755)  # nginx's worker runs as an unprivileged user and must read www/
    os.makedirs(f"{d}/www", mode=0o755)
    with open(f"{d}/www/index.html", "w") as f:
        f.write("Hello, world\n")  # the same 13-byte body as concbench's servers
    port = free_port()
    with open(f"{d}/nginx.conf", "w") as f:
        f.write(NGINX_CONF.format(d=d, port=port))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    proc = subprocess.Popen(["taskset", "-c", str(server_cpu), nginx, "-p", d, "-c", f"{d}/nginx.conf"])
    wait_listening(port)
    return proc, port, d


def start_design(design, server_cpu):
    proc = subprocess.Popen([BIN, "serve", design, "--cpus", str(server_cpu)],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    port = int(line.strip().rsplit(":", 1)[1].split()[0])
    return proc, port


def wait_listening(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"nothing listens on port {port}")


def stop(proc, sig=signal.SIGTERM):
    proc.send_signal(sig)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def concbench_load(port, client_cpu, connections):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([BIN, "load", f"http://127.0.0.1:{port}/", "-c", str(connections), "-t", "1",
                        "--cpus", str(client_cpu), "-d", f"{seconds}s", "--warmup", "1s",
                        "--json", out.name], check=True, stdout=subprocess.DEVNULL)
        doc = json.load(open(out.name))
    if doc["errors_total"]:
        print(f"  concbench load saw errors: {doc['errors']}", file=sys.stderr)
    return doc["requests_per_second"]


def wrk(port, client_cpu, connections):
    out = subprocess.run(["taskset", "-c", str(client_cpu), "wrk", "-t1", f"-c{connections}",
                          f"-d{seconds}s", f"http://127.0.0.1:{port}/"],
                         capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out:
        sys.exit(f"wrk got non-2xx responses: the server is misconfigured\n{out}")
    for line in out.splitlines():
        if line.startswith("Requests/sec:"):
            return float(line.split()[1])
    sys.exit(f"cannot read wrk's output:\n{out}")


ensure("wrk", "wrk")
ensure("nginx", "nginx-light")
build()
server_cpu, client_cpu = cpus()

ours, theirs = [], []
cap_ours, cap_theirs = [], []
nginx_a = []
designs = {d: [] for d in DESIGNS}
nginx, nginx_port, nginx_dir = start_nginx(server_cpu)
try:
    for r in range(rounds):
        ours.append(concbench_load(nginx_port, client_cpu, 100))
        theirs.append(wrk(nginx_port, client_cpu, 100))
        nginx_a.append(concbench_load(nginx_port, client_cpu, 1000))
        for d in DESIGNS:
            proc, port = start_design(d, server_cpu)
            try:
                designs[d].append(concbench_load(port, client_cpu, 1000))
                if d == CAPACITY_DESIGN:
                    cap_ours.append(concbench_load(port, client_cpu, 100))
                    cap_theirs.append(wrk(port, client_cpu, 100))
            finally:
                stop(proc)
        print(f"round {r + 1}/{rounds}: nginx via concbench {ours[-1]:.0f}, via wrk {theirs[-1]:.0f} req/s; "
              f"scenario A nginx {nginx_a[-1]:.0f}, " +
              ", ".join(f"{d} {v[-1]:.0f}" for d, v in designs.items()), file=sys.stderr)
finally:
    stop(nginx, signal.SIGQUIT)
    shutil.rmtree(nginx_dir, ignore_errors=True)

best = max(designs, key=lambda d: sorted(designs[d])[len(designs[d]) // 2])
report([
    ("nginx, 100 conns: concbench load vs wrk", ours, theirs, "/s"),
    (f"capacity ({CAPACITY_DESIGN}, 100 conns): load vs wrk", cap_ours, cap_theirs, "/s"),
    (f"scenario A: concbench {best} vs nginx", designs[best], nginx_a, "/s"),
])
check("against nginx (server-bound): concbench load / wrk", ours, theirs, Target.none())
check(f"generator capacity ({CAPACITY_DESIGN}, client-bound): concbench load / wrk", cap_ours, cap_theirs,
      Target.at_least(1.2))
