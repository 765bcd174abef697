package io.allsum.worker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalRanksTest {

    @Test
    void unsetOrBlankMeansOneRankFromTheUsualSettings() {
        assertThat(WorkerAgentApplication.localRanks(null)).isEmpty();
        assertThat(WorkerAgentApplication.localRanks(" ")).isEmpty();
    }

    @Test
    void aCommaSeparatedListGivesThoseRanksInOrder() {
        assertThat(WorkerAgentApplication.localRanks("0,1, 2,3")).containsExactly(0, 1, 2, 3);
        assertThat(WorkerAgentApplication.localRanks("5")).containsExactly(5);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0,,1", "a", "-1", "1,1", "0-3"})
    void aMalformedListIsRefusedNamingTheVariable(String value) {
        assertThatThrownBy(() -> WorkerAgentApplication.localRanks(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ALLSUM_LOCAL_RANKS").hasMessageContaining(value);
    }
}
