package io.allsum.worker.comm.ring;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The first bytes on every ring connection: who dials whom, for which group, generation and communicator (tag ""
 * for the generation's communicator, a split path for splits). Lets the listener refuse port scanners, old
 * generations and other groups before any data flows. Big-endian, bounded lengths.
 */
record Handshake(String group, long generation, String tag, int fromRank, int toRank, int worldSize) {

    static final int MAGIC = 0x414C5352; // "ALSR"
    static final short VERSION = 1;
    static final int ACK_MAGIC = 0x414C5341; // "ALSA"
    private static final int MAX_STRING = 512;

    /** What the listener waits for: one connection of a given communicator between two ranks. */
    record Key(String group, long generation, String tag, int fromRank, int toRank) {
    }

    Key key() {
        return new Key(group, generation, tag, fromRank, toRank);
    }

    ByteBuffer encode() {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        byte[] t = tag.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(4 + 2 + 2 + g.length + 8 + 2 + t.length + 12);
        buf.putInt(MAGIC).putShort(VERSION);
        buf.putShort((short) g.length).put(g).putLong(generation);
        buf.putShort((short) t.length).put(t);
        buf.putInt(fromRank).putInt(toRank).putInt(worldSize);
        return buf.flip();
    }

    /** Reads and validates a handshake; throws IOException with the reason for anything that is not one. */
    static Handshake read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int magic = data.readInt();
        if (magic != MAGIC) {
            throw new IOException("not an allsum ring handshake (magic 0x" + Integer.toHexString(magic) + ")");
        }
        short version = data.readShort();
        if (version != VERSION) {
            throw new IOException("unsupported ring handshake version " + version);
        }
        String group = readString(data);
        long generation = data.readLong();
        String tag = readString(data);
        int from = data.readInt();
        int to = data.readInt();
        int world = data.readInt();
        if (world < 1 || from < 0 || to < 0 || from >= world || to >= world || from == to) {
            throw new IOException("handshake has bad ranks: from " + from + " to " + to + " of " + world);
        }
        return new Handshake(group, generation, tag, from, to, world);
    }

    private static String readString(DataInputStream data) throws IOException {
        int length = data.readUnsignedShort();
        if (length > MAX_STRING) {
            throw new IOException("handshake string of " + length + " bytes is too long");
        }
        byte[] bytes = new byte[length];
        data.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static ByteBuffer ack() {
        return ByteBuffer.allocate(4).putInt(ACK_MAGIC).flip();
    }

    static void readAck(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int magic;
        try {
            magic = data.readInt();
        } catch (EOFException e) {
            throw new IOException("the peer closed the connection instead of accepting the handshake"
                    + " (it is not in this group/generation, or it gave up)", e);
        }
        if (magic != ACK_MAGIC) {
            throw new IOException("bad handshake acknowledgement 0x" + Integer.toHexString(magic));
        }
    }
}
