package io.allsum.worker.agent;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RestartBudgetTest {

    private final AtomicLong now = new AtomicLong(1_000);
    private final RestartBudget budget = new RestartBudget(3, Duration.ofMinutes(10), now::get);

    @Test
    void moreFailuresThanAllowedWithinTheWindowExhaustIt() {
        assertThat(budget.recordFailure()).isTrue();
        assertThat(budget.recordFailure()).isTrue();
        assertThat(budget.recordFailure()).isTrue();
        assertThat(budget.recordFailure()).isFalse();
        assertThat(budget.failuresInWindow()).isEqualTo(4);
    }

    @Test
    void failuresSpreadOverLongerThanTheWindowNeverExhaustIt() {
        for (int i = 0; i < 100; i++) {
            assertThat(budget.recordFailure()).as("failure %d", i).isTrue();
            now.addAndGet(Duration.ofMinutes(4).toNanos());
        }
        assertThat(budget.failuresInWindow()).isLessThanOrEqualTo(3);
    }

    @Test
    void failuresOlderThanTheWindowAreForgotten() {
        budget.recordFailure();
        budget.recordFailure();
        now.addAndGet(Duration.ofMinutes(10).toNanos());
        assertThat(budget.failuresInWindow()).isZero();
    }

    @Test
    void zeroAllowedFailuresStopsAtTheFirst() {
        assertThat(new RestartBudget(0, Duration.ofSeconds(1), now::get).recordFailure()).isFalse();
        assertThatThrownBy(() -> new RestartBudget(1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
