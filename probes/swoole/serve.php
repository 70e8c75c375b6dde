<?php
// concbench probe for seed S2's own server, behind the probe protocol (docs/PROBE_PROTOCOL.md):
// a Swoole HTTP server with coroutines and the runtime hooks on, as the article ran it. Started
// as `php -d extension=/path/to/swoole.so serve.php`; concbench builds or finds that extension.
//
//   serve  fork a child that runs the Swoole server (master, manager, args.workers workers and
//          args.reactor_threads reactor threads: SWOOLE_PROCESS, the mode of the article's Swoole
//          4 "official demo") on a free loopback port, and answer that port once every worker
//          has started; it serves until the harness closes stdin, then the server is shut down.
//          args.blocking_ms is the blocking call per request (0: none; scenario B: 10), a plain
//          `usleep` that the hooks (SWOOLE_HOOK_ALL) turn into a coroutine sleep that yields.
//
// Needs PHP >= 8.2 with the swoole extension loaded, and pcntl and posix (Debian's php-cli).

const PROTOCOL = 1;
const BODY = "Hello, world\n";
const BACKLOG = 4096;

function answer(array $a): void
{
    fwrite(STDOUT, json_encode(['v' => PROTOCOL] + $a, JSON_UNESCAPED_SLASHES) . "\n");
    fflush(STDOUT);
}

function fail(string $message): void
{
    answer(['ok' => false, 'error' => $message]);
}

function int_arg(array $args, string $key, int $fallback): int
{
    if (!array_key_exists($key, $args)) {
        return $fallback;
    }
    $v = $args[$key];
    if (!is_int($v) && !(is_float($v) && floor($v) == $v) || $v < 0) {
        throw new InvalidArgumentException("args.$key must be a non-negative integer");
    }
    return (int) $v;
}

/** SWOOLE_HOOK_ALL, less the curl hooks when PHP has no curl (Swoole warns for each function). */
function hooks(): int
{
    return extension_loaded('curl') ? SWOOLE_HOOK_ALL
        : SWOOLE_HOOK_ALL & ~SWOOLE_HOOK_CURL & ~SWOOLE_HOOK_NATIVE_CURL;
}

/** The Swoole server, in the forked child: tells `$report` its port, then each worker's start. */
function run_server($report, int $workers, int $reactors, int $blocking_ms): void
{
    $server = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_PROCESS, SWOOLE_SOCK_TCP);
    $server->set([
        'worker_num' => $workers,
        'reactor_num' => $reactors,
        'enable_coroutine' => true,
        // The hooks make blocking PHP calls (usleep, sockets, files) yield the coroutine.
        'hook_flags' => hooks(),
        'backlog' => BACKLOG,
        'open_tcp_nodelay' => true,
        'http_compression' => false,
        'log_level' => SWOOLE_LOG_WARNING,
        // Swoole logs to stdout by default, where only protocol lines may go.
        'log_file' => '/dev/stderr',
    ]);
    fwrite($report, "port {$server->port}\n");
    $server->on('workerStart', function () use ($report) {
        fwrite($report, "ready\n");
    });
    $server->on('request', function ($request, $response) use ($blocking_ms) {
        if ($blocking_ms > 0) {
            usleep($blocking_ms * 1000);
        }
        $response->header('Content-Type', 'text/plain');
        $response->end(BODY);
    });
    $server->start();
}

/** Fork the server; returns [its pid, its port] once every worker has started. */
function serve(array $args, ?int $running): array
{
    if (!extension_loaded('swoole')) {
        throw new RuntimeException('the swoole extension is not loaded (php -d extension=swoole.so)');
    }
    if ($running !== null) {
        throw new RuntimeException('this probe already serves; start another probe for another server');
    }
    $blocking_ms = int_arg($args, 'blocking_ms', 0);
    $workers = max(1, int_arg($args, 'workers', 2));
    $reactors = max(1, int_arg($args, 'reactor_threads', 2));
    [$ours, $theirs] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $pid = pcntl_fork();
    if ($pid === -1) {
        throw new RuntimeException('pcntl_fork failed');
    }
    if ($pid === 0) {
        // STDIN stays open: closed, its descriptor 0 would go to Swoole's listening socket,
        // which Swoole takes for no socket.
        fclose($ours);
        try {
            run_server($theirs, $workers, $reactors, $blocking_ms);
        } catch (Throwable $e) {
            fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . "\n");
            exit(1);
        }
        exit(0);
    }
    fclose($theirs);
    $line = trim((string) fgets($ours));
    if (!str_starts_with($line, 'port ')) {
        throw new RuntimeException('the Swoole server did not start (its error is on stderr)');
    }
    $port = (int) substr($line, 5);
    for ($i = 0; $i < $workers; $i++) {
        if (trim((string) fgets($ours)) !== 'ready') {
            throw new RuntimeException("Swoole worker $i did not start (its error is on stderr)");
        }
    }
    fclose($ours);
    return [$pid, $port];
}

function handle(string $line, ?int &$running): void
{
    $req = json_decode($line, true);
    if (!is_array($req)) {
        fail('the request is not JSON');
        return;
    }
    if (($req['v'] ?? null) !== PROTOCOL) {
        fail('protocol version not supported (this probe speaks ' . PROTOCOL . ')');
        return;
    }
    if (($req['id'] ?? null) !== 'serve') {
        fail("unknown experiment '" . ($req['id'] ?? '') . "'");
        return;
    }
    try {
        $t0 = hrtime(true);
        [$running, $port] = serve(is_array($req['args'] ?? null) ? $req['args'] : [], $running);
        answer(['ok' => true, 'ns_per_op' => hrtime(true) - $t0, 'ops' => 1, 'port' => $port]);
    } catch (Throwable $e) {
        fail(get_class($e) . ': ' . $e->getMessage());
    }
}

$swoole = extension_loaded('swoole') ? 'Swoole ' . swoole_version() : 'no Swoole';
answer(['hello' => 'concbench-probe', 'runtime' => 'php',
    'version' => 'PHP ' . PHP_VERSION . " + $swoole (SWOOLE_PROCESS, coroutines, SWOOLE_HOOK_ALL)",
    'experiments' => ['serve']]);
$running = null;
while (($line = fgets(STDIN)) !== false) {
    handle($line, $running);
}
// End of input: the harness is done with us. A SIGTERM makes Swoole's master stop its workers;
// we reap it, or leave after 1.5 s (the harness then ends our whole process group).
if ($running !== null) {
    posix_kill($running, SIGTERM);
    $deadline = hrtime(true) + 1_500_000_000;
    while (pcntl_waitpid($running, $status, WNOHANG) === 0 && hrtime(true) < $deadline) {
        usleep(10_000);
    }
}
exit(0);
