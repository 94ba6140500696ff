package dev.troupe.remote.internal;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The handshake's proofs of a shared secret: HMAC-SHA256 over a role label and the whole
 * transcript, that is the HELLO and HELLO_REPLY frames exactly as sent (type byte and body:
 * protocol version, authentication mode, both UIDs, both nonces, both system names, hosts and
 * ports). The connecting side proves first; the accepting side's proof also covers the
 * connecting side's proof, so neither can be replayed or reflected, and changing any claimed
 * field invalidates both. Handshake-time only: allocates freely.
 *
 * <pre>
 * client proof = HMAC(secret, "troupe-v2-client" | len(HELLO) | HELLO | len(HELLO_REPLY) | HELLO_REPLY)
 * server proof = HMAC(secret, "troupe-v2-server" | len(HELLO) | HELLO | len(HELLO_REPLY) | HELLO_REPLY | client proof | next seq)
 * </pre>
 * ({@code len} is a big-endian int32, {@code next seq} the int64 AUTH_REPLY carries.)
 */
final class Hmac {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    /** @param secret the shared secret, or null when another mode authenticates (proofs are all zeros) */
    Hmac(byte[] secret) {
        this.key = secret == null ? null : new SecretKeySpec(secret, "HmacSHA256");
    }

    static byte[] nonce() {
        final byte[] n = new byte[Protocol.NONCE_LENGTH];
        RANDOM.nextBytes(n);
        return n;
    }

    /**
     * @param hello the HELLO frame as sent (type byte and body)
     * @param helloReply the HELLO_REPLY frame as sent (type byte and body)
     * @return the proof the connecting side sends in AUTH
     */
    byte[] clientProof(byte[] hello, byte[] helloReply) {
        return proof(Protocol.CLIENT_LABEL, hello, helloReply, null, 0);
    }

    /**
     * @param nextSystemSeq the system-message sequence number AUTH_REPLY announces
     * @return the proof the accepting side sends in AUTH_REPLY, after it verified {@code clientProof}
     */
    byte[] serverProof(byte[] hello, byte[] helloReply, byte[] clientProof, long nextSystemSeq) {
        return proof(Protocol.SERVER_LABEL, hello, helloReply, clientProof, nextSystemSeq);
    }

    private byte[] proof(byte[] label, byte[] hello, byte[] helloReply, byte[] clientProof, long nextSystemSeq) {
        if (key == null) {
            return new byte[Protocol.PROOF_LENGTH];
        }
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(label);
            mac.update(int32(hello.length));
            mac.update(hello);
            mac.update(int32(helloReply.length));
            mac.update(helloReply);
            if (clientProof != null) {
                mac.update(clientProof);
                mac.update(int32((int) (nextSystemSeq >>> 32)));
                mac.update(int32((int) nextSystemSeq));
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** Constant-time comparison, so timing does not reveal how much of a forged proof matched. */
    static boolean matches(byte[] expected, byte[] actual) {
        return MessageDigest.isEqual(expected, actual);
    }
}
