package io.allsum.launcher;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobState;
import io.allsum.model.validate.ValidationResult;
import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.ValidationResult.SoloFigure;
import io.allsum.model.validate.RankPlace;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ValidationReportTest {

    private static String pairBlock(List<RankPlace> ranks) {
        List<PairFigure> pairs = new ArrayList<>();
        for (int a = 0; a < 4; a++) {
            for (int b = a + 1; b < 4; b++) {
                pairs.add(new PairFigure(a, b, a / 2 == b / 2 ? 8.0 : 1.0, 12.0));
            }
        }
        List<SoloFigure> solo = List.of(new SoloFigure(0, 10), new SoloFigure(1, 10), new SoloFigure(2, 10),
                new SoloFigure(3, 10));
        ValidationResult v = new ValidationResult(ranks, solo, pairs, 0.5, null, null, null, ValidationResult.TOGETHER,
                List.of(), null, null, java.util.Map.of());
        Job job = FakeClient.job(JobState.RUNNING);
        job = new Job(job.jobId(), job.group(), job.seq(), job.generation(), job.spec(), job.state(),
                job.submittedAt(), job.dispatchedAt(), job.finishedAt(), job.dispatchLatencyMicros(),
                job.reportedRanks(), job.failureReason(), job.results(), v);
        StringWriter text = new StringWriter();
        new ValidationReport("ring", 4, new PrintWriter(text)).show(job);
        return text.toString();
    }

    @Test
    void withSeveralRanksPerHostThePairBlockGivesEachHostPair() {
        String out = pairBlock(List.of(new RankPlace(0, "10.0.0.1", "cpu"), new RankPlace(1, "10.0.0.1", "cpu"),
                new RankPlace(2, "10.0.0.2", "cpu"), new RankPlace(3, "10.0.0.2", "cpu")));

        assertThat(out).contains("# host pairs: their rank pairs' median and lowest GB/s\n")
                .containsPattern("\n  10\\.0\\.0\\.1 +10\\.0\\.0\\.1 +1 +8\\.000 +8\\.000\n")
                .containsPattern("\n  10\\.0\\.0\\.1 +10\\.0\\.0\\.2 +4 +1\\.000 +1\\.000\n")
                .containsPattern("\n  10\\.0\\.0\\.2 +10\\.0\\.0\\.2 +1 +8\\.000 +8\\.000\n")
                .contains("# pair phase: 0.50 s");
    }

    @Test
    void oneRankPerHostHasNoHostPairBlock() {
        String out = pairBlock(List.of(new RankPlace(0, "a", "cpu"), new RankPlace(1, "b", "cpu"),
                new RankPlace(2, "c", "cpu"), new RankPlace(3, "d", "cpu")));

        assertThat(out).contains("# phase 2: every pair").doesNotContain("host pairs");
    }
}
