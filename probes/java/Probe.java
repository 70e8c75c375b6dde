// concbench probe in Java: platform and virtual threads asked concbench's questions, behind the
// probe protocol (docs/PROBE_PROTOCOL.md). Standard library only; compiles on Java 17 and later
// (virtual threads are reached through reflection, so the same source builds everywhere).
//
//   create    a thread created, started and joined (seed S0.create's Java program, in a loop)
//   pingpong  two threads hand the turn over with LockSupport park/unpark (one op = one hand-over)
//   print     args.workers threads each print lines as seed S0.scale's MyThread did: printf to a
//             System.out-like stream (here on /dev/null) plus a write to a log file; one op = a line
//   memory    N threads parked at once: native (RSS) plus live-heap bytes per thread
//   read      seed S4's reader: BufferedInputStream.read() one byte at a time over args.paths,
//             one thread in turn (args.model "one-thread-sequential") or a thread per file
//             ("threads"); one op = the whole configuration
//   serve     start an HTTP server and answer its port (seed S2): args.server "virtual-threads"
//             (VirtualServe.java) or "netty" (NettyServe.java, built only with Netty's jars)
//   hold      N more threads parked for good, kept until the probe exits (concbench capacity):
//             time per thread until it is parked; metrics created, held; "stopped" says why
//             creation stopped short (OutOfMemoryError: unable to create native thread, heap)
//   detect    what the JVM sized itself for: availableProcessors() (container-aware), the
//             common pool's parallelism, the heap it chose and the memory it sees, in metrics
//
// args.thread_kind = "platform" | "virtual" chooses the kind of every thread an experiment makes.

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

public final class Probe {
    static final int PROTOCOL = 1;

    /** What one experiment measured. `usage` is null when the request-wide reading applies;
     *  `port` is where a started server listens (0: none). */
    record Result(long elapsedNs, long ops, Double value, Map<String, Double> metrics, double[] usage, int port) {
        Result(long elapsedNs, long ops) {
            this(elapsedNs, ops, null, Map.of(), null, 0);
        }

        Result(long elapsedNs, long ops, Double value, Map<String, Double> metrics, double[] usage) {
            this(elapsedNs, ops, value, metrics, usage, 0);
        }

        static Result listening(long elapsedNs, int port) {
            return new Result(elapsedNs, 1, null, Map.of(), null, port);
        }
    }

    // ---- usage: getrusage through the FFM API when the JDK has it (22+, NativeUsage.java),
    // otherwise /proc/self/stat, which has CPU time and faults but no context switches.

    static final Supplier<double[]> NATIVE_USAGE = loadNativeUsage();

    @SuppressWarnings("unchecked")
    static Supplier<double[]> loadNativeUsage() {
        try {
            return (Supplier<double[]>) Class.forName("NativeUsage").getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            return null;
        }
    }

