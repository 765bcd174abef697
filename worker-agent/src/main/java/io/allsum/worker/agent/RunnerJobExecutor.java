package io.allsum.worker.agent;

import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.worker.comm.Communicator;
import io.allsum.worker.jobs.CollectiveJobRunner;
import io.allsum.worker.jobs.ProgressListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.function.BooleanSupplier;

/** Runs jobs with the {@link CollectiveJobRunner}, logging each size as it completes. */
public class RunnerJobExecutor implements JobExecutor {

    private static final Logger log = LoggerFactory.getLogger(RunnerJobExecutor.class);

    private final CollectiveJobRunner runner;

    public RunnerJobExecutor(CollectiveJobRunner runner) {
        this.runner = runner;
    }

    @Override
    public List<RankSizeResult> execute(Communicator communicator, JobAssignment job, BooleanSupplier stop) {
        return runner.run(communicator, job.spec(), new ProgressListener() {
            @Override
            public void sizeCompleted(int index, int total, RankSizeResult r) {
                // INFO, in this exact form: the allsum command reads these lines from local ranks' logs to print
                // each row of its table as soon as every rank measured it (launcher's RankLogRows).
                log.info("Job {} size {}/{}: {} B, {} elements, {} us, {} wrong", job.jobId(), index + 1, total,
                        r.bytes(), r.count(), r.timeMicros(), r.wrongElements());
            }
        }, stop);
    }
}
