<?php
// concbench probe for seed S2's "disastrous" case, behind the probe protocol
// (docs/PROBE_PROTOCOL.md): PHP-FPM, "the typical PHP-FPM CGI mode", behind nginx, the way PHP
// is deployed — a fixed pool of PHP processes, each serving one request at a time.
//
//   serve  write a private nginx + PHP-FPM configuration into a temporary directory, start
//          PHP-FPM (args.php_fpm; pm = static, args.pool_children processes, on a Unix socket)
//          and nginx (args.nginx; args.nginx_workers worker processes, FastCGI to that socket)
//          on a free loopback port, and answer the port once nginx answers through PHP-FPM.
//          args.blocking_ms is the handler's blocking call per request (0: none; scenario B:
//          10): a plain `usleep`, which blocks its PHP-FPM process (no coroutines here).
//          They serve until the harness closes stdin; then both are stopped and the directory
//          removed.
//
// Standard PHP CLI only (proc_open); PHP-FPM and nginx are Debian's php-fpm and nginx packages.

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

function program_arg(array $args, string $key): string
{
    $p = $args[$key] ?? null;
    if (!is_string($p) || !is_executable($p)) {
        throw new InvalidArgumentException("args.$key must name an executable program");
    }
    return $p;
}

/** A free loopback port (bound and released: nginx binds it right after). */
function free_port(): int
{
    $s = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
    if ($s === false) {
        throw new RuntimeException("finding a free port: $errstr ($errno)");
    }
    $port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
    fclose($s);
    return $port;
}

function fpm_conf(string $dir, int $children, bool $root): string
{
    $user = $root ? "user = root\ngroup = root\n" : '';
    return "[global]\nerror_log = $dir/php-fpm.log\ndaemonize = no\npid = $dir/php-fpm.pid\n\n"
        . "[concbench]\n$user"
        . "listen = $dir/php-fpm.sock\nlisten.mode = 0666\nlisten.backlog = " . BACKLOG . "\n"
        . "pm = static\npm.max_children = $children\npm.max_requests = 0\n"
        . "request_terminate_timeout = 0\ncatch_workers_output = yes\n";
}

function nginx_conf(string $dir, int $port, int $workers, bool $root): string
{
    $user = $root ? "user root;\n" : '';
    $temp = '';
    foreach (['client_body', 'fastcgi', 'proxy', 'uwsgi', 'scgi'] as $t) {
        $temp .= "  {$t}_temp_path $dir/$t;\n";
    }
    $params = '';
    foreach ([
        'SCRIPT_FILENAME' => "$dir/handler.php", 'REQUEST_METHOD' => '$request_method',
        'QUERY_STRING' => '$query_string', 'REQUEST_URI' => '$request_uri',
        'SERVER_PROTOCOL' => '$server_protocol', 'GATEWAY_INTERFACE' => 'CGI/1.1',
        'REMOTE_ADDR' => '$remote_addr', 'SERVER_NAME' => '$server_name',
        'SERVER_PORT' => '$server_port',
    ] as $k => $v) {
        $params .= "      fastcgi_param $k $v;\n";
    }
    return "daemon off;\nmaster_process on;\nworker_processes $workers;\n$user"
        . "pid $dir/nginx.pid;\nerror_log stderr warn;\n"
        . "events { worker_connections 8192; }\n"
        . "http {\n  access_log off;\n$temp"
        . "  keepalive_requests 100000000;\n  keepalive_timeout 300s;\n"
        . "  server {\n    listen 127.0.0.1:$port backlog=" . BACKLOG . ";\n"
        . "    location / {\n      fastcgi_pass unix:$dir/php-fpm.sock;\n$params"
        . "      fastcgi_read_timeout 600s;\n    }\n  }\n}\n";
}

function handler(int $blocking_ms): string
{
    $block = $blocking_ms > 0 ? 'usleep(' . ($blocking_ms * 1000) . ');' : '';
    return "<?php\n$block\nheader('Content-Type: text/plain');\nheader('Content-Length: "
        . strlen(BODY) . "');\necho " . var_export(BODY, true) . ";\n";
}

