package io.allsum.model.rendezvous;

import org.junit.jupiter.api.Test;

import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class UniqueIdTest {

    private static final byte[] BYTES = new byte[128];

    static {
        BYTES[0] = 42;
    }

    @Test
    void decodesOnceAndKeepsTheWireFormAndTheBytes() {
        String wire = Base64.getEncoder().encodeToString(BYTES);

        UniqueId id = UniqueId.parse(wire);

        assertThat(id.base64()).isEqualTo(wire);
        assertThat(id.bytes()).isEqualTo(BYTES);
        assertThat(id).isEqualTo(UniqueId.of(BYTES)).hasSameHashCodeAs(UniqueId.of(BYTES));
    }

    @Test
    void neverPrintsItselfNorTheRejectedValue() {
        String wire = Base64.getEncoder().encodeToString(BYTES);
        String shortId = Base64.getEncoder().encodeToString(new byte[12]);

        assertThat(UniqueId.parse(wire).toString()).doesNotContain(wire).contains("redacted");
        assertThatIllegalArgumentException().isThrownBy(() -> UniqueId.parse(shortId))
                .withMessage("must be base64 of exactly 128 bytes, got 12 bytes")
                .withMessageNotContaining(shortId);
        assertThat(UniqueId.problemWith("not base64!")).isEqualTo(
                "must be base64 of exactly 128 bytes, got text that is not base64");
    }

    @Test
    void digestIdentifiesTheIdWithoutRevealingIt() {
        UniqueId id = UniqueId.of(BYTES);

        assertThat(id.digest()).hasSize(64).isEqualTo(UniqueId.of(BYTES).digest()).doesNotContain(id.base64());
    }
}
