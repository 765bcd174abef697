package io.allsum.worker.jobs;

import io.allsum.comm.Communicator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** Runs one body per rank of an in-memory group, each on its own thread, and collects what they return. */
final class Ranks {

    private static final long DEADLINE_SECONDS = 60;

    private Ranks() {
    }

    static <T> List<T> onEveryRank(int worldSize, Function<Communicator, T> body) {
        return onEveryRank(new InMemoryCommunicator.World(worldSize, false), UnaryOperator.identity(), body);
    }

    /**
     * @param wrap decorates each rank's communicator (e.g. with a {@link FaultyCommunicator})
     * @return each rank's result, in rank order; the first rank's failure is rethrown as its cause
     */
    static <T> List<T> onEveryRank(InMemoryCommunicator.World world, UnaryOperator<Communicator> wrap,
                                   Function<Communicator, T> body) {
        ExecutorService pool = Executors.newFixedThreadPool(world.size);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int rank = 0; rank < world.size; rank++) {
                Communicator comm = wrap.apply(world.communicator(rank));
                futures.add(pool.submit(() -> body.apply(comm)));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(DEADLINE_SECONDS, TimeUnit.SECONDS));
            }
            return results;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the ranks", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the ranks did not finish within " + DEADLINE_SECONDS + " s", e);
        } finally {
            pool.shutdownNow();
        }
    }
}
