package io.allsum.model.problem;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemCodeTest {

    @Test
    void wireCodesAreKebabCaseAndRoundTrip() {
        assertThat(ProblemCode.RANK_HELD.wireCode()).isEqualTo("rank-held");
        assertThat(ProblemCode.BODY_TOO_LARGE.wireCode()).isEqualTo("body-too-large");
        Arrays.stream(ProblemCode.values()).forEach(code ->
                assertThat(ProblemCode.fromWire(code.wireCode())).contains(code));
    }

    @Test
    void unknownCodesAreEmptySoThatNewerServersDoNotBreakOlderClients() {
        assertThat(ProblemCode.fromWire("a-code-from-the-future")).isEmpty();
        assertThat(ProblemCode.fromWire(null)).isEmpty();
    }

    @Test
    void statusesWithoutACodeMapToTheGenericOne() {
        assertThat(ProblemCode.forStatus(404)).isEqualTo(ProblemCode.NOT_FOUND);
        assertThat(ProblemCode.forStatus(409)).isEqualTo(ProblemCode.CONFLICT);
        assertThat(ProblemCode.forStatus(502)).isEqualTo(ProblemCode.BAD_GATEWAY);
        assertThat(ProblemCode.forStatus(504)).isEqualTo(ProblemCode.GATEWAY_TIMEOUT);
        assertThat(ProblemCode.forStatus(501)).isEqualTo(ProblemCode.INTERNAL_ERROR);
        assertThat(ProblemCode.forStatus(418)).isEqualTo(ProblemCode.INVALID_REQUEST);
    }
}
