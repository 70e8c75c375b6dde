// Seed S2's event-loop server: Netty's HttpHelloWorldServer, the example the article ran, with
// its set-up — `args.boss_loops` boss loops accepting (the printed code: 2), `args.event_loops`
// worker loops (the article's prose: 2; its printed code: Netty's default, 4 on its 2 CPUs) on
// Java NIO. Compiled only into the Netty build of the Java probe (io.netty:netty-all from Maven
// Central on the classpath).
//
//   args.blocking_ms    the blocking call per request (0: none; scenario B: 10), a Thread.sleep
//   args.blocking_in    "event-loop": the handler (and its sleep) runs on the worker loop, as the
//                       article measured; "business-pool": the handler runs on a
//                       DefaultEventExecutorGroup of args.pool_threads threads, what a Netty user
//                       does with blocking work
//   args.event_loops    worker event loops (2)
//   args.boss_loops     boss event loops (1)
//   args.pool_threads   threads of the business pool

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.Version;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

public final class NettyServe {
    static final byte[] BODY = "Hello, world\n".getBytes(StandardCharsets.US_ASCII);

    public static String version() {
        Version v = Version.identify().get("netty-common");
        return v == null ? "(unknown version)" : v.artifactVersion();
    }

    public static Probe.Result start(Map<String, Object> args) throws Exception {
        int blockingMs = Probe.intArg(args, "blocking_ms", 0);
        int loops = Math.max(1, Probe.intArg(args, "event_loops", 2));
        int bosses = Math.max(1, Probe.intArg(args, "boss_loops", 1));
        Object where = args.getOrDefault("blocking_in", "event-loop");
        EventExecutorGroup pool;
        if ("business-pool".equals(where)) {
            pool = new DefaultEventExecutorGroup(Math.max(1, Probe.intArg(args, "pool_threads", 200)));
        } else if ("event-loop".equals(where)) {
            pool = null;
        } else {
            throw new IllegalArgumentException("args.blocking_in must be event-loop or business-pool, not " + where);
        }
        long t0 = System.nanoTime();
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(bosses, NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(loops, NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        p.addLast(new HttpServerCodec());
                        if (pool == null) p.addLast(new Hello(blockingMs));
                        else p.addLast(pool, new Hello(blockingMs));
                    }
                });
        Channel ch = b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        int port = ((InetSocketAddress) ch.localAddress()).getPort();
        return Probe.Result.listening(System.nanoTime() - t0, port);
    }

    /** HttpHelloWorldServerHandler, with the blocking call in front of the response. */
    static final class Hello extends SimpleChannelInboundHandler<HttpObject> {
        private final int blockingMs;

        Hello(int blockingMs) {
            this.blockingMs = blockingMs;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws Exception {
            if (!(msg instanceof HttpRequest req)) return;
            if (blockingMs > 0) Thread.sleep(blockingMs);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            FullHttpResponse response = new DefaultFullHttpResponse(req.protocolVersion(), HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(BODY));
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.TEXT_PLAIN)
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length);
            if (keepAlive) {
                if (!req.protocolVersion().isKeepAliveDefault()) {
                    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                }
                ctx.writeAndFlush(response);
            } else {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
