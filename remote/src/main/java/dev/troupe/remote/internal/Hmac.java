package dev.troupe.remote.internal;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The handshake's proofs of a shared secret: HMAC-SHA256 over a role label, both nonces and
 * both node UIDs. Each side proves it knows the secret for the other's fresh nonce, so a
 * recorded handshake cannot be replayed and a server proof cannot be reflected as a client
 * proof. Handshake-time only: allocates freely.
 */
public final class Hmac {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    /** @param secret the shared secret, or null for insecure mode (proofs are all zeros) */
    public Hmac(byte[] secret) {
        this.key = secret == null ? null : new SecretKeySpec(secret, "HmacSHA256");
    }

    public static byte[] nonce() {
        final byte[] n = new byte[Protocol.NONCE_LENGTH];
        RANDOM.nextBytes(n);
        return n;
    }

    /** Proof sent by the accepting side in HELLO_REPLY. */
    public byte[] serverProof(byte[] clientNonce, byte[] serverNonce, long clientUid, long serverUid) {
        return proof(Protocol.SERVER_LABEL, clientNonce, serverNonce, clientUid, serverUid);
    }

    /** Proof sent by the connecting side in AUTH. */
    public byte[] clientProof(byte[] clientNonce, byte[] serverNonce, long clientUid, long serverUid) {
        return proof(Protocol.CLIENT_LABEL, clientNonce, serverNonce, clientUid, serverUid);
    }

    private byte[] proof(byte[] label, byte[] clientNonce, byte[] serverNonce, long clientUid, long serverUid) {
        if (key == null) {
            return new byte[Protocol.PROOF_LENGTH];
        }
        try {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(label);
            mac.update(clientNonce);
            mac.update(serverNonce);
            mac.update(ByteBuffer.allocate(16).putLong(clientUid).putLong(serverUid).array());
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is unavailable", e);
        }
    }

    /** Constant-time comparison, so timing does not reveal how much of a forged proof matched. */
    public static boolean matches(byte[] expected, byte[] actual) {
        return MessageDigest.isEqual(expected, actual);
    }
}
