package io.allsum.comm.ring;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The per-generation key of the ring's connection handshake: HMAC-SHA256(uniqueId, "allsum-ring" | group |
 * generation). The unique id is made by rank 0 for each generation and handed by the rendezvous server to the
 * generation's members only, so a connection that proves knowledge of this key comes from a member. Never printed.
 */
final class RingKey {

    static final int MAC_BYTES = 32;
    static final int NONCE_BYTES = 32;
    private static final String ALGORITHM = "HmacSHA256";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private RingKey(byte[] key) {
        this.key = key;
    }

    /** Derives the key of {@code group}'s {@code generation} from the generation's base64 unique id. */
    static RingKey derive(String uniqueIdBase64, String group, long generation) {
        byte[] secret;
        try {
            secret = Base64.getDecoder().decode(uniqueIdBase64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the generation's unique id is not base64");
        }
        if (secret.length < 16) {
            throw new IllegalArgumentException("the generation's unique id has only " + secret.length + " bytes");
        }
        byte[] info = ("allsum-ring\0" + group + "\0" + generation).getBytes(StandardCharsets.UTF_8);
        return new RingKey(hmac(secret, info));
    }

    /** A fresh random secret for rank 0 to bring to its join (the length of an NCCL unique id, so the server takes it). */
    static String newUniqueId() {
        byte[] id = new byte[128];
        RANDOM.nextBytes(id);
        return Base64.getEncoder().encodeToString(id);
    }

    static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** HMAC of the concatenated parts. */
    byte[] mac(byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            for (byte[] p : parts) {
                mac.update(p);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /** Constant-time check that {@code presented} is the MAC of the parts. */
    boolean verify(byte[] presented, byte[]... parts) {
        return presented != null && MessageDigest.isEqual(mac(parts), presented);
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "RingKey[<redacted>]";
    }
}
