// Seed S2's coroutine server, the Java way: a virtual thread per connection
// (Executors.newVirtualThreadPerTaskExecutor, Java 21+), written as plain blocking code; the
// blocking call is Thread.sleep, which unmounts the virtual thread from its carrier instead of
// blocking it. Reached through reflection so the probe still compiles on Java 17.
//
//   args.blocking_ms  the blocking call per request (0: none; scenario B: 10)
//
// HTTP/1.1 keep-alive as concbench's load generator and `ab -k` speak it: GET requests, answered
// with concbench's own 13-byte body; HTTP/1.0 keep-alive is acknowledged (ab needs the header).

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public final class VirtualServe {
    static final int BACKLOG = 4096;

    public static Probe.Result start(Map<String, Object> args) throws Exception {
        int blockingMs = Probe.intArg(args, "blocking_ms", 0);
        if (Runtime.version().feature() < 21) throw new IllegalArgumentException("virtual threads need Java 21 or later");
        long t0 = System.nanoTime();
        ServerSocket listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), BACKLOG);
        ExecutorService perConnection = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        Thread acceptor = new Thread(() -> {
            while (true) {
                try {
                    Socket s = listener.accept();
                    perConnection.submit(() -> serve(s, blockingMs));
                } catch (IOException e) {
                    return;
                }
            }
        }, "acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        return Probe.Result.listening(System.nanoTime() - t0, listener.getLocalPort());
    }

    /** One connection: read requests, answer each, until the client closes or asks to. */
    static void serve(Socket s, int blockingMs) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setTcpNoDelay(true);
            Http1 conn = new Http1();
            while (true) {
                Http1.Request req = conn.next(in);
                if (req == null) return;
                if (blockingMs > 0) Thread.sleep(blockingMs);
                out.write(Http1.response(req));
                out.flush();
                if (req.close()) return;
            }
        } catch (IOException | InterruptedException e) {
            // The client went away: nothing to report.
        }
    }

    /** The few bytes of HTTP/1.x these servers need: find a request's end, read its version and
     *  Connection header, build the fixed response. */
    static final class Http1 {
        record Request(boolean close, boolean keepAlive10) {}

        static final byte[] BODY = "Hello, world\n".getBytes(StandardCharsets.US_ASCII);
        private final byte[] buf = new byte[8192];
        private int start, end;

        /** The next request, or null at end of input. */
        Request next(InputStream in) throws IOException {
            while (true) {
                int stop = find();
                if (stop >= 0) {
                    String head = new String(buf, start, stop - start, StandardCharsets.ISO_8859_1).toLowerCase();
                    start = stop + 4;
                    int lineEnd = head.indexOf('\r');
                    boolean http10 = (lineEnd < 0 ? head : head.substring(0, lineEnd)).endsWith("http/1.0");
                    boolean keepAlive = head.contains("\nconnection: keep-alive");
                    boolean close = head.contains("\nconnection: close") || (http10 && !keepAlive);
                    return new Request(close, http10 && keepAlive);
                }
                if (start > 0) {
                    System.arraycopy(buf, start, buf, 0, end - start);
                    end -= start;
                    start = 0;
                }
                if (end == buf.length) throw new IOException("request too long");
                int n = in.read(buf, end, buf.length - end);
                if (n < 0) return null;
                end += n;
            }
        }

        private int find() {
            for (int i = start; i + 3 < end; i++) {
                if (buf[i] == '\r' && buf[i + 1] == '\n' && buf[i + 2] == '\r' && buf[i + 3] == '\n') return i;
            }
            return -1;
        }

        static byte[] response(Request req) {
            String head = "HTTP/1.1 200 OK\r\nContent-Length: " + BODY.length + "\r\nContent-Type: text/plain\r\n"
                    + (req.keepAlive10() ? "Connection: keep-alive\r\n" : "")
                    + (req.close() ? "Connection: close\r\n" : "") + "\r\n";
            byte[] h = head.getBytes(StandardCharsets.US_ASCII);
            byte[] out = new byte[h.length + BODY.length];
            System.arraycopy(h, 0, out, 0, h.length);
            System.arraycopy(BODY, 0, out, h.length, BODY.length);
            return out;
        }
    }
}