/** Whether nginx answers 200 through PHP-FPM on `port`. */
function answers(int $port): bool
{
    $c = @stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 1);
    if ($c === false) {
        return false;
    }
    stream_set_timeout($c, 5);
    fwrite($c, "GET / HTTP/1.1\r\nHost: concbench\r\nConnection: close\r\n\r\n");
    $text = stream_get_contents($c);
    fclose($c);
    return is_string($text) && str_starts_with($text, 'HTTP/1.1 200') && str_contains($text, "\r\n\r\n" . BODY);
}

final class Servers
{
    /** @var array<int, resource> */
    public array $procs = [];
    public ?string $dir = null;

    public function stop(): void
    {
        // nginx: SIGTERM is its fast shutdown; PHP-FPM: SIGTERM ends the pool at once.
        foreach ($this->procs as $p) {
            proc_terminate($p, SIGTERM);
        }
        foreach ($this->procs as $p) {
            proc_close($p);
        }
        $this->procs = [];
        if ($this->dir !== null) {
            exec('rm -rf ' . escapeshellarg($this->dir));
            $this->dir = null;
        }
    }
}

function start(array $cmd): mixed
{
    // Their output goes to our stderr, which the harness keeps.
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => STDERR, 2 => STDERR], $pipes);
    if ($p === false) {
        throw new RuntimeException('starting ' . $cmd[0] . ' failed');
    }
    return $p;
}

function serve(array $args, Servers $servers): int
{
    if ($servers->procs) {
        throw new RuntimeException('this probe already serves; start another probe for another server');
    }
    $fpm = program_arg($args, 'php_fpm');
    $nginx = program_arg($args, 'nginx');
    $blocking_ms = int_arg($args, 'blocking_ms', 0);
    $children = max(1, int_arg($args, 'pool_children', 5));
    $workers = max(1, int_arg($args, 'nginx_workers', 2));
    $root = function_exists('posix_geteuid') && posix_geteuid() === 0;
    $dir = sys_get_temp_dir() . '/concbench-php-fpm-' . getmypid() . '-' . bin2hex(random_bytes(4));
    if (!mkdir($dir, 0755)) {
        throw new RuntimeException("creating $dir");
    }
    $servers->dir = $dir;
    $port = free_port();
    file_put_contents("$dir/php-fpm.conf", fpm_conf($dir, $children, $root));
    file_put_contents("$dir/nginx.conf", nginx_conf($dir, $port, $workers, $root));
    file_put_contents("$dir/handler.php", handler($blocking_ms));
    $fpm_cmd = [$fpm, '--nodaemonize', '--fpm-config', "$dir/php-fpm.conf", '--prefix', $dir];
    if ($root) {
        $fpm_cmd[] = '--allow-to-run-as-root';
    }
    $servers->procs[] = start($fpm_cmd);
    $servers->procs[] = start([$nginx, '-p', "$dir/", '-c', "$dir/nginx.conf", '-e', 'stderr']);
    $deadline = hrtime(true) + 30_000_000_000;
    // Asked only once PHP-FPM's socket exists (nginx logs every refused upstream connection).
    while (!file_exists("$dir/php-fpm.sock") || !answers($port)) {
        foreach ($servers->procs as $p) {
            if (!proc_get_status($p)['running']) {
                $log = @file_get_contents("$dir/php-fpm.log") ?: '';
                throw new RuntimeException('nginx or PHP-FPM exited at start (see stderr) ' . trim($log));
            }
        }
        if (hrtime(true) > $deadline) {
            throw new RuntimeException('nginx + PHP-FPM did not answer within 30 s');
        }
        usleep(50_000);
    }
    return $port;
}

function handle(string $line, Servers $servers): void
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
        $port = serve(is_array($req['args'] ?? null) ? $req['args'] : [], $servers);
        answer(['ok' => true, 'ns_per_op' => hrtime(true) - $t0, 'ops' => 1, 'port' => $port]);
    } catch (Throwable $e) {
        $servers->stop();
        fail(get_class($e) . ': ' . $e->getMessage());
    }
}

$servers = new Servers();
answer(['hello' => 'concbench-probe', 'runtime' => 'php',
    'version' => 'PHP ' . PHP_VERSION . ' (PHP-FPM behind nginx)', 'experiments' => ['serve']]);
while (($line = fgets(STDIN)) !== false) {
    handle($line, $servers);
}
$servers->stop();
exit(0);
