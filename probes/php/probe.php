<?php
// concbench probe in PHP, behind the probe protocol (docs/PROBE_PROTOCOL.md): seed S2's
// coroutine server in the language the article used, without Swoole (its own design,
// probes/swoole/serve.php): PHP 8's own Fibers, scheduled by a stream_select loop: a fiber per
// connection, written as blocking code, that suspends where it would block (a read, a write that does not
// fit, the blocking call) and is resumed by the loop when its socket or timer is ready.
//
//   serve  start args.workers worker processes (the article's 2 Swoole workers), each with its own
//          SO_REUSEPORT listener on one port, and answer that port; they serve until the harness
//          closes stdin. args.blocking_ms is the blocking call per request (0: none; scenario B:
//          10), a Fiber suspension until a timer, the way Swoole's coroutine sleep yields.
//
//   hold   args-free: N more Fibers, each suspended at its first Fiber::suspend(), kept until the
//          probe exits (concbench capacity): time per Fiber until it is suspended; metrics
//          created, held; "stopped" says why creation stopped short (a stack it could not map)
//   detect what PHP would size a pool from: swoole_cpu_num() when Swoole is loaded (sysconf's
//          online CPUs), in metrics
//
// Standard PHP 8.1+ CLI only (Fibers, pcntl, posix: all in Debian's php-cli).

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

function listener(int $port)
{
    $ctx = stream_context_create(['socket' => ['so_reuseport' => true, 'backlog' => BACKLOG, 'tcp_nodelay' => true]]);
    $s = stream_socket_server("tcp://127.0.0.1:$port", $errno, $errstr, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $ctx);
    if ($s === false) {
        throw new RuntimeException("listening on 127.0.0.1:$port: $errstr ($errno)");
    }
    stream_set_blocking($s, false);
    return $s;
}

/** The next request's framing from the head of one request: [close, keep-alive of HTTP/1.0]. */
function framing(string $head): array
{
    $head = strtolower($head);
    $line_end = strpos($head, "\r");
    $http10 = str_ends_with($line_end === false ? $head : substr($head, 0, $line_end), 'http/1.0');
    $keep_alive = str_contains($head, "\nconnection: keep-alive");
    $close = str_contains($head, "\nconnection: close") || ($http10 && !$keep_alive);
    return [$close, $http10 && $keep_alive];
}

function response(bool $close, bool $keep_alive10): string
{
    return "HTTP/1.1 200 OK\r\nContent-Length: " . strlen(BODY) . "\r\nContent-Type: text/plain\r\n"
        . ($keep_alive10 ? "Connection: keep-alive\r\n" : '')
        . ($close ? "Connection: close\r\n" : '') . "\r\n" . BODY;
}

/** One connection's fiber: read requests, answer each, until the client closes or asks to. */
function connection($conn, int $blocking_ms): void
{
    $buf = '';
    while (true) {
        while (($end = strpos($buf, "\r\n\r\n")) === false) {
            $chunk = fread($conn, 8192);
            if ($chunk === false || ($chunk === '' && feof($conn))) {
                fclose($conn);
                return;
            }
            if ($chunk === '') {
                Fiber::suspend(['read', $conn]);
            }
            $buf .= $chunk;
        }
        [$close, $keep_alive10] = framing(substr($buf, 0, $end));
        $buf = substr($buf, $end + 4);
        if ($blocking_ms > 0) {
            Fiber::suspend(['sleep', $blocking_ms]);
        }
        $out = response($close, $keep_alive10);
        while ($out !== '') {
            $n = @fwrite($conn, $out);
            if ($n === false) {
                fclose($conn);
                return;
            }
            $out = substr($out, $n);
            if ($out !== '') {
                Fiber::suspend(['write', $conn]);
            }
        }
        if ($close) {
            fclose($conn);
            return;
        }
    }
}

/** The scheduler: a fiber per connection, resumed when what it waits for is ready. */
final class Loop
{
    private array $readers = [];   // id => [stream, fiber]
    private array $writers = [];
    private SplMinHeap $timers;    // [deadline ns, sequence, fiber]
    private int $sequence = 0;

    public function __construct(private $server, private int $blocking_ms, private int $parent)
    {
        $this->timers = new SplMinHeap();
    }

    /** Run a fiber until it suspends, and file it under what it waits for. */
    private function step(Fiber $f, mixed $value = null): void
    {
        $wait = $f->isStarted() ? $f->resume($value) : $f->start();
        if ($f->isTerminated() || $wait === null) {
            return;
        }
        [$what, $on] = $wait;
        match ($what) {
            'read' => $this->readers[(int) $on] = [$on, $f],
            'write' => $this->writers[(int) $on] = [$on, $f],
            'sleep' => $this->timers->insert([hrtime(true) + $on * 1_000_000, $this->sequence++, $f]),
        };
    }

    private function accept(): void
    {
        while (($c = @stream_socket_accept($this->server, 0)) !== false) {
            stream_set_blocking($c, false);
            $this->step(new Fiber(fn () => connection($c, $this->blocking_ms)));
        }
    }

