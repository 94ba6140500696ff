package dev.troupe.remote.internal;

import dev.troupe.actor.ActorPath;
import dev.troupe.remote.FrameRejection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What both handshake handlers share: the handshake timeout, the identity checks on a claimed
 * node (UID, system name, host, port, and with TLS the certificate), the transcript bytes, and
 * the hand-over to the steady-state handler. Handshake-time only: allocates freely.
 */
abstract class HandshakeHandler extends ConnectionHandler {

    final FrameDecoder decoder;
    private ScheduledFuture<?> timeout;
    private boolean done;

    HandshakeHandler(TransportCore core, String peer, FrameDecoder decoder) {
        super(core, peer);
        this.decoder = decoder;
    }

    /** Starts the handshake timer; call from {@code channelActive}. */
    final void startTimer(ChannelHandlerContext ctx, String waitingFor) {
        timeout = ctx.executor().schedule(() -> {
            if (!done) {
                reject(FrameRejection.HANDSHAKE_TIMEOUT, "no " + waitingFor + " within " + core.settings.handshakeTimeout().toMillis() + " ms");
            }
        }, core.settings.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * The handshake succeeded: raises the frame limit and puts {@code next} in this handler's place.
     * Frames that follow in the same read reach {@code next}.
     */
    final void handOver(ChannelHandlerContext ctx, String name, ConnectionHandler next) {
        done = true;
        cancelTimer();
        decoder.handshakeDone();
        ctx.pipeline().replace(this, name, next);
        decoder.deliverTo(next); // steady-state frames are read in place, without a slice each
    }

    final void cancelTimer() {
        if (timeout != null) {
            timeout.cancel(false);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimer();
        super.channelInactive(ctx);
    }

    /** @return the frame as sent, type byte and body, for the transcript; leaves the reader index */
    static byte[] transcript(ByteBuf frameAfterType) {
        final int typeAt = frameAfterType.readerIndex() - 1;
        return ByteBufUtil.getBytes(frameAfterType, typeAt, frameAfterType.writerIndex() - typeAt);
    }

    /** @return the frame just written to {@code out} from {@code start}, without its length prefix */
    static byte[] transcript(ByteBuf out, int start) {
        return ByteBufUtil.getBytes(out, start + Protocol.LENGTH_FIELD, out.writerIndex() - start - Protocol.LENGTH_FIELD);
    }

    /**
     * Refuses identities no honest peer claims.
     *
     * @throws FrameRejectedException with {@code invalid-identity} or {@code quarantined}
     */
    final void checkIdentity(long uid, String system, String host, int port) {
        if (uid == 0) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "UID 0");
        }
        if (uid == core.addresses.uid()) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "this node's own UID");
        }
        if (!HostNames.isValid(host)) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "host is not a hostname or IP literal: " + host);
        }
        if (port < 1 || port > 65535) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "port " + port);
        }
        try {
            ActorPath.root(system, host, port);
        } catch (IllegalArgumentException e) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, e.getMessage());
        }
        if (core.addresses.isOwnAddress(system, host, port)) {
            throw new FrameRejectedException(FrameRejection.INVALID_IDENTITY, "this node's own address");
        }
        if (core.associations.isQuarantined(NodeAddresses.key(system, host, port), uid)) {
            throw new FrameRejectedException(FrameRejection.QUARANTINED, "incarnation " + Long.toHexString(uid) + " is quarantined");
        }
    }

    /**
     * With mutual TLS, the peer's certificate must carry, as a subject alternative name, the
     * configured identity of its system ({@code tlsPeerIdentities}) or else its host or its
     * system name. Without TLS, does nothing.
     *
     * @throws FrameRejectedException with {@code auth-failed} if it does not
     */
    final void checkCertificate(ChannelHandlerContext ctx, String system, String host) {
        final SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return;
        }
        final X509Certificate cert;
        try {
            final Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            cert = (X509Certificate) chain[0];
        } catch (Exception e) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "TLS: no peer certificate: " + e.getMessage());
        }
        final String mapped = core.settings.tlsPeerIdentities().get(system);
        final boolean ok = mapped != null ? names(cert, mapped) : names(cert, host) || names(cert, system);
        if (!ok) {
            throw new FrameRejectedException(FrameRejection.AUTH_FAILED, "TLS: the certificate of " + system + "@" + host
                + " names neither " + (mapped != null ? mapped : host + " nor " + system) + " in its subject alternative names");
        }
    }

    /** @return whether {@code name} (validated: a hostname or IP literal) is a SAN of the certificate */
    static boolean names(X509Certificate cert, String name) {
        if (!HostNames.isValid(name)) {
            return false;
        }
        final Collection<List<?>> sans;
        try {
            sans = cert.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            return false;
        }
        if (sans == null) {
            return false;
        }
        final boolean ip = HostNames.isIpLiteral(name);
        for (List<?> san : sans) {
            final int type = (Integer) san.get(0);
            final String value = String.valueOf(san.get(1));
            if (ip && type == 7 && sameIp(value, name)) {
                return true;
            }
            if (!ip && type == 2 && dnsMatches(value, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameIp(String a, String b) {
        if (!HostNames.isIpLiteral(a)) {
            return false;
        }
        try {
            // both are IP literals (checked above): parsed locally, never looked up
            return InetAddress.getByName(a).equals(InetAddress.getByName(b));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Exact (case-insensitive) or a leading "*." wildcard for exactly one label, as RFC 6125 allows. */
    private static boolean dnsMatches(String pattern, String name) {
        final String p = pattern.toLowerCase(Locale.ROOT);
        final String n = name.toLowerCase(Locale.ROOT);
        if (p.startsWith("*.")) {
            final int dot = n.indexOf('.');
            return dot > 0 && n.substring(dot).equals(p.substring(1));
        }
        return p.equals(n);
    }
}
