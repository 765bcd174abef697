package io.allsum.server.jobs;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;
import io.allsum.server.problem.ProblemException;
import io.allsum.testing.UnsetJobSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class JobSpecValidatorTest {

    private final JobSpecValidator validator = new JobSpecValidator(JobsSettings.defaults());

    // The specs of these tests leave unset fields null, as submitted: the validator fills them, or tells them apart.
    private static JobSpec spec(CollectiveOp op, ReduceOp redop, Integer root, Long min, Long max, Integer step,
                                Integer iters, Integer warmup, Integer timeout) {
        return UnsetJobSpec.builder().op(op).redop(redop).root(root).sizes(min, max).stepFactor(step)
                .iterations(iters, warmup).timeoutSeconds(timeout).build();
    }

    static Stream<Arguments> badSpecs() {
        return Stream.of(
                Arguments.of(spec(null, null, null, -1L, 8L, null, null, null, null), "minBytes"),
                Arguments.of(spec(null, null, null, -8L, 8L, null, null, null, null), "minBytes"),
                Arguments.of(spec(null, null, null, 64L, 8L, null, null, null, null), "maxBytes"),
                Arguments.of(spec(null, null, null, 8L, (64L << 30) + 1, null, null, null, null), "maxBytes"),
                Arguments.of(spec(null, null, null, 1L, 3L, null, null, null, null), "maxBytes"),
                Arguments.of(spec(CollectiveOp.ALL_GATHER, null, null, 8L, 12L, null, null, null, null), "maxBytes"),
                Arguments.of(spec(null, null, null, null, null, 0, null, null, null), "stepFactor"),
                Arguments.of(spec(null, null, null, null, null, null, 0, null, null), "iterations"),
                Arguments.of(spec(null, null, null, null, null, null, 1_000_001, null, null), "iterations"),
                Arguments.of(spec(null, null, null, null, null, null, null, -1, null), "warmupIterations"),
                Arguments.of(spec(null, null, null, null, null, null, null, null, 0), "timeoutSeconds"),
                Arguments.of(spec(null, null, null, null, null, null, null, null, 3601), "timeoutSeconds"),
                Arguments.of(spec(CollectiveOp.BROADCAST, null, 4, null, null, null, null, null, null), "root"),
                Arguments.of(spec(CollectiveOp.REDUCE, null, -1, null, null, null, null, null, null), "root"),
                Arguments.of(spec(CollectiveOp.ALL_REDUCE, null, 2, null, null, null, null, null, null), "root"),
                Arguments.of(spec(CollectiveOp.ALL_GATHER, ReduceOp.MAX, null, null, null, null, null, null, null), "redop"));
    }

    @ParameterizedTest
    @MethodSource("badSpecs")
    void rejectsABadSpecNamingTheField(JobSpec bad, String field) {
        ProblemException e = catchThrowableOfType(ProblemException.class, () -> validator.validate(bad, 4));

        assertThat(e.code()).isEqualTo(ProblemCode.INVALID_REQUEST);
        assertThat(e.detail()).startsWith(field + ":");
        assertThat(e.violations()).singleElement().extracting(Violation::field).isEqualTo(field);
    }

    @Test
    void rejectsASweepLongerThanTheLimit() {
        JobSpecValidator strict = new JobSpecValidator(JobsSettings.with(Map.of("max-sweep-sizes", "4")));

        ProblemException e = catchThrowableOfType(ProblemException.class,
                () -> strict.validate(spec(null, null, null, 8L, 1024L, 2, null, null, null), 2));

        assertThat(e.detail()).startsWith("stepFactor:").contains("8 sizes");
    }

    @Test
    void emptySpecTakesEveryDefaultAndTheConfiguredTimeout() {
        JobSpecValidator configured = new JobSpecValidator(
                JobsSettings.with(Map.of("default-timeout", "42s")));

        JobSpec s = configured.validate(UnsetJobSpec.NONE, 4);

        assertThat(s.op()).isEqualTo(CollectiveOp.ALL_REDUCE);
        assertThat(s.dtype()).isEqualTo(DataType.FLOAT32);
        assertThat(s.redop()).isEqualTo(ReduceOp.SUM);
        assertThat(s.minBytes()).isEqualTo(JobSpec.DEFAULT_MIN_BYTES);
        assertThat(s.maxBytes()).isEqualTo(JobSpec.DEFAULT_MAX_BYTES);
        assertThat(s.iterations()).isEqualTo(JobSpec.DEFAULT_ITERATIONS);
        assertThat(s.timeoutSeconds()).isEqualTo(42);
        assertThat(s.verify()).isTrue();
    }

    @Test
    void stepFactorOneIsASingleSizeAndSumIsAcceptedForAnyOp() {
        JobSpec s = validator.validate(UnsetJobSpec.builder().op(CollectiveOp.BROADCAST).redop(ReduceOp.SUM).root(3)
                .sizes(1024L, 4096L).stepFactor(1).build(), 4);

        assertThat(s.sizes(4)).containsExactly(1024L);
        assertThat(s.root()).isEqualTo(3);
    }

    @Test
    void avgOnFloat8IsRefusedUpFrontForNcclGroupsOnly() {
        JobSpec avgFp8 = UnsetJobSpec.builder().collective(CollectiveOp.ALL_REDUCE, DataType.FLOAT8_E4M3, ReduceOp.AVG)
                .sizes(8L, 64L).stepFactor(2).build();

        ProblemException e = catchThrowableOfType(ProblemException.class,
                () -> validator.validate(avgFp8, 2, Backend.NCCL));

        assertThat(e.detail()).startsWith("redop:").contains("NCCL has no avg for float8_e4m3");
        assertThat(validator.validate(avgFp8, 2, Backend.RING).redop()).isEqualTo(ReduceOp.AVG);
    }
}
