package io.allsum.comm.ring;

import io.allsum.comm.CommException;
import io.allsum.comm.PeerFailedException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A rank whose op failed abandons the data frame it was sending, then sends its ABORT notice: the peer, reading
 * that frame, must name the rank the notice names, not the sender closing its connection.
 */
class TornFrameNoticeTest {

    private static final long FRAME_BYTES = 64L << 20; // far more than loopback's socket buffers hold unread

    @Test
    void aNoticeAfterAnAbandonedFrameNamesTheRankThatFailed() throws Exception {
        long timeout = TimeUnit.SECONDS.toNanos(20);
        try (ServerSocketChannel listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel senderEnd = SocketChannel.open(listener.getLocalAddress());
             SocketChannel readerEnd = listener.accept();
             PeerLink sender = new PeerLink(0, 1, "reader", senderEnd, timeout);
             PeerLink reader = new PeerLink(1, 0, "sender", readerEnd, timeout);
             Arena arena = Arena.ofShared()) {
            MemorySegment out = arena.allocate(FRAME_BYTES);
            MemorySegment in = arena.allocate(FRAME_BYTES);
            OpContext sending = new OpContext(RingOp.ALL_REDUCE, 0, sender::wakeUp);
            CompletableFuture<Throwable> write = CompletableFuture.supplyAsync(() ->
                    catchThrowable(() -> sender.writeData(sending, sender.nextSendSequence(), out)));
            Thread.sleep(200); // the reader reads nothing yet: the frame stalls part-way
            sending.fail(new CommException("all_reduce", 0, "rank 3 failed"));
            assertThat(write.get(10, TimeUnit.SECONDS)).as("the sender gives the frame up").isNotNull();
            sender.sendAbortNotice(3);

            OpContext receiving = new OpContext(RingOp.ALL_REDUCE, 1, () -> { });
            Throwable failure = catchThrowable(() -> reader.readData(receiving, reader.nextRecvSequence(), in));

            assertThat(failure).isInstanceOf(PeerFailedException.class);
            assertThat(((PeerFailedException) failure).peerRank()).as(failure.getMessage()).isEqualTo(3);
        }
    }
}
