package io.allsum.comm.ring;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * n ranks as threads of this JVM, each with its own factory listening on a random loopback port. Public for the
 * worker's tests of jobs on the real ring.
 */
public final class RingCluster implements AutoCloseable {

    static final long STEP_TIMEOUT_SECONDS = 60;

    final List<RingCommunicatorFactory> factories = new ArrayList<>();
    public final List<Communicator> comms = new ArrayList<>();
    final ExecutorService ranks;
    final String group;
    long generation;

    public RingCluster(int n, RingSettings settings) {
        this(n, settings, "test-group");
    }

    RingCluster(int n, RingSettings settings, String group) {
        this(java.util.stream.IntStream.range(0, n).mapToObj(r -> RingCommunicatorFactory.loopback(settings))
                .toList(), group);
    }

    /** Ranks with factories of their own making (other hosts, other settings), rank r the r-th. */
    RingCluster(List<RingCommunicatorFactory> factories, String group) {
        this.group = group;
        this.ranks = Executors.newFixedThreadPool(factories.size(), Thread.ofPlatform().daemon().name("rank-", 0)
                .factory());
        this.factories.addAll(factories);
    }

    int size() {
        return factories.size();
    }

    GroupView view(long gen) {
        List<Member> members = new ArrayList<>();
        String uniqueId = null;
        for (int r = 0; r < size(); r++) {
            var join = factories.get(r).prepareJoin(r);
            if (r == 0) {
                uniqueId = join.uniqueId(); // as the server does: rank 0's secret goes to every member
            }
            members.add(new Member(r, "instance-" + r, join.endpoint(), "localhost", null));
        }
        return new GroupView(group, gen, size(), Backend.RING, uniqueId, members);
    }

    /** Builds generation {@code gen} on every rank (closing the previous generation's communicators). */
    public RingCluster start(long gen) {
        comms.forEach(Communicator::close);
        comms.clear();
        generation = gen;
        GroupView view = view(gen);
        comms.addAll(onEveryRank(r -> factories.get(r).create(view, r, Duration.ofSeconds(30))));
        return this;
    }

    /** Runs {@code body} on every rank concurrently and returns the results by rank; rethrows the first failure. */
    public <T> List<T> onEveryRank(IntFunction<T> body) {
        List<Future<T>> futures = new ArrayList<>();
        for (int r = 0; r < size(); r++) {
            int rank = r;
            futures.add(ranks.submit(() -> body.apply(rank)));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : futures) {
            try {
                results.add(f.get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException re ? re : new RuntimeException(e.getCause());
            } catch (Exception e) {
                throw new AssertionError("a rank did not finish within " + STEP_TIMEOUT_SECONDS + " s", e);
            }
        }
        return results;
    }

    /** Like {@link #onEveryRank} but returns each rank's outcome (result or exception) instead of throwing. */
    List<Object> outcomes(IntFunction<Object> body) {
        return onEveryRank(r -> {
            try {
                return body.apply(r);
            } catch (RuntimeException e) {
                return e;
            }
        });
    }

    /** Every rank all-reduces (int64 sum) its rank + 1: each must get n(n+1)/2, so the ring still works end to end. */
    public void assertSumOfRanks() {
        int n = size();
        List<Long> sums = onEveryRank(r -> {
            Communicator comm = comms.get(r);
            try (CommBuffer buf = comm.allocate(8)) {
                buf.copyFromHost(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, r + 1), 0);
                comm.allReduce(buf, buf, 1, DataType.INT64, ReduceOp.SUM);
                ByteBuffer out = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                buf.copyToHost(out, 0);
                return out.getLong(0);
            }
        });
        assertThat(sums).containsOnly((long) n * (n + 1) / 2);
    }

    /** Every rank sends and receives through shared memory on exactly {@code links} of its links. */
    void assertSharedMemoryLinks(int links) {
        for (int r = 0; r < size(); r++) {
            RingCommunicator comm = (RingCommunicator) comms.get(r);
            assertThat(comm.sharedMemoryLinks(true)).as("rank " + r + " links sending through shared memory")
                    .isEqualTo(links);
            assertThat(comm.sharedMemoryLinks(false)).as("rank " + r + " links receiving through shared memory")
                    .isEqualTo(links);
        }
    }

    @Override
    public void close() {
        comms.forEach(c -> {
            if (c != null) {
                c.close();
            }
        });
        factories.forEach(RingCommunicatorFactory::close);
        ranks.shutdownNow();
    }
}
