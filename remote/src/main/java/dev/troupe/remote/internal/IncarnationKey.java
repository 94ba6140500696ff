package dev.troupe.remote.internal;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The key of one incarnation of a node: an Ed25519 key pair made when the node's actor system
 * first starts a transport, whose private half never leaves the process. Its public half travels
 * in HELLO and HELLO_REPLY; each side signs the handshake transcript with the private half (the
 * accepting side in HELLO_REPLY, the connecting side in AUTH), so a connection is proven to come
 * from the process that holds the key. A peer learns which key an incarnation has by dialling its
 * address (the signed HELLO_REPLY found there): from then on a connection claiming that UID with
 * another key, or one that cannot sign, is refused. Unlike the UID, which travels in clear text,
 * the key cannot be borrowed by another member that holds the shared secret.
 *
 * <p>One per actor system (kept weakly), so a transport restarted in the same system keeps the
 * incarnation's key as it keeps the UID. Handshake-time only: allocates freely. Thread-safe.
 */
final class IncarnationKey {

    /** Bytes of a raw Ed25519 public key. */
    static final int PUBLIC_KEY_LENGTH = 32;
    /** Bytes of an Ed25519 signature. */
    static final int SIGNATURE_LENGTH = 64;

    /** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410), followed by the 32 raw bytes. */
    private static final byte[] X509_PREFIX = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

    private static final Map<Object, IncarnationKey> BY_SYSTEM = new WeakHashMap<>();

    private final PrivateKey privateKey;
    private final byte[] publicKey;

    private IncarnationKey(KeyPair pair) {
        this.privateKey = pair.getPrivate();
        final byte[] encoded = pair.getPublic().getEncoded();
        this.publicKey = Arrays.copyOfRange(encoded, encoded.length - PUBLIC_KEY_LENGTH, encoded.length);
    }

    /** @return the key of the incarnation {@code system} is, made on first use */
    static IncarnationKey of(Object system) {
        synchronized (BY_SYSTEM) {
            return BY_SYSTEM.computeIfAbsent(system, s -> generate());
        }
    }

    /** @return a fresh key (tests; a node uses {@link #of}) */
    static IncarnationKey generate() {
        try {
            return new IncarnationKey(KeyPairGenerator.getInstance("Ed25519").generateKeyPair());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 is unavailable in this JVM", e);
        }
    }

    /** @return a copy of the raw public key, as it travels in HELLO and HELLO_REPLY */
    byte[] publicKey() {
        return publicKey.clone();
    }

    /**
     * @param label the role label ({@link Protocol#SERVER_KEY_LABEL} or {@link Protocol#CLIENT_KEY_LABEL})
     * @param first the HELLO frame as sent (type byte and body)
     * @param second the HELLO_REPLY frame as sent (for the server: without its signature)
     * @return the signature over {@code label | len(first) | first | len(second) | second}
     */
    byte[] sign(byte[] label, byte[] first, byte[] second) {
        try {
            final Signature s = Signature.getInstance("Ed25519");
            s.initSign(privateKey);
            update(s, label, first, second);
            return s.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 signing failed", e);
        }
    }

    /** @return whether {@code signature} is the signature of {@code publicKey}'s holder over the same data as {@link #sign} */
    static boolean verify(byte[] publicKey, byte[] signature, byte[] label, byte[] first, byte[] second) {
        if (publicKey == null || publicKey.length != PUBLIC_KEY_LENGTH || signature == null || signature.length != SIGNATURE_LENGTH) {
            return false;
        }
        try {
            final byte[] der = Arrays.copyOf(X509_PREFIX, X509_PREFIX.length + PUBLIC_KEY_LENGTH);
            System.arraycopy(publicKey, 0, der, X509_PREFIX.length, PUBLIC_KEY_LENGTH);
            final PublicKey key = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(der));
            final Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            update(s, label, first, second);
            return s.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false; // not a point on the curve, a malformed signature: not proven
        }
    }

    private static void update(Signature s, byte[] label, byte[] first, byte[] second) throws GeneralSecurityException {
        s.update(label);
        s.update(int32(first.length));
        s.update(first);
        s.update(int32(second.length));
        s.update(second);
    }

    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }
}
