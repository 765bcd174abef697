package io.allsum.model.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.problem.Violation;
import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** The ring's rank 0 may bring a random 128-byte id (its members derive their connection key from it). */
class RingUniqueIdValidationTest {

    private static final String ID = Base64.getEncoder().encodeToString(new byte[128]);
    private final JoinRequestValidator validator = JoinRequestValidator.withDefaults();

    private static JoinRequest ring(int rank, String uniqueId) {
        return new JoinRequest("g", rank, 2, "w" + rank, Backend.RING, uniqueId, "127.0.0.1:5000", null, null);
    }

    @Test
    void ringRankZeroMayBringAnIdOrNone() {
        assertThat(validator.validate(ring(0, ID))).isEmpty();
        assertThat(validator.validate(ring(0, null))).isEmpty();
    }

    @Test
    void ringIdFromAnotherRankOrOfTheWrongLengthIsRejected() {
        assertThat(validator.validate(ring(1, ID))).extracting(Violation::field)
                .containsExactly("uniqueId");
        assertThat(validator.validate(ring(0, Base64.getEncoder().encodeToString(new byte[16]))))
                .extracting(Violation::message).singleElement().asString()
                .contains("exactly 128 bytes");
    }
}
