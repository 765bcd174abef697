package io.allsum.server.jobs;

import io.allsum.model.Backend;
import io.allsum.model.jobs.JobSpec;
import io.allsum.server.rendezvous.GroupDirectory.GenerationCompleted;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A group's job queue starts with one database read; that read belongs to the first submission or poll, never to
 * the completion of a generation (which runs on the last rank's join, before its answer is written).
 */
class JobQueueCreationTest {

    private final AtomicInteger queueReads = new AtomicInteger();
    private final JobStore store = new JobStore(JdbcClient.create(TestJobStores.freshDatabase())) {
        @Override
        long lastSeq(String group) {
            queueReads.incrementAndGet();
            return super.lastSeq(group);
        }
    };
    private final FakeGroupDirectory directory = new FakeGroupDirectory(event -> {
    });
    private final JobService jobs = new JobService(directory, JobsSettings.defaults(), new SimpleMeterRegistry(), store,
            new StartupGrace(Duration.ZERO));

    @Test
    void aCompletedGenerationReadsNoDatabaseAndTheFirstSubmissionMakesTheQueue() {
        directory.form("g", 2);
        jobs.onGenerationCompleted(new GenerationCompleted("g", 1, 2, Backend.RING));

        assertThat(queueReads).hasValue(0);

        jobs.submit("g", JobSpec.allSum(8));
        jobs.onGenerationCompleted(new GenerationCompleted("g", 2, 2, Backend.RING));
        jobs.submit("g", JobSpec.allSum(8));

        assertThat(queueReads).hasValue(1);
        assertThat(jobs.list("g")).hasSize(2);
    }
}
