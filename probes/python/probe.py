"""concbench probe in Python: threading vs multiprocessing vs asyncio, behind the probe protocol
(docs/PROBE_PROTOCOL.md). Standard library only.

    create    a unit created, run (empty body) and joined; args.model = thread | process | asyncio
    pingpong  two units hand a token back and forth; one op = one one-way hand-over
              (thread: a pair of queue.SimpleQueue; process: two pipes and 1-byte os.read/write,
              the C probe's mechanism, so the gap is the interpreter; asyncio: a pair of queues)
    cpu       a CPU-bound job split over args.workers threads or processes (args.model): one op is
              one chunk of pure-Python arithmetic. With the GIL, two threads take as long as one;
              two processes take half.
    detect    what the interpreter sizes pools from: os.cpu_count() (every online CPU, whatever
              the quota), the affinity mask, os.process_cpu_count() (3.13+), and the worker counts
              ThreadPoolExecutor and ProcessPoolExecutor pick by default, in metrics

Process partners are forked (the 'fork' start method, stated explicitly because Python 3.14
changed the default) and ask the kernel to kill them if the probe dies.
"""

import asyncio
import ctypes
import json
import multiprocessing
import os
import platform
import queue
import resource
import sys
import threading
import time

PROTOCOL = 1
CHUNK = 1000  # additions per `cpu` operation
FORK = multiprocessing.get_context("fork")
PR_SET_PDEATHSIG = 1


