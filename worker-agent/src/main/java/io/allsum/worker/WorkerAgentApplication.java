package io.allsum.worker;

import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One allsum worker per GPU (or per CPU rank): joins the rendezvous, builds the communicator, runs jobs.
 * With {@value #LOCAL_RANKS} (a comma-separated list of ranks, set by {@code ./allsum} for the CPU ranks of a plain
 * local run) this JVM hosts those ranks, one application context each: own agent, ring listener and sockets.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class WorkerAgentApplication {

    public static final String LOCAL_RANKS = "ALLSUM_LOCAL_RANKS";

    public static void main(String[] args) {
        List<Integer> ranks = localRanks(System.getenv(LOCAL_RANKS));
        if (ranks.isEmpty()) {
            SpringApplication.run(WorkerAgentApplication.class, args);
            return;
        }
        // The first context sets up logging (which is not safe to set up twice at once), then the others start side by
        // side; a context that fails to start ends the JVM, and so its sibling ranks, non-zero.
        AtomicBoolean failed = new AtomicBoolean();
        start(ranks.getFirst(), args, failed);
        List<Thread> starts = new ArrayList<>();
        for (int rank : ranks.subList(1, ranks.size())) {
            starts.add(Thread.ofPlatform().name("allsum-start-r" + rank).start(() -> start(rank, args, failed)));
        }
        for (Thread t : starts) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                System.exit(1);
            }
        }
        if (failed.get()) {
            System.exit(1);
        }
    }

    private static void start(int rank, String[] args, AtomicBoolean failed) {
        if (failed.get()) {
            System.exit(1);
        }
        String[] withRank = Arrays.copyOf(args, args.length + 1);
        withRank[args.length] = "--allsum.worker.rank=" + rank;
        try {
            // Off the main thread Spring cannot find the main class, which Spring AOT needs: name it.
            SpringApplication application = new SpringApplication(WorkerAgentApplication.class);
            application.setMainApplicationClass(WorkerAgentApplication.class);
            application.run(withRank);
        } catch (RuntimeException | Error e) {
            failed.set(true);
            LoggerFactory.getLogger(WorkerAgentApplication.class).error("rank {} did not start", rank, e);
        }
    }

    /** The ranks of {@value #LOCAL_RANKS}: empty when unset; a malformed list ends the JVM with a one-line error. */
    static List<Integer> localRanks(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>();
        for (String part : value.split(",")) {
            try {
                int rank = Integer.parseInt(part.strip());
                if (rank < 0 || out.contains(rank)) {
                    throw new NumberFormatException();
                }
                out.add(rank);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(LOCAL_RANKS + " must list distinct ranks >= 0 separated by commas,"
                        + " was '" + value + "'");
            }
        }
        return List.copyOf(out);
    }
}
