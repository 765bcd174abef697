package io.allsum.comm.ring;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The authenticated opening of every ring connection (version 3), big-endian, bounded lengths:
 * <ol>
 *   <li>listener: CHALLENGE {@code "ALSC" version nonce[32]} as soon as it accepts (or a NACK when it is full);</li>
 *   <li>dialer: HELLO {@code "ALSR" version group generation tag from to world dialerNonce[32] mac[32]}, the mac being
 *       HMAC(generation key, "hello" | listener nonce | the hello up to the mac);</li>
 *   <li>listener, once it has checked the proof: ACK {@code "ALSA" mac[32]} with mac =
 *       HMAC(key, "accept" | dialer nonce | listener nonce), so the dialer knows it reached a member too; or a NACK
 *       naming why it was refused (BUSY and NOT_YET: dial again).</li>
 * </ol>
 * On links whose two endpoints name the same host, the shared-memory offers ({@link SharedMemoryOffer}) follow.
 * The key ({@link RingKey}) is derived from the generation's unique id, which only its members hold, so a
 * connection is kept only once it has proved membership; everything else is closed.
 */
record Handshake(String group, long generation, String tag, int fromRank, int toRank, int worldSize) {

    static final int MAGIC = 0x414C5352; // "ALSR"
    static final short VERSION = 3;
    static final int CHALLENGE_MAGIC = 0x414C5343; // "ALSC"
    static final int ACK_MAGIC = 0x414C5341; // "ALSA"
    static final int NACK_MAGIC = 0x414C534E; // "ALSN"
    static final int CHALLENGE_BYTES = 4 + 2 + RingKey.NONCE_BYTES;
    static final int NACK_BYTES = 4 + 2 + 4;
    static final int ACK_BYTES = 4 + RingKey.MAC_BYTES;
    static final int MAX_STRING = 512;
    /** The longest hello a listener reads: anything longer is not one. */
    static final int MAX_HELLO_BYTES = 4 + 2 + 2 + MAX_STRING + 8 + 2 + MAX_STRING + 12 + RingKey.NONCE_BYTES
            + RingKey.MAC_BYTES;
    private static final byte[] HELLO_DOMAIN = "allsum-ring-hello".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACCEPT_DOMAIN = "allsum-ring-accept".getBytes(StandardCharsets.US_ASCII);

    /** Why a listener refused: the dialer retries BUSY and NOT_YET, gives up on the others. */
    enum Refusal {
        BUSY, STALE, BAD_PROOF, NOT_YET;

        static Refusal of(int code) {
            return code >= 0 && code < values().length ? values()[code] : BAD_PROOF;
        }
    }

    /** What the listener waits for: one connection of a given communicator between two ranks. */
    record Key(String group, long generation, String tag, int fromRank, int toRank) {
    }

    /** A hello as read by the listener, before its proof is checked. */
    record Hello(Handshake handshake, byte[] dialerNonce, byte[] mac, byte[] signed) {

        boolean provenWith(RingKey key, byte[] listenerNonce) {
            return key.verify(mac, HELLO_DOMAIN, listenerNonce, signed);
        }
    }

    Key key() {
        return new Key(group, generation, tag, fromRank, toRank);
    }

    static ByteBuffer challenge(byte[] nonce) {
        return ByteBuffer.allocate(CHALLENGE_BYTES).putInt(CHALLENGE_MAGIC).putShort(VERSION).put(nonce).flip();
    }

    static ByteBuffer nack(Refusal why) {
        return ByteBuffer.allocate(NACK_BYTES).putInt(NACK_MAGIC).putShort(VERSION).putInt(why.ordinal()).flip();
    }

    static ByteBuffer ack(byte[] acceptMac) {
        return ByteBuffer.allocate(ACK_BYTES).putInt(ACK_MAGIC).put(acceptMac).flip();
    }

    static byte[] acceptMac(RingKey key, byte[] dialerNonce, byte[] listenerNonce) {
        return key.mac(ACCEPT_DOMAIN, dialerNonce, listenerNonce);
    }