    public function run(): void
    {
        while (posix_getppid() === $this->parent) {
            $r = [$this->server];
            foreach ($this->readers as [$s, $_]) {
                $r[] = $s;
            }
            $w = array_column($this->writers, 0);
            $e = null;
            $timeout_us = 1_000_000;
            if (!$this->timers->isEmpty()) {
                $timeout_us = max(0, min($timeout_us, intdiv($this->timers->top()[0] - hrtime(true), 1000)));
            }
            if (@stream_select($r, $w, $e, intdiv($timeout_us, 1_000_000), $timeout_us % 1_000_000) === false) {
                continue;
            }
            foreach ($r as $s) {
                if ($s === $this->server) {
                    $this->accept();
                    continue;
                }
                [, $f] = $this->readers[(int) $s];
                unset($this->readers[(int) $s]);
                $this->step($f);
            }
            foreach ($w as $s) {
                [, $f] = $this->writers[(int) $s];
                unset($this->writers[(int) $s]);
                $this->step($f);
            }
            $now = hrtime(true);
            while (!$this->timers->isEmpty() && $this->timers->top()[0] <= $now) {
                $this->step($this->timers->extract()[2]);
            }
        }
    }
}

/** Start the workers; returns the port once every one of them listens. */
function serve(array $args, array &$workers): int
{
    if (PHP_VERSION_ID < 80100) {
        throw new RuntimeException('Fibers need PHP 8.1 or later; this is ' . PHP_VERSION);
    }
    if (!function_exists('pcntl_fork') || !function_exists('posix_getppid')) {
        throw new RuntimeException('the pcntl and posix extensions are needed (Debian php-cli has both)');
    }
    if ($workers) {
        throw new RuntimeException('this probe already serves; start another probe for another server');
    }
    $blocking_ms = int_arg($args, 'blocking_ms', 0);
    $count = max(1, int_arg($args, 'workers', 2));
    // Reserve a port with a reuseport socket of our own, closed once the workers listen on it.
    $first = listener(0);
    $port = (int) substr(strrchr(stream_socket_get_name($first, false), ':'), 1);
    $parent = getmypid();
    for ($i = 0; $i < $count; $i++) {
        [$ours, $theirs] = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
        $pid = pcntl_fork();
        if ($pid === -1) {
            throw new RuntimeException('pcntl_fork failed');
        }
        if ($pid === 0) {
            fclose($first);
            fclose($ours);
            $server = listener($port);
            fwrite($theirs, "ready\n");
            fclose($theirs);
            (new Loop($server, $blocking_ms, $parent))->run();
            exit(0);
        }
        fclose($theirs);
        if (trim((string) fgets($ours)) !== 'ready') {
            throw new RuntimeException("worker $i did not start (its error is on stderr)");
        }
        fclose($ours);
        $workers[] = $pid;
    }
    fclose($first);
    return $port;
}

/** Fibers held suspended until the probe exits. */
$held = [];

/** n more Fibers, each started and suspended; the time until the last is suspended. */
function hold(int $n, array &$held): array
{
    if (PHP_VERSION_ID < 80100) {
        return ['ok' => false, 'error' => 'Fibers need PHP 8.1 or later; this is ' . PHP_VERSION];
    }
    $stopped = null;
    $created = 0;
    $t0 = hrtime(true);
    try {
        for (; $created < $n; $created++) {
            $f = new Fiber(function (): void {
                Fiber::suspend();
            });
            $f->start();
            $held[] = $f;
        }
    } catch (Throwable $e) {
        $stopped = get_class($e) . ': ' . $e->getMessage();
    }
    $a = ['ok' => true, 'ns_per_op' => (hrtime(true) - $t0) / max($created, 1), 'ops' => max($created, 1),
        'metrics' => ['created' => $created, 'held' => count($held)]];
    if ($stopped !== null) {
        $a['stopped'] = $stopped;
    }
    return $a;
}

function detect(): array
{
    $t0 = hrtime(true);
    $metrics = [];
    if (function_exists('swoole_cpu_num')) {
        $metrics['swoole_cpu_num'] = swoole_cpu_num();
    }
    return ['ok' => true, 'ns_per_op' => hrtime(true) - $t0, 'ops' => 1, 'metrics' => (object) $metrics];
}

function handle(string $line, array &$workers, array &$held): void
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
    $id = $req['id'] ?? null;
    $n = $req['iterations'] ?? null;
    if ($id === 'hold' && is_int($n) && $n >= 1) {
        answer(hold($n, $held));
        return;
    }
    if ($id === 'detect') {
        answer(detect());
        return;
    }
    if ($id !== 'serve') {
        fail("unknown experiment '" . ($id ?? '') . "' or iterations < 1");
        return;
    }
    try {
        $t0 = hrtime(true);
        $port = serve(is_array($req['args'] ?? null) ? $req['args'] : [], $workers);
        answer(['ok' => true, 'ns_per_op' => hrtime(true) - $t0, 'ops' => 1, 'port' => $port]);
    } catch (Throwable $e) {
        fail(get_class($e) . ': ' . $e->getMessage());
    }
}

$workers = [];
answer(['hello' => 'concbench-probe', 'runtime' => 'php',
    'version' => 'PHP ' . PHP_VERSION . ' (' . PHP_SAPI . ', Fibers over stream_select)',
    'experiments' => ['serve', 'hold', 'detect']]);
while (($line = fgets(STDIN)) !== false) {
    handle($line, $workers, $held);
}
// End of input: the harness is done with us; end the workers and reap them.
foreach ($workers as $pid) {
    posix_kill($pid, SIGTERM);
}
foreach ($workers as $pid) {
    pcntl_waitpid($pid, $status);
}
exit(0);
