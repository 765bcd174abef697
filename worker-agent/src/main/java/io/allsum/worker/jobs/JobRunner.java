package io.allsum.worker.jobs;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.comm.Communicator;

import java.util.List;
import java.util.function.BooleanSupplier;

/** Runs one job's collectives on this rank's communicator and returns what it measured per size. */
@FunctionalInterface
public interface JobRunner {

    /**
     * @param cancelled says when to stop between sizes (the generation broke, the worker is stopping)
     * @throws io.allsum.comm.CommException when the communicator failed (the generation is broken)
     * @throws JobDoesNotFitException when this rank cannot hold the job's buffers (the communicator is untouched)
     */
    List<RankSizeResult> run(Communicator comm, JobSpec spec, BooleanSupplier cancelled);

    /** As {@link #run(Communicator, JobSpec, BooleanSupplier)}, telling {@code progress} about each size. */
    default List<RankSizeResult> run(Communicator comm, JobSpec spec, ProgressListener progress,
                                     BooleanSupplier cancelled) {
        return run(comm, spec, cancelled);
    }
}
