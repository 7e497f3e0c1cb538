package dev.walkit.migrate;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback in front of a real etcd that goes silent, as a hung or partitioned etcd does:
 * after {@code silentAfter} bytes from the client it still accepts and reads, but forwards nothing either way.
 * {@code silentAfter} 0: silent from the start (a port that accepts and never answers).
 */
final class SilentProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final long silentAfter;
    private final AtomicLong fromClient = new AtomicLong();
    /** When it went silent (System.nanoTime), or 0. */
    private final AtomicLong silentSince = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    SilentProxy(int targetPort, long silentAfter) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.silentAfter = silentAfter;
        Thread t = new Thread(this::accept, "silent-proxy");
        t.setDaemon(true);
        t.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    boolean silent() {
        return fromClient.get() >= silentAfter;
    }

    /** When it went silent (System.nanoTime), or 0 while it still answers. */
    long silentSince() {
        return silentSince.get();
    }

    private void accept() {
        try {
            for (;;) {
                Socket client = server.accept();
                sockets.add(client);
                Socket target = null;
                if (silentAfter > 0) {
                    target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    sockets.add(target);
                }
                pump(client.getInputStream(), target == null ? null : target.getOutputStream(), true);
                if (target != null) pump(target.getInputStream(), client.getOutputStream(), false);
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void pump(InputStream in, OutputStream out, boolean counts) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    boolean wasSilent = silent();
                    if (counts) fromClient.addAndGet(n);
                    if (!wasSilent && silent()) silentSince.compareAndSet(0, System.nanoTime());
                    if (!wasSilent && out != null) out.write(buf, 0, n);
                }
            } catch (IOException e) {
                // a side closed
            }
        }, "silent-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) s.close();
    }
}
