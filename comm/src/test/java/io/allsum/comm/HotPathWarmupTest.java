package io.allsum.comm;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class HotPathWarmupTest {

    @Test
    void anNcclCommunicatorRunsEveryWarmUpCallInOneTimedBodyOnOneFreedElement() {
        Recording comm = new Recording(Backend.NCCL);

        HotPathWarmup.warm(comm);

        assertThat(comm.events).containsExactly("allocate 4", "timeNanos", "close");
        assertThat(comm.allReducesInsideTimeNanos).isEqualTo(HotPathWarmup.CALLS);
        assertThat(comm.allReducesOutside).isZero();
    }

    @Test
    void aRingCommunicatorIsLeftAlone() {
        // Every call but rank, size and backend throws: warming the ring would fail here.
        Communicator ring = ForwardingCommunicator.unsupported(0, 2, Backend.RING);

        assertThatCode(() -> HotPathWarmup.warm(ring)).doesNotThrowAnyException();
    }

    /** Records the calls the warm-up makes; its one-element buffer records being freed. */
    private static final class Recording extends ForwardingCommunicator {
        final List<String> events = new ArrayList<>();
        int allReducesInsideTimeNanos;
        int allReducesOutside;
        private boolean timing;

        Recording(Backend backend) {
            super(unsupported(0, 1, backend));
        }

        @Override
        public CommBuffer allocate(long bytes) {
            events.add("allocate " + bytes);
            return (CommBuffer) Proxy.newProxyInstance(CommBuffer.class.getClassLoader(),
                    new Class<?>[] {CommBuffer.class}, (proxy, method, args) -> switch (method.getName()) {
                        case "close" -> {
                            events.add("close");
                            yield null;
                        }
                        case "byteSize" -> bytes;
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
        }

        @Override
        public long timeNanos(Runnable body) {
            events.add("timeNanos");
            timing = true;
            try {
                body.run();
            } finally {
                timing = false;
            }
            return 1;
        }

        @Override
        public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
            assertThat(send).isSameAs(recv);
            assertThat(count).isEqualTo(1);
            assertThat(type).isEqualTo(DataType.FLOAT32);
            if (timing) {
                allReducesInsideTimeNanos++;
            } else {
                allReducesOutside++;
            }
        }
    }
}
