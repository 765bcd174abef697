package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DeadlineTest {

    /** The JVM notes its own start a little after exec: the process is that much older, never younger. */
    @Test
    @EnabledOnOs(value = OS.LINUX, disabledReason = "the age comes from /proc")
    void theProcessAgeMatchesTheJvmsOwnClockToTensOfMilliseconds() {
        long jvmUptime = ManagementFactory.getRuntimeMXBean().getUptime();
        long age = Deadline.processAge().toMillis();
        long jvmUptimeAfter = ManagementFactory.getRuntimeMXBean().getUptime();

        assertThat(age).isBetween(jvmUptime - 20, jvmUptimeAfter + 1000);
    }

    @Test
    void aDeadlineSinceTheProcessStartCountsTheTimeAlreadyRun() {
        Duration hour = Duration.ofHours(1);
        Duration ageBefore = Deadline.processAge();
        Deadline d = Deadline.sinceProcessStart(hour, "--timeout 1 h");
        Duration left = d.remaining();
        Duration ageAfter = Deadline.processAge();

        assertThat(left).isBetween(hour.minus(ageAfter).minusMillis(30), hour.minus(ageBefore).plusMillis(30));
    }
}