def die_with_parent():
    """In a forked partner: SIGKILL when the probe dies, so nothing outlives it."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, 9)
    except (OSError, AttributeError):
        pass


def noop():
    pass


async def anoop():
    pass


# ---- create


def create_units(n, make):
    """n units made by `make()`, each started and joined before the next."""
    start = time.perf_counter_ns()
    for _ in range(n):
        unit = make()
        unit.start()
        unit.join()
    return time.perf_counter_ns() - start


def create_threads(n):
    return create_units(n, lambda: threading.Thread(target=noop))


def create_processes(n):
    return create_units(n, lambda: FORK.Process(target=noop))


def create_tasks(n):
    async def many():
        start = time.perf_counter_ns()  # inside the loop: its own start-up is not a task's cost
        for _ in range(n):
            await asyncio.create_task(anoop())
        return time.perf_counter_ns() - start

    return asyncio.run(many())


def create(n, args):
    runs = {"thread": create_threads, "process": create_processes, "asyncio": create_tasks}
    model = args.get("model")
    if model not in runs:
        raise ValueError(f"create: model must be thread, process or asyncio, not {model!r}")
    return runs[model](n), n, {}


# ---- pingpong (one untimed round trip first, so the partner is running when the clock starts)


def pingpong_threads(trips):
    ping, pong = queue.SimpleQueue(), queue.SimpleQueue()

    def partner():
        for _ in range(trips + 1):
            pong.put(ping.get())

    t = threading.Thread(target=partner)
    t.start()
    ping.put(0)
    pong.get()
    start = time.perf_counter_ns()
    for _ in range(trips):
        ping.put(1)
        pong.get()
    elapsed = time.perf_counter_ns() - start
    t.join()
    return elapsed


def token_partner(rd, wr, trips):
    die_with_parent()
    for _ in range(trips + 1):
        os.write(wr, os.read(rd, 1))


def pingpong_processes(trips):
    to_child, to_parent = os.pipe(), os.pipe()
    p = FORK.Process(target=token_partner, args=(to_child[0], to_parent[1], trips))
    p.start()
    os.close(to_child[0])
    os.close(to_parent[1])
    try:
        os.write(to_child[1], b"s")
        os.read(to_parent[0], 1)
        start = time.perf_counter_ns()
        for _ in range(trips):
            os.write(to_child[1], b"s")
            if not os.read(to_parent[0], 1):
                raise RuntimeError("the token partner stopped answering")
        return time.perf_counter_ns() - start
    finally:
        os.close(to_child[1])
        os.close(to_parent[0])
        p.join()


def pingpong_asyncio(trips):
    async def run():
        ping, pong = asyncio.Queue(), asyncio.Queue()

        async def partner():
            for _ in range(trips + 1):
                await pong.put(await ping.get())

        task = asyncio.create_task(partner())
        await ping.put(0)
        await pong.get()
        start = time.perf_counter_ns()
        for _ in range(trips):
            await ping.put(1)
            await pong.get()
        elapsed = time.perf_counter_ns() - start
        await task
        return elapsed

    return asyncio.run(run())


def pingpong(n, args):
    trips = max(n // 2, 1)
    model = args.get("model")
    runs = {"thread": pingpong_threads, "process": pingpong_processes, "asyncio": pingpong_asyncio}
    if model not in runs:
        raise ValueError(f"pingpong: model must be thread, process or asyncio, not {model!r}")
    return runs[model](trips), 2 * trips, {}


# ---- cpu: the GIL made visible


def chunks(count):
    total = 0
    for _ in range(count):
        for i in range(CHUNK):
            total += i
    return total


def pin_worker(index, cpus):
    """Worker `index` on its own CPU of the probe's set, when there are enough. Unpinned, a forked
    worker starts on its parent's CPU and the scheduler may move it only after the timed job is
    over: half the samples then showed no speed-up from two processes."""
    if len(cpus) > 1:
        os.sched_setaffinity(0, {cpus[index % len(cpus)]})


def cpu_process(index, cpus, ready_wr, go_rd, done_wr, count):
    die_with_parent()
    pin_worker(index, cpus)
    chunks(1)  # untimed: a forked worker's first touches of shared objects fault in its copies
    os.write(ready_wr, b"r")
    os.read(go_rd, 1)
    chunks(count)
    os.write(done_wr, b"d")


def cpu_processes(shares):
    ready, go, done = os.pipe(), os.pipe(), os.pipe()
    cpus = sorted(os.sched_getaffinity(0))
    procs = [FORK.Process(target=cpu_process, args=(i, cpus, ready[1], go[0], done[1], s))
             for i, s in enumerate(shares)]
    for p in procs:
        p.start()
    try:
        for _ in procs:  # every worker is running and waiting: start-up is not timed
            os.read(ready[0], 1)
        start = time.perf_counter_ns()
        os.write(go[1], b"g" * len(procs))
        for _ in procs:
            os.read(done[0], 1)
        return time.perf_counter_ns() - start
    finally:
        for fd in (*ready, *go, *done):
            os.close(fd)
        for p in procs:
            p.join()


def cpu_threads(shares):
    barrier = threading.Barrier(len(shares) + 1)
    cpus = sorted(os.sched_getaffinity(0))

    def work(index, count):
        pin_worker(index, cpus)  # as the processes are: only the GIL differs
        chunks(1)  # untimed, as in a process worker
        barrier.wait()
        chunks(count)

    threads = [threading.Thread(target=work, args=(i, s)) for i, s in enumerate(shares)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter_ns()
    for t in threads:
        t.join()
    return time.perf_counter_ns() - start


def cpu(n, args):
    workers = int(args.get("workers", 1))
    model = args.get("model")
    if workers < 1 or model not in ("thread", "process"):
        raise ValueError("cpu: args.model must be thread or process and args.workers >= 1")
    shares = [n // workers + (1 if i < n % workers else 0) for i in range(workers)]
    run = cpu_threads if model == "thread" else cpu_processes
    return run(shares), n, {}


def detect(_n, _args):
    import concurrent.futures as futures

    start = time.perf_counter_ns()
    metrics = {"cpu_count": os.cpu_count() or 0, "affinity_cpus": len(os.sched_getaffinity(0))}
    if hasattr(os, "process_cpu_count"):
        metrics["process_cpu_count"] = os.process_cpu_count() or 0
    with futures.ThreadPoolExecutor() as pool:
        metrics["thread_pool_workers"] = pool._max_workers
    # No worker process starts until a task is submitted.
    with futures.ProcessPoolExecutor(mp_context=FORK) as pool:
        metrics["process_pool_workers"] = pool._max_workers
    return time.perf_counter_ns() - start, 1, metrics


EXPERIMENTS = {"create": create, "pingpong": pingpong, "cpu": cpu, "detect": detect}


# ---- protocol


def usage_now():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "voluntary_switches": s.ru_nvcsw + c.ru_nvcsw,
        "involuntary_switches": s.ru_nivcsw + c.ru_nivcsw,
        "minor_faults": s.ru_minflt + c.ru_minflt,
        "major_faults": s.ru_majflt + c.ru_majflt,
        "user_ns": (s.ru_utime + c.ru_utime) * 1e9,
        "sys_ns": (s.ru_stime + c.ru_stime) * 1e9,
    }


def handle(line):
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"v": PROTOCOL, "ok": False, "error": f"the request is not JSON: {e}"}
    if not isinstance(req, dict) or req.get("v") != PROTOCOL:
        return {"v": PROTOCOL, "ok": False,
                "error": f"protocol version not supported (this probe speaks {PROTOCOL})"}
    run, n = EXPERIMENTS.get(req.get("id")), req.get("iterations")
    if run is None or not isinstance(n, int) or n < 1:
        return {"v": PROTOCOL, "ok": False,
                "error": f"unknown experiment {req.get('id')!r} or iterations < 1"}
    before = usage_now()
    try:
        elapsed, ops, metrics = run(n, req.get("args") or {})
    except Exception as e:  # the harness shows the message; the probe keeps serving
        return {"v": PROTOCOL, "ok": False, "error": f"{type(e).__name__}: {e}"}
    after = usage_now()
    used = {k: after[k] - before[k] for k in before}
    return {"v": PROTOCOL, "ok": True, "ns_per_op": elapsed / ops, "ops": ops, "usage": used,
            "metrics": metrics}


def runtime_version():
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    return f"{platform.python_implementation()} {platform.python_version()}" + (
        "" if gil else " (free-threaded, GIL off)")


def main():
    out = sys.stdout
    hello = {"v": PROTOCOL, "hello": "concbench-probe", "runtime": "python",
             "version": runtime_version(), "experiments": sorted(EXPERIMENTS)}
    out.write(json.dumps(hello) + "\n")
    out.flush()
    for line in sys.stdin:  # EOF ends the loop: the harness is done with us
        out.write(json.dumps(handle(line)) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