    /** {voluntary, involuntary, minor faults, major faults, user ns, sys ns}; NaN = unknown. */
    static double[] usage() {
        if (NATIVE_USAGE != null) return NATIVE_USAGE.get();
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // Fields after the command name, 0-based from `state`: minflt 7, cminflt 8, majflt 9,
            // cmajflt 10, utime 11, stime 12, cutime 13, cstime 14 (clock ticks of 10 ms: USER_HZ).
            double tick = 1e7;
            return new double[] {Double.NaN, Double.NaN,
                num(f[7]) + num(f[8]), num(f[9]) + num(f[10]),
                (num(f[11]) + num(f[13])) * tick, (num(f[12]) + num(f[14])) * tick};
        } catch (IOException | RuntimeException e) {
            return new double[] {Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN};
        }
    }

    static double num(String s) {
        return Double.parseDouble(s);
    }

    static double[] minus(double[] b, double[] a) {
        double[] d = new double[a.length];
        for (int i = 0; i < a.length; i++) d[i] = b[i] - a[i];
        return d;
    }

    // ---- thread kinds

    static ThreadFactory factory(Map<String, Object> args) throws ReflectiveOperationException {
        Object kind = args.getOrDefault("thread_kind", "platform");
        if ("platform".equals(kind)) return Thread::new;
        if (!"virtual".equals(kind)) throw new IllegalArgumentException("thread_kind must be platform or virtual, not " + kind);
        if (Runtime.version().feature() < 21) throw new IllegalArgumentException("virtual threads need Java 21 or later");
        // Thread.ofVirtual().factory(), through the public interface so this compiles on 17.
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
    }

    static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
    }

    // ---- create

    static Result create(long n, ThreadFactory f) {
        Runnable empty = () -> {};
        long start = System.nanoTime();
        for (long i = 0; i < n; i++) {
            Thread t = f.newThread(empty);
            t.start();
            join(t);
        }
        return new Result(System.nanoTime() - start, n);
    }

    // ---- pingpong

    static final class Turn {
        volatile int owner; // 0: A's turn, 1: B's turn
        Thread a, b;

        /** A gives the turn to B and waits for it back: one round trip, two hand-overs. */
        void roundTrip() {
            owner = 1;
            LockSupport.unpark(b);
            while (owner != 0) LockSupport.park(this);
        }

        void answer() {
            while (owner != 1) LockSupport.park(this);
            owner = 0;
            LockSupport.unpark(a);
        }
    }

    static Result pingpong(long n, ThreadFactory f) {
        long trips = Math.max(n / 2, 1);
        Turn turn = new Turn();
        long[] elapsed = new long[1];
        double[][] used = new double[1][];
        turn.b = f.newThread(() -> {
            for (long i = 0; i <= trips; i++) turn.answer();
        });
        turn.a = f.newThread(() -> {
            turn.roundTrip(); // untimed: B is running before the clock starts
            double[] before = usage();
            long start = System.nanoTime();
            for (long i = 0; i < trips; i++) turn.roundTrip();
            elapsed[0] = System.nanoTime() - start;
            used[0] = minus(usage(), before);
        });
        turn.b.start();
        turn.a.start();
        join(turn.a);
        join(turn.b);
        return new Result(elapsed[0], 2 * trips, null, Map.of(), used[0]);
    }

    // ---- print: seed S0.scale's MyThread

    static final String LINE = "hello linux\n";

    static Result print(long n, ThreadFactory f, Map<String, Object> args) throws IOException {
        int workers = ((Number) args.getOrDefault("workers", 1000.0)).intValue();
        long count = Math.max(n / workers, 1);
        File logFile = new File((String) args.getOrDefault("scratch", System.getProperty("java.io.tmpdir")),
                "probe-java-print-" + ProcessHandle.current().pid() + ".log");
        // System.out is a PrintStream over a BufferedOutputStream that flushes at each newline.
        try (PrintStream console = new PrintStream(new BufferedOutputStream(new FileOutputStream("/dev/null"), 8192), true);
             FileOutputStream log = new FileOutputStream(logFile, true)) {
            Runnable body = () -> {
                for (long i = 0; i < count; i++) {
                    console.printf("[%d]%s", i, LINE);
                    StringBuilder sb = new StringBuilder(16).append('[').append(i).append(']').append(LINE);
                    try {
                        log.write(sb.toString().getBytes(StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
            Thread[] threads = new Thread[workers];
            long start = System.nanoTime();
            for (int i = 0; i < workers; i++) {
                threads[i] = f.newThread(body);
                threads[i].start();
            }
            for (Thread t : threads) join(t);
            return new Result(System.nanoTime() - start, workers * count);
        } finally {
            Files.deleteIfExists(logFile.toPath());
        }
    }

    // ---- memory: native bytes from RSS (the heap is pre-touched at start-up by the launcher's
    // -Xms=-Xmx -XX:+AlwaysPreTouch, so heap growth does not show in RSS) plus live heap after GC.

    static double rssKiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) return Double.parseDouble(line.replaceAll("[^0-9]", ""));
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }

    static double liveHeapKiB() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1024.0;
    }

    static Result memory(long n, ThreadFactory f) throws IOException, InterruptedException {
        CountDownLatch started = new CountDownLatch((int) n), release = new CountDownLatch(1);
        Runnable parked = () -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        double heap0 = liveHeapKiB(), rss0 = rssKiB();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (long i = 0; i < n; i++) {
                Thread t = f.newThread(parked);
                t.start();
                threads.add(t);
            }
            started.await();
            long elapsed = System.nanoTime() - start;
            double heap = (liveHeapKiB() - heap0) / n, rss = (rssKiB() - rss0) / n;
            Map<String, Double> metrics = new LinkedHashMap<>();
            metrics.put("native_kib_per_thread", rss);
            metrics.put("heap_kib_per_thread", heap);
            metrics.put("create_ns", (double) elapsed / n);
            return new Result(elapsed, n, rss + heap, metrics, null);
        } finally {
            release.countDown();
            for (Thread t : threads) join(t);
        }
    }

    // ---- hold: units kept idle until the probe exits (concbench capacity)

    static final java.util.concurrent.atomic.AtomicLong IDLE = new java.util.concurrent.atomic.AtomicLong();
    /** Every held thread, so none is unreachable (a parked virtual thread nobody references may
     *  be collected). */
    static final List<Thread> HELD = new ArrayList<>();
    /** Why the last hold stopped short, for its answer. */
    static String stopped;
    /** Heap given back when a hold runs out of it, so that its answer can still be written. */
    static byte[] reserve = new byte[16 << 20];

    static Result hold(long n, ThreadFactory f) {
        Runnable idle = () -> {
            IDLE.incrementAndGet();
            while (true) LockSupport.park();
        };
        long before = IDLE.get(), created = 0;
        stopped = null;
        long start = System.nanoTime();
        try {
            for (; created < n; created++) {
                Thread t = f.newThread(idle);
                t.start();
                HELD.add(t);
            }
        } catch (OutOfMemoryError | RuntimeException e) {
            reserve = null;
            stopped = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        // Until every started thread is parked; one that failed before counting in never will, so
        // give up after five seconds without progress.
        long target = before + created, last = IDLE.get(), quiet = System.nanoTime();
        while (IDLE.get() < target) {
            LockSupport.parkNanos(100_000);
            long now = IDLE.get();
            if (now != last) {
                last = now;
                quiet = System.nanoTime();
            } else if (System.nanoTime() - quiet > 5_000_000_000L) {
                if (stopped == null) stopped = (target - now) + " started threads never reached park";
                break;
            }
        }
        long elapsed = System.nanoTime() - start, idleNow = IDLE.get() - before;
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("created", (double) idleNow);
        metrics.put("held", (double) IDLE.get());
        return new Result(elapsed, Math.max(idleNow, 1), null, metrics, null);
    }

    static Result detect() {
        long start = System.nanoTime();
        Runtime rt = Runtime.getRuntime();
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("available_processors", (double) rt.availableProcessors());
        metrics.put("common_pool_parallelism", (double) java.util.concurrent.ForkJoinPool.getCommonPoolParallelism());
        metrics.put("max_heap_mib", rt.maxMemory() / 1048576.0);
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            metrics.put("memory_seen_mib", os.getTotalMemorySize() / 1048576.0);
        }
        return new Result(System.nanoTime() - start, 1, null, metrics, null);
    }

    // ---- read: seed S4's reader, one byte per read() call behind BufferedInputStream's default
    // 8 KiB buffer. The harness made the files and dropped their cached pages before the request.

    static long readAll(String path) throws IOException {
        long bytes = 0;
        try (InputStream in = new BufferedInputStream(new FileInputStream(path))) {
            while (in.read() != -1) bytes++;
        }
        return bytes;
    }

    static Result read(Map<String, Object> args) throws Exception {
        if (!(args.get("paths") instanceof List<?> list) || list.isEmpty()) {
            throw new IllegalArgumentException("args.paths must be a non-empty list of files");
        }
        List<String> paths = new ArrayList<>();
        for (Object p : list) paths.add((String) p);
        Object model = args.getOrDefault("model", "one-thread-sequential");
        long[] bytes = new long[paths.size()];
        long elapsed;
        if ("one-thread-sequential".equals(model)) {
            long start = System.nanoTime();
            for (int i = 0; i < paths.size(); i++) bytes[i] = readAll(paths.get(i));
            elapsed = System.nanoTime() - start;
        } else if ("threads".equals(model)) {
            elapsed = readInThreads(paths, bytes);
        } else {
            throw new IllegalArgumentException("args.model must be one-thread-sequential or threads, not " + model);
        }
        long total = 0;
        for (long b : bytes) total += b;
        Map<String, Double> metrics = new LinkedHashMap<>();
        metrics.put("bytes", (double) total);
        return new Result(elapsed, 1, null, metrics, null);
    }

    /** A thread per file, all released at once: timed from the release to the last one's end. */
    static long readInThreads(List<String> paths, long[] bytes) throws Exception {
        CountDownLatch ready = new CountDownLatch(paths.size()), go = new CountDownLatch(1);
        Exception[] failure = new Exception[1];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
            int k = i;
            Thread t = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    bytes[k] = readAll(paths.get(k));
                } catch (Exception e) {
                    synchronized (failure) { failure[0] = e; }
                }
            });
            t.start();
            threads.add(t);
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        for (Thread t : threads) join(t);
        long elapsed = System.nanoTime() - start;
        if (failure[0] != null) throw failure[0];
        return elapsed;
    }

    // ---- serve: the server classes are found by name, so the Netty one may be absent

    static Result serve(Map<String, Object> args) throws Exception {
        Object server = args.get("server");
        String cls = "netty".equals(server) ? "NettyServe" : "virtual-threads".equals(server) ? "VirtualServe" : null;
        if (cls == null) throw new IllegalArgumentException("args.server must be virtual-threads or netty, not " + server);
        Class<?> c;
        try {
            c = Class.forName(cls);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("this build of the probe has no " + cls + " (Netty is built only for the Netty variants)");
        }
        return (Result) c.getMethod("start", Map.class).invoke(null, args);
    }

    static int intArg(Map<String, Object> args, String key, int fallback) {
        Object v = args.get(key);
        if (v == null) return fallback;
        if (!(v instanceof Double d) || d < 0 || d != Math.floor(d)) {
            throw new IllegalArgumentException("args." + key + " must be a non-negative integer, not " + v);
        }
        return d.intValue();
    }

    // ---- protocol

    /** Run `body` on a thread from `f`: a virtual thread's create + join is measured from a
     *  virtual thread, so both sides stay on the carrier as a virtual-thread program's would. */
    static Result onThreadOf(ThreadFactory f, Supplier<Result> body) {
        Result[] out = new Result[1];
        Thread t = f.newThread(() -> out[0] = body.get());
        t.start();
        join(t);
        return out[0];
    }

    static Result run(String id, long n, Map<String, Object> args) throws Exception {
        ThreadFactory f = factory(args);
        switch (id) {
            case "create": return "virtual".equals(args.get("thread_kind")) ? onThreadOf(f, () -> create(n, f)) : create(n, f);
            case "pingpong": return pingpong(n, f);
            case "print": return print(n, f, args);
            case "memory": return memory(n, f);
            case "read": return read(args);
            case "serve": return serve(args);
            case "hold": return hold(n, f);
            case "detect": return detect();
            default: throw new IllegalArgumentException("unknown experiment '" + id + "'");
        }
    }

    static String handle(String line) {
        Map<String, Object> req;
        try {
            Object parsed = new Json(line).value();
            if (!(parsed instanceof Map)) throw new IllegalArgumentException("not an object");
            @SuppressWarnings("unchecked") Map<String, Object> m = (Map<String, Object>) parsed;
            req = m;
        } catch (RuntimeException e) {
            return error("the request is not JSON: " + e.getMessage());
        }
        if (!Double.valueOf(PROTOCOL).equals(req.get("v"))) {
            return error("protocol version not supported (this probe speaks " + PROTOCOL + ")");
        }
        Object id = req.get("id"), iterations = req.get("iterations");
        if (!(id instanceof String) || !(iterations instanceof Double) || (Double) iterations < 1) {
            return error("a request needs \"id\" and \"iterations\" >= 1");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> args = req.get("args") instanceof Map ? (Map<String, Object>) req.get("args") : Map.of();
        try {
            double[] before = usage();
            Result r = run((String) id, ((Double) iterations).longValue(), args);
            double[] used = r.usage() != null ? r.usage() : minus(usage(), before);
            return ok(r, used);
        } catch (java.lang.reflect.InvocationTargetException e) {
            return error(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        } catch (Exception | OutOfMemoryError e) {
            return error(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    static final String[] USAGE_KEYS = {"voluntary_switches", "involuntary_switches", "minor_faults", "major_faults", "user_ns", "sys_ns"};

    static String ok(Result r, double[] used) {
        StringBuilder s = new StringBuilder("{\"v\":").append(PROTOCOL).append(",\"ok\":true");
        s.append(",\"ns_per_op\":").append((double) r.elapsedNs() / r.ops()).append(",\"ops\":").append(r.ops());
        if (r.port() != 0) s.append(",\"port\":").append(r.port());
        if (r.value() != null) s.append(",\"value\":").append(r.value());
        if (stopped != null) {
            s.append(",\"stopped\":").append(Json.quote(stopped));
            stopped = null;
        }
        s.append(",\"usage\":{");
        String sep = "";
        for (int i = 0; i < USAGE_KEYS.length; i++) {
            if (Double.isNaN(used[i])) continue;
            s.append(sep).append('"').append(USAGE_KEYS[i]).append("\":").append(used[i]);
            sep = ",";
        }
        s.append("},\"metrics\":{");
        sep = "";
        for (Map.Entry<String, Double> m : r.metrics().entrySet()) {
            s.append(sep).append('"').append(m.getKey()).append("\":").append(m.getValue());
            sep = ",";
        }
        return s.append("}}").toString();
    }

    static String error(String message) {
        return "{\"v\":" + PROTOCOL + ",\"ok\":false,\"error\":" + Json.quote(message) + "}";
    }

    static String version() {
        return Runtime.version() + " " + System.getProperty("java.vm.name") + " (" + System.getProperty("java.vendor")
                + (NATIVE_USAGE == null ? "; no getrusage before Java 22" : "") + ")" + nettyVersion();
    }

    /** " + Netty 4.2.18.Final" in the build that has Netty, else nothing. */
    static String nettyVersion() {
        try {
            return " + Netty " + Class.forName("NettyServe").getMethod("version").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            return "";
        }
    }

    public static void main(String[] argv) throws IOException {
        // The protocol channel: the real stdout, written with explicit flushes.
        PrintStream out = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        out.println("{\"v\":" + PROTOCOL + ",\"hello\":\"concbench-probe\",\"runtime\":\"java\",\"version\":"
                + Json.quote(version()) + ",\"experiments\":[\"create\",\"pingpong\",\"print\",\"memory\",\"read\",\"serve\",\"hold\",\"detect\"]}");
        out.flush();
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) { // EOF: the harness is done with us
            out.println(handle(line));
            out.flush();
        }
        // A server's threads (Netty's event loops are not daemons) must not keep the JVM up.
        System.exit(0);
    }

    /** A small JSON reader (objects, arrays, strings, numbers as Double, booleans, null): the JDK
     *  has none, and the probe must need nothing beyond it. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object value() {
            skip();
            if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
            char c = s.charAt(i);
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (start == i) throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
            return Double.valueOf(s.substring(start, i));
        }

        private Map<String, Object> object() {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            skip();
            if (peek('}')) return m;
            do {
                skip();
                String key = string();
                skip();
                expect(':');
                m.put(key, value());
                skip();
            } while (peek(','));
            expect('}');
            return m;
        }

        private List<Object> array() {
            List<Object> l = new ArrayList<>();
            i++;
            skip();
            if (peek(']')) return l;
            do {
                l.add(value());
                skip();
            } while (peek(','));
            expect(']');
            return l;
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (i < s.length() && s.charAt(i) != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case 'n': b.append('\n'); break;
                        case 't': b.append('\t'); break;
                        case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                        default: b.append(e);
                    }
                } else {
                    b.append(c);
                }
            }
            expect('"');
            return b.toString();
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        private boolean peek(char c) {
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        private void expect(char c) {
            if (!peek(c)) throw new IllegalArgumentException("expected '" + c + "' at " + i);
        }

        static String quote(String v) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : v.toCharArray()) {
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(' ');
                else b.append(c);
            }
            return b.append('"').toString();
        }
    }
}
