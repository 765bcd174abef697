package io.allsum.comm.ring;

import java.time.Duration;

/**
 * Tuning of the ring backend.
 *
 * @param ioTimeout                      the longest any socket read, write or wait may go without progress before
 *                                       the peer is declared failed
 * @param chunkBytes                     pipeline unit: a ring step's segment is sent in chunks of this size so that
 *                                       sending, receiving and reducing overlap
 * @param smallMessageBytes              all-reduces up to this payload skip the ring: every rank sends its whole
 *                                       buffer to every other rank in one step (one round trip instead of 2(n-1))
 * @param socketBufferBytes              SO_SNDBUF/SO_RCVBUF; 0 keeps the kernel's auto-tuning (usually the faster
 *                                       choice, since an explicit size is capped by net.core.[rw]mem_max)
 * @param handshakeTimeout               how long an accepted connection may take to send its complete handshake
 * @param maxPendingHandshakes           unproved connections a listener holds at once; more are refused at once
 * @param maxPendingHandshakesPerAddress the same bound per remote address (ranks of one host share an address,
 *                                       so it must exceed the world size of a one-host group)
 * @param idleCheck                      how often idle links are checked for a peer's closed connection
 * @param sharedMemory                   whether links between ranks whose endpoints name the same host carry their
 *                                       payload through a ring in /dev/shm (the socket then carries only frame
 *                                       headers); a direction whose ring cannot be set up uses TCP
 * @param sharedMemoryBytes              capacity of one direction's shared-memory ring
 */
public record RingSettings(Duration ioTimeout, int chunkBytes, int smallMessageBytes, int socketBufferBytes,
                           Duration handshakeTimeout, int maxPendingHandshakes, int maxPendingHandshakesPerAddress,
                           Duration idleCheck, boolean sharedMemory, int sharedMemoryBytes) {

    public static final RingSettings DEFAULTS = new RingSettings(Duration.ofSeconds(60), 512 * 1024, 64 * 1024, 0,
            Duration.ofSeconds(2), 256, 128, Duration.ofMillis(200), true, 4 << 20);

    public RingSettings {
        if (ioTimeout == null || ioTimeout.isNegative() || ioTimeout.isZero()) {
            throw new IllegalArgumentException("ioTimeout must be positive, was " + ioTimeout);
        }
        if (chunkBytes < 64) {
            throw new IllegalArgumentException("chunkBytes must be >= 64, was " + chunkBytes);
        }
        if (smallMessageBytes < 0 || socketBufferBytes < 0) {
            throw new IllegalArgumentException("smallMessageBytes and socketBufferBytes must be >= 0");
        }
        if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be positive, was " + handshakeTimeout);
        }
        if (maxPendingHandshakes < 1 || maxPendingHandshakesPerAddress < 1) {
            throw new IllegalArgumentException("the pending handshake bounds must be >= 1");
        }
        if (idleCheck == null || idleCheck.isNegative() || idleCheck.isZero()) {
            throw new IllegalArgumentException("idleCheck must be positive, was " + idleCheck);
        }
        if (sharedMemoryBytes < 64 || sharedMemoryBytes > ShmRing.MAX_CAPACITY) {
            throw new IllegalArgumentException("sharedMemoryBytes must be 64 B .. 1 GiB, was " + sharedMemoryBytes);
        }
    }

    public RingSettings withIoTimeout(Duration timeout) {
        return new RingSettings(timeout, chunkBytes, smallMessageBytes, socketBufferBytes, handshakeTimeout,
                maxPendingHandshakes, maxPendingHandshakesPerAddress, idleCheck,
                sharedMemory, sharedMemoryBytes);
    }

    public RingSettings withChunkBytes(int bytes) {
        return new RingSettings(ioTimeout, bytes, smallMessageBytes, socketBufferBytes, handshakeTimeout,
                maxPendingHandshakes, maxPendingHandshakesPerAddress, idleCheck,
                sharedMemory, sharedMemoryBytes);
    }

    public RingSettings withSmallMessageBytes(int bytes) {
        return new RingSettings(ioTimeout, chunkBytes, bytes, socketBufferBytes, handshakeTimeout,
                maxPendingHandshakes, maxPendingHandshakesPerAddress, idleCheck,
                sharedMemory, sharedMemoryBytes);
    }

    public RingSettings withHandshakeLimits(Duration timeout, int maxPending, int maxPendingPerAddress) {
        return new RingSettings(ioTimeout, chunkBytes, smallMessageBytes, socketBufferBytes, timeout, maxPending,
                maxPendingPerAddress, idleCheck, sharedMemory, sharedMemoryBytes);
    }

    public RingSettings withSharedMemory(boolean enabled) {
        return new RingSettings(ioTimeout, chunkBytes, smallMessageBytes, socketBufferBytes, handshakeTimeout,
                maxPendingHandshakes, maxPendingHandshakesPerAddress, idleCheck, enabled, sharedMemoryBytes);
    }

    public RingSettings withSharedMemoryBytes(int bytes) {
        return new RingSettings(ioTimeout, chunkBytes, smallMessageBytes, socketBufferBytes, handshakeTimeout,
                maxPendingHandshakes, maxPendingHandshakesPerAddress, idleCheck, sharedMemory, bytes);
    }
}
