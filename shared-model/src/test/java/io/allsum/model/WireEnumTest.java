package io.allsum.model;

import io.allsum.model.jobs.JobState;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.validate.Suspect;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.json.JsonMapper;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireEnumTest {

    private static final JsonMapper JSON = ProtocolJson.mapper();

    @ParameterizedTest
    @ValueSource(classes = {Backend.class, CollectiveOp.class, DataType.class, ReduceOp.class, JobState.class,
            GenerationState.class, Suspect.Kind.class})
    void everyConstantTravelsAsItsLowerCaseNameAndReadsBackFromEitherCase(Class<? extends Enum<?>> type) {
        for (Enum<?> constant : type.getEnumConstants()) {
            String wire = constant.name().toLowerCase(Locale.ROOT);
            assertThat(JSON.writeValueAsString(constant)).isEqualTo("\"" + wire + "\"");
            assertThat(constant).hasToString(wire);
            assertThat(JSON.readValue("\"" + wire + "\"", type)).isSameAs(constant);
            assertThat(JSON.readValue("\"" + constant.name() + "\"", type)).isSameAs(constant);
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {Backend.class, ReduceOp.class, JobState.class, GenerationState.class, Suspect.Kind.class})
    void anUnknownValueIsRefusedWithTheAcceptedOnes(Class<? extends Enum<?>> type) {
        assertThatThrownBy(() -> JSON.readValue("\"nope\"", type))
                .isInstanceOf(ValueInstantiationException.class)
                .hasMessageContaining("unknown " + type.getSimpleName() + " 'nope'; expected one of ["
                        + type.getEnumConstants()[0].toString() + ", ");
    }
}
