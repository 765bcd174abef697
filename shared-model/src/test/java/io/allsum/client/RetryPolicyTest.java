package io.allsum.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryPolicyTest {

    private final RetryPolicy policy = RetryPolicy.DEFAULT;

    @Test
    void ceilingDoublesFromTheInitialBackoffUpToTheMaximum() {
        assertThat(policy.ceiling(0)).isEqualTo(Duration.ofMillis(50));
        assertThat(policy.ceiling(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.ceiling(5)).isEqualTo(Duration.ofMillis(1600));
        assertThat(policy.ceiling(6)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.ceiling(10_000)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void fullJitterPausesStayBetweenZeroAndTheCeiling() {
        for (int retry = 0; retry < 12; retry++) {
            for (int i = 0; i < 200; i++) {
                assertThat(policy.pause(retry)).isBetween(Duration.ZERO, policy.ceiling(retry));
            }
        }
    }

    @Test
    void fullJitterSpreadsPausesOverTheWindow() {
        long distinct = java.util.stream.IntStream.range(0, 100).mapToObj(i -> policy.pause(6)).distinct().count();
        assertThat(distinct).isGreaterThan(50);
    }

    @Test
    void rejectsAMaximumBelowTheInitialBackoff() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofSeconds(1), 2, Duration.ofMillis(10), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackoff");
    }

    @Test
    void rejectsAShrinkingMultiplier() {
        assertThatThrownBy(() -> new RetryPolicy(Duration.ofMillis(1), 0.5, Duration.ofMillis(10), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier");
    }
}
