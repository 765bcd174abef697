package io.allsum.worker.agent;

import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.worker.comm.Communicator;

import java.util.List;
import java.util.function.BooleanSupplier;

/** Runs one job's collectives on this rank's communicator and returns what it measured per size. */
@FunctionalInterface
public interface JobExecutor {

    /**
     * @param stop says when to stop between sizes (the generation broke, the worker is stopping)
     * @throws io.allsum.worker.comm.CommException when the communicator failed (the generation is broken)
     */
    List<RankSizeResult> execute(Communicator communicator, JobAssignment job, BooleanSupplier stop);
}
