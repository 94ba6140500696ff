package dev.troupe.remote;

/**
 * {@link RemoteTransport#start} could not listen on its bind address: the port is taken (often by
 * another node on the same machine, which needs a port of its own), or the host is not an address
 * of this machine. Nothing was started; the transport's threads are stopped again.
 */
public final class TransportBindException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String host;
    private final int port;
    private final boolean portInUse;

    /**
     * @param host the bind host ({@link RemoteSettings.Builder#bindHost})
     * @param port the bind port ({@link RemoteSettings.Builder#bindPort})
     * @param cause what the socket reported
     */
    public TransportBindException(String host, int port, Throwable cause) {
        super(message(host, port, cause), cause);
        this.host = host;
        this.port = port;
        this.portInUse = inUse(cause);
    }

    /** @return the host the transport tried to listen on */
    public String host() {
        return host;
    }

    /** @return the port the transport tried to listen on */
    public int port() {
        return port;
    }

    /** @return whether the socket said the address is already in use (else the host is not one of this machine's) */
    public boolean portInUse() {
        return portInUse;
    }

    /** @return what the socket reported, such as {@code Address already in use} */
    public String reason() {
        return reason(getCause());
    }

    private static String message(String host, int port, Throwable cause) {
        final String where = host + ":" + port;
        if (inUse(cause)) {
            return "cannot listen on " + where + ": the port is in use (" + reason(cause) + "); another process, or another node"
                + " on this machine, listens there. Give each node its own port (RemoteSettings.Builder.bindPort), or stop the other process.";
        }
        return "cannot listen on " + where + " (" + reason(cause) + "): make the host one of this machine's addresses, or 0.0.0.0"
            + " for all of them (RemoteSettings.Builder.bindHost).";
    }

    private static boolean inUse(Throwable cause) {
        // NIO's BindException and the epoll transport's NativeIoException (errno EADDRINUSE) say the same words
        for (Throwable t = cause; t != null; t = t.getCause()) {
            final String m = t.getMessage();
            if (m != null && m.contains("in use")) {
                return true;
            }
        }
        return false;
    }

    private static String reason(Throwable cause) {
        final String m = cause == null ? null : cause.getMessage();
        return m == null ? String.valueOf(cause) : m;
    }
}