    /** The hello answering {@code listenerNonce}, proved with {@code key}. */
    ByteBuffer encode(RingKey key, byte[] listenerNonce, byte[] dialerNonce) {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] t = tag.getBytes(StandardCharsets.UTF_8);
        if (g.length > MAX_STRING || t.length > MAX_STRING) {
            throw new IllegalArgumentException("group or tag longer than " + MAX_STRING + " bytes");
        }
        ByteBuffer buf = ByteBuffer.allocate(4 + 2 + 2 + g.length + 8 + 2 + t.length + 12 + RingKey.NONCE_BYTES
                + RingKey.MAC_BYTES);
        buf.putInt(MAGIC).putShort(VERSION);
        buf.putShort((short) g.length).put(g).putLong(generation);
        buf.putShort((short) t.length).put(t);
        buf.putInt(fromRank).putInt(toRank).putInt(worldSize);
        buf.put(dialerNonce);
        byte[] signed = Arrays.copyOf(buf.array(), buf.position());
        buf.put(key.mac(HELLO_DOMAIN, listenerNonce, signed));
        return buf.flip();
    }

    /**
     * The full length of the hello whose first {@code available} bytes are in {@code buf} (from index 0), or -1 while
     * too few bytes have arrived to know. Throws IOException as soon as the bytes cannot be a hello.
     */
    static int expectedLength(ByteBuffer buf, int available) throws IOException {
        if (available >= 4 && buf.getInt(0) != MAGIC) {
            throw new IOException("not an allsum ring handshake (magic 0x" + Integer.toHexString(buf.getInt(0)) + ")");
        }
        if (available >= 6 && buf.getShort(4) != VERSION) {
            throw new IOException("unsupported ring handshake version " + buf.getShort(4));
        }
        if (available < 8) {
            return -1;
        }
        int groupLength = Short.toUnsignedInt(buf.getShort(6));
        if (groupLength > MAX_STRING) {
            throw new IOException("handshake group of " + groupLength + " bytes is too long");
        }
        int tagAt = 8 + groupLength + 8;
        if (available < tagAt + 2) {
            return -1;
        }
        int tagLength = Short.toUnsignedInt(buf.getShort(tagAt));
        if (tagLength > MAX_STRING) {
            throw new IOException("handshake tag of " + tagLength + " bytes is too long");
        }
        return tagAt + 2 + tagLength + 12 + RingKey.NONCE_BYTES + RingKey.MAC_BYTES;
    }

    /** Parses a complete hello of {@code length} bytes at index 0 of {@code buf}. */
    static Hello parse(ByteBuffer buf, int length) throws IOException {
        ByteBuffer in = buf.duplicate().position(6).limit(length);
        String group = readString(in);
        long generation = in.getLong();
        String tag = readString(in);
        int from = in.getInt();
        int to = in.getInt();
        int world = in.getInt();
        if (world < 1 || from < 0 || to < 0 || from >= world || to >= world || from == to) {
            throw new IOException("handshake has bad ranks: from " + from + " to " + to + " of " + world);
        }
        byte[] dialerNonce = new byte[RingKey.NONCE_BYTES];
        in.get(dialerNonce);
        byte[] signed = new byte[in.position()];
        buf.get(0, signed);
        byte[] mac = new byte[RingKey.MAC_BYTES];
        in.get(mac);
        return new Hello(new Handshake(group, generation, tag, from, to, world), dialerNonce, mac, signed);
    }

    private static String readString(ByteBuffer in) {
        int length = Short.toUnsignedInt(in.getShort());
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Dialer side: the listener's nonce, or an IOException saying why there is none (see {@link Refused}). */
    static byte[] readChallenge(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int magic = readMagic(data, "before its challenge");
        short version = data.readShort();
        if (magic == NACK_MAGIC) {
            Refusal why = Refusal.of(data.readInt());
            throw new Refused(why, "the peer refused the connection (" + why + ")", null);
        }
        if (magic != CHALLENGE_MAGIC || version != VERSION) {
            throw new IOException("not an allsum ring listener of version " + VERSION + " (0x"
                    + Integer.toHexString(magic) + " version " + version + ")");
        }
        byte[] nonce = new byte[RingKey.NONCE_BYTES];
        data.readFully(nonce);
        return nonce;
    }

    /** Dialer side: reads the listener's verdict and checks that the listener holds the key too. */
    static void readAck(InputStream in, RingKey key, byte[] dialerNonce, byte[] listenerNonce) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int magic = readMagic(data, "instead of answering the handshake");
        if (magic == NACK_MAGIC) {
            data.readShort();
            Refusal why = Refusal.of(data.readInt());
            throw new Refused(why, "the peer refused the handshake (" + switch (why) {
                case BUSY -> "too many pending connections";
                case STALE -> "it is not in this group/generation";
                case BAD_PROOF -> "it holds another key for this generation: a different unique id";
                case NOT_YET -> "it has not reached this generation yet";
            } + ")", null);
        }
        if (magic != ACK_MAGIC) {
            throw new IOException("bad handshake acknowledgement 0x" + Integer.toHexString(magic));
        }
        byte[] mac = new byte[RingKey.MAC_BYTES];
        data.readFully(mac);
        if (!key.verify(mac, ACCEPT_DOMAIN, dialerNonce, listenerNonce)) {
            throw new IOException("the peer's acknowledgement does not prove the generation's key");
        }
    }

    /** The magic that opens the peer's answer; a peer that hung up first counts as BUSY, so the dialer dials again. */
    private static int readMagic(DataInputStream data, String when) throws IOException {
        try {
            return data.readInt();
        } catch (EOFException e) {
            throw new Refused(Refusal.BUSY, "the peer closed the connection " + when, e);
        }
    }

    /** The listener said no (or hung up before saying anything). */
    static final class Refused extends IOException {
        final Refusal refusal;

        Refused(Refusal refusal, String message, Throwable cause) {
            super(message, cause);
            this.refusal = refusal;
        }
    }
}
