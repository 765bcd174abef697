package io.allsum.model.validate;

import io.allsum.model.ProtocolJson;
import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.ValidationResult.SoloFigure;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ValidationResultJsonTest {

    private static ValidationResult threeRanks() {
        return new ValidationResult(List.of(new RankPlace(0, "a", "cpu"), new RankPlace(1, "a", "cpu")),
                List.of(new SoloFigure(0, 4.0), new SoloFigure(1, 2.0), new SoloFigure(2, 3.0)),
                List.of(new PairFigure(0, 1, 1.0, 10), new PairFigure(1, 2, 0.5, 10)), null, List.of(0, 0, 0),
                null, null, ValidationResult.PAIRS, null, null, null, null);
    }

    @Test
    void theDerivedFiguresAreWrittenSoThatEveryReaderShowsTheSame() {
        JsonNode json = ProtocolJson.mapper().valueToTree(threeRanks());
        assertThat(json.get("worldSize").asInt()).isEqualTo(3);
        assertThat(json.get("soloMedianGBps").asDouble()).isEqualTo(3.0);
        assertThat(json.get("pairMedianGBps").asDouble()).isEqualTo(0.75);
        assertThat(json.get("heat").values()).extracting(JsonNode::asString).containsExactly(".9?", "9.6", "?6.");
    }

    @Test
    void aReaderIgnoresThemAndGetsTheSameRecord() {
        String written = ProtocolJson.mapper().writeValueAsString(threeRanks());
        ValidationResult read = ProtocolJson.mapper().readValue(written, ValidationResult.class);
        assertThat(read).isEqualTo(threeRanks());
        assertThat(read.heat()).containsExactly(".9?", "9.6", "?6.");
    }

    @Test
    void nothingMeasuredYetHasNoMediansAndNoRows() {
        ValidationResult empty = new ValidationResult(List.of(), List.of(), List.of(), null, List.of(), null, null,
                ValidationResult.ALONE, null, null, null, null);
        assertThat(empty.worldSize()).isZero();
        assertThat(empty.soloMedianGBps()).isNull();
        assertThat(empty.pairMedianGBps()).isNull();
        assertThat(empty.heat()).isEmpty();
    }
}
