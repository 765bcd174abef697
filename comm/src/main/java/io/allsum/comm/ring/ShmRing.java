package io.allsum.comm.ring;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * One direction of a same-host link: a single-producer/single-consumer byte ring in a memory-mapped file. The file
 * holds a header (token, capacity, the written and consumed byte counters on their own cache lines) and then
 * {@code capacity} data bytes. The producer only moves {@code written}, the consumer only {@code consumed}, both
 * with release stores read with acquire loads, so {@code 0 <= written - consumed <= capacity} always holds.
 *
 * <p>The creator writes every byte of the file through the channel before mapping it, so tmpfs has the pages
 * (a full /dev/shm fails here, not with SIGBUS later). The mapping belongs to a shared arena: closing it while
 * another thread copies makes that copy throw IllegalStateException, never touch unmapped memory.
 */
final class ShmRing implements AutoCloseable {

    static final Path DEFAULT_DIR = Path.of("/dev/shm");
    static final int TOKEN_BYTES = 16;
    static final long MAX_CAPACITY = 1L << 30;
    private static final long CAPACITY_AT = 16;
    private static final long WRITTEN_AT = 64;
    private static final long CONSUMED_AT = 128;
    /** Data starts on its own page. */
    static final long HEADER_BYTES = 4096;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final SecureRandom RANDOM = new SecureRandom();

    final Path path;
    final byte[] token;
    final long capacity;
    private final Arena arena;
    private final MemorySegment header;
    private final MemorySegment data;
    /** The counter this end owns, cached: only this end moves it. */
    private long own;

    private ShmRing(Path path, byte[] token, long capacity, Arena arena, MemorySegment mapped, boolean producer) {
        this.path = path;
        this.token = token;
        this.capacity = capacity;
        this.arena = arena;
        this.header = mapped.asSlice(0, HEADER_BYTES);
        this.data = mapped.asSlice(HEADER_BYTES, capacity);
        this.own = (long) LONG.getAcquire(header, producer ? WRITTEN_AT : CONSUMED_AT);
    }

    /** The producer's end: a new file of mode 0600 in {@code dir}, filled, mapped and stamped with a random token. */
    static ShmRing create(Path dir, long capacity) throws IOException {
        if (capacity < 64 || capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException("shared-memory ring capacity must be 64 B .. 1 GiB, was " + capacity);
        }
        Path file = Files.createTempFile(dir, "allsum-ring-", ".shm",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Arena arena = Arena.ofShared();
        boolean ok = false;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = HEADER_BYTES + capacity;
            ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(size, 1 << 20));
            for (long at = 0; at < size; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), size - at));
                at += channel.write(zeros, at); // ENOSPC on a full tmpfs surfaces here
            }
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            byte[] token = new byte[TOKEN_BYTES];
            RANDOM.nextBytes(token);
            MemorySegment.copy(token, 0, mapped, ValueLayout.JAVA_BYTE, 0, TOKEN_BYTES);
            mapped.set(ValueLayout.JAVA_LONG_UNALIGNED, CAPACITY_AT, capacity);
            ShmRing ring = new ShmRing(file, token, capacity, arena, mapped, true);
            ok = true;
            return ring;
        } finally {
            if (!ok) {
                arena.close();
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * The consumer's end: maps the peer's file and checks that it holds {@code token} and {@code capacity}, so both
     * ends provably share one file. Throws IOException naming what does not match.
     */
    static ShmRing open(Path dir, Path file, byte[] token, long capacity) throws IOException {
        if (capacity < 64 || capacity > MAX_CAPACITY || token.length != TOKEN_BYTES) {
            throw new IOException("bad shared-memory offer (capacity " + capacity + ")");
        }
        Path normal = file.normalize();
        if (!normal.isAbsolute() || !dir.equals(normal.getParent())
                || !normal.getFileName().toString().startsWith("allsum-ring-")) {
            throw new IOException("offered file " + file + " is not an allsum ring in " + dir);
        }
        if (!Files.isRegularFile(normal, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("offered file " + file + " is not a regular file here");
        }
        long size = HEADER_BYTES + capacity;
        Arena arena = Arena.ofShared();
        boolean ok = false;
        try (FileChannel channel = FileChannel.open(normal, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS)) {
            if (channel.size() != size) {
                throw new IOException("offered file " + file + " holds " + channel.size() + " bytes, not " + size);
            }
            MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            byte[] found = mapped.asSlice(0, TOKEN_BYTES).toArray(ValueLayout.JAVA_BYTE);
            if (!MessageDigest.isEqual(found, token)
                    || mapped.get(ValueLayout.JAVA_LONG_UNALIGNED, CAPACITY_AT) != capacity) {
                throw new IOException("offered file " + file + " does not hold the offered token");
            }
            ShmRing ring = new ShmRing(normal, token, capacity, arena, mapped, false);
            ok = true;
            return ring;
        } finally {
            if (!ok) {
                arena.close();
            }
        }
    }

    // ---------------------------------------------------------------- producer

    /** Bytes the producer may write now. */
    long free() {
        return capacity - (own - (long) LONG.getAcquire(header, CONSUMED_AT));
    }

    /** Copies {@code bytes} (at most {@link #free()}) from {@code src} at {@code offset} and publishes them. */
    void put(MemorySegment src, long offset, long bytes) {
        long at = own % capacity;
        long first = Math.min(bytes, capacity - at);
        MemorySegment.copy(src, offset, data, at, first);
        if (first < bytes) {
            MemorySegment.copy(src, offset + first, data, 0, bytes - first);
        }
        own += bytes;
        LONG.setRelease(header, WRITTEN_AT, own);
    }

    // ---------------------------------------------------------------- consumer

    /** Bytes the consumer may read now. */
    long available() {
        return (long) LONG.getAcquire(header, WRITTEN_AT) - own;
    }

    /** Copies {@code bytes} (at most {@link #available()}) into {@code dst} at {@code offset} and releases them. */
    void take(MemorySegment dst, long offset, long bytes) {
        long at = own % capacity;
        long first = Math.min(bytes, capacity - at);
        MemorySegment.copy(data, at, dst, offset, first);
        if (first < bytes) {
            MemorySegment.copy(data, 0, dst, offset + first, bytes - first);
        }
        own += bytes;
        LONG.setRelease(header, CONSUMED_AT, own);
    }

    /** Removes the file; the mappings of both ends stay. */
    void unlink() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // nothing else holds the name: at worst a file of mode 0600 stays in /dev/shm
        }
    }

    @Override
    public void close() {
        try {
            arena.close();
        } catch (IllegalStateException ignored) {
            // already closed
        }
    }
}
