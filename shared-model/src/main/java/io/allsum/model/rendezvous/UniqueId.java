package io.allsum.model.rendezvous;

import io.allsum.model.Protocol;

import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Rank 0's 128-byte ncclUniqueId, decoded once at the edge. It is a bearer secret for joining the NCCL communicator:
 * {@link #toString()} is redacted, equality is constant-time, and only {@link #base64()} (for the wire) and
 * {@link #bytes()} (for NCCL) reveal it.
 */
public final class UniqueId {

    /** base64 of 128 bytes is 172 characters; anything far longer is not worth decoding. */
    private static final int MAX_ENCODED_LENGTH = 256;

    private final byte[] bytes;
    private final String base64;
    private String digest;

    private UniqueId(byte[] bytes, String base64) {
        this.bytes = bytes;
        this.base64 = base64;
    }

    /**
     * Decodes a wire value.
     *
     * @throws IllegalArgumentException naming what is wrong (never repeating the value) unless it is base64 of
     *                                  exactly {@value Protocol#UNIQUE_ID_BYTES} bytes
     */
    public static UniqueId parse(String base64) {
        return tryParse(base64).orElseThrow(() -> new IllegalArgumentException(problemWith(base64)));
    }

    /** What is wrong with a wire value, or null when it is a valid id. Never repeats the value. */
    public static String problemWith(String base64) {
        if (base64 == null) {
            return "is required";
        }
        int length = decodedLength(base64);
        if (length == Protocol.UNIQUE_ID_BYTES) {
            return null;
        }
        return "must be base64 of exactly " + Protocol.UNIQUE_ID_BYTES + " bytes, got "
                + (length < 0 ? "text that is not base64" : length + " bytes");
    }

    /** Decodes a wire value; empty when it is not a valid id ({@link #problemWith} says why). */
    public static Optional<UniqueId> tryParse(String base64) {
        if (base64 == null || base64.length() > MAX_ENCODED_LENGTH) {
            return Optional.empty();
        }
        try {
            byte[] bytes = Base64.getDecoder().decode(base64);
            return bytes.length == Protocol.UNIQUE_ID_BYTES ? Optional.of(new UniqueId(bytes, base64))
                    : Optional.empty();
        } catch (IllegalArgumentException notBase64) {
            return Optional.empty();
        }
    }

    /** Wraps raw bytes (as ncclGetUniqueId returns them). */
    public static UniqueId of(byte[] bytes) {
        if (bytes == null || bytes.length != Protocol.UNIQUE_ID_BYTES) {
            throw new IllegalArgumentException("a unique id has exactly " + Protocol.UNIQUE_ID_BYTES + " bytes");
        }
        byte[] copy = bytes.clone();
        return new UniqueId(copy, Base64.getEncoder().encodeToString(copy));
    }

    /** The wire value, or empty for null; for values the edge has already validated. */
    public static Optional<UniqueId> ofNullable(String base64) {
        return base64 == null ? Optional.empty() : Optional.of(parse(base64));
    }

    private static int decodedLength(String base64) {
        if (base64.length() > MAX_ENCODED_LENGTH) {
            return base64.length() * 3 / 4;
        }
        try {
            return Base64.getDecoder().decode(base64).length;
        } catch (IllegalArgumentException notBase64) {
            return -1;
        }
    }

    /** A copy of the 128 bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The wire form (base64, as received). */
    public String base64() {
        return base64;
    }

    /**
     * A SHA-256 of the id: lets a server remember used ids without keeping the secrets. Computed once: the server
     * asks for it when rank 0 joins and again when the generation completes, on the path to the first answer.
     */
    public String digest() {
        String known = digest;
        if (known != null) {
            return known;
        }
        try {
            known = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
            digest = known; // racy but benign: every thread computes the same immutable string
            return known;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof UniqueId id && MessageDigest.isEqual(bytes, id.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Redacted: the id must never reach a log. */
    @Override
    public String toString() {
        return "UniqueId[<redacted>]";
    }
}
