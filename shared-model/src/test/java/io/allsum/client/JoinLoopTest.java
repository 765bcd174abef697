package io.allsum.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class JoinLoopTest {

    @Test
    void joinWaitIsWholeSecondsBetweenOneAndThirty() {
        assertThat(JoinLoop.joinWait(Duration.ofMinutes(5))).hasSeconds(30);
        assertThat(JoinLoop.joinWait(Duration.ofMillis(12_700))).hasSeconds(12);
        assertThat(JoinLoop.joinWait(Duration.ofMillis(200))).hasSeconds(1);
    }

    @Test
    void aLongListOfMissingRanksIsCutAfterSixteen() {
        assertThat(JoinLoop.abbreviate(List.of(3, 5))).isEqualTo("[3, 5]");
        assertThat(JoinLoop.abbreviate(IntStream.range(0, 16).boxed().toList())).doesNotContain("more");
        assertThat(JoinLoop.abbreviate(IntStream.range(0, 20).boxed().toList()))
                .isEqualTo("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ... 4 more]");
    }
}
