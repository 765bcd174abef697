package io.allsum.worker.jobs;

import io.allsum.model.validate.RankValidation.CpuThrottling;
import io.allsum.testing.CpuQuota;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Where a process's CPU cgroups are and what their CFS counters say: on files laid out as the kernel does, and live. */
class CgroupThrottlingTest {

    @TempDir
    Path dir;

    @Test
    void aV1ProcessIsReadFromItsCpuCgroupAndEachOneAbove() throws Exception {
        Path cpu = dir.resolve("sys/fs/cgroup/cpu,cpuacct");
        Files.createDirectories(cpu.resolve("kubepods/pod1/c1"));
        Files.writeString(cpu.resolve("kubepods/pod1/c1/cpu.stat"), "nr_periods 100\nnr_throttled 40\nthrottled_time 2500000000\n");
        Files.writeString(cpu.resolve("kubepods/cpu.stat"), "nr_periods 9\nnr_throttled 0\nthrottled_time 0\n");
        Path cgroup = Files.writeString(dir.resolve("cgroup"), "12:memory:/kubepods/pod1/c1\n"
                + "4:cpu,cpuacct:/kubepods/pod1/c1\n1:name=systemd:/x\n");
        Path mountinfo = Files.writeString(dir.resolve("mountinfo"), "25 20 0:22 / " + dir.resolve("sys/fs/cgroup")
                + " rw - tmpfs tmpfs rw\n31 25 0:28 / " + cpu + " rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n");
        CgroupThrottling reader = new CgroupThrottling(cgroup, mountinfo);

        assertThat(reader.cgroupFolders()).containsExactly(cpu.resolve("kubepods/pod1/c1"), cpu.resolve("kubepods/pod1"),
                cpu.resolve("kubepods"), cpu);
        CgroupThrottling.Reading start = reader.read();
        assertThat(start.byCgroup()).containsOnlyKeys(cpu.resolve("kubepods/pod1/c1"), cpu.resolve("kubepods"));

        Files.writeString(cpu.resolve("kubepods/pod1/c1/cpu.stat"), "nr_periods 160\nnr_throttled 90\nthrottled_time 4000000000\n");
        CgroupThrottling.Reading end = new CgroupThrottling.Reading(start.nanoTime() + 6_000_000_000L, reader.read().byCgroup());
        CpuThrottling t = CgroupThrottling.between(start, end);
        assertThat(t.throttledSeconds()).isCloseTo(1.5, within(1e-9));
        assertThat(t.windowSeconds()).isCloseTo(6.0, within(1e-9));
        assertThat(t.throttledPeriods()).isEqualTo(50);
        assertThat(t.periods()).isEqualTo(60);
        assertThat(t.periodShare()).isCloseTo(50.0 / 60, within(1e-9));
    }

    @Test
    void aV2ProcessInAContainerIsReadBelowTheMountsRoot() throws Exception {
        Path mount = dir.resolve("cg");
        Files.createDirectories(mount.resolve("job"));
        Files.writeString(mount.resolve("job/cpu.stat"), "usage_usec 5\nnr_periods 7\nnr_throttled 3\nthrottled_usec 1500\n");
        Files.writeString(mount.resolve("cpu.stat"), "usage_usec 5\nuser_usec 3\n"); // the root counts no quota
        Path cgroup = Files.writeString(dir.resolve("cgroup"), "0::/docker/abc/job\n");
        Path mountinfo = Files.writeString(dir.resolve("mountinfo"),
                "40 30 0:35 /docker/abc " + mount + " rw,nosuid - cgroup2 cgroup2 rw\n");
        CgroupThrottling reader = new CgroupThrottling(cgroup, mountinfo);
        assertThat(reader.cgroupFolders()).containsExactly(mount.resolve("job"), mount);
        assertThat(reader.read().byCgroup()).containsOnlyKeys(mount.resolve("job"));
        assertThat(CgroupThrottling.counters(mount.resolve("job/cpu.stat"))).containsExactly(1_500_000L, 3L, 7L);
    }

    @Test
    void withoutCgroupFilesThereIsNothingToReport() {
        CgroupThrottling reader = new CgroupThrottling(dir.resolve("missing"), dir.resolve("missing-too"));
        CgroupThrottling.Reading r = reader.read();
        assertThat(r.byCgroup()).isEmpty();
        assertThat(CgroupThrottling.between(r, reader.read())).isNull();
        assertThat(CgroupThrottling.between(new CgroupThrottling.Reading(0, Map.of()),
                new CgroupThrottling.Reading(1, Map.of(dir, new long[] {1, 1, 1})))).isNull();
    }

    /** A busy process under a 10% quota: the kernel's own counters, read as the worker reads its own. */
    @Test
    void aBusyProcessUnderARealQuotaIsCountedThrottled() throws Exception {
        try (CpuQuota quota = CpuQuota.createOrSkip("allsum-throttling-test-" + ProcessHandle.current().pid())) {
            quota.limit(5_000, 50_000);
            Process busy = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
            try {
                quota.add(busy.pid());
                Path proc = Path.of("/proc", Long.toString(busy.pid()));
                CgroupThrottling reader = new CgroupThrottling(proc.resolve("cgroup"), proc.resolve("mountinfo"));
                CgroupThrottling.Reading start = reader.read();
                Thread.sleep(800);
                CpuThrottling t = CgroupThrottling.between(start, reader.read());
                assertThat(t).as("folders %s", reader.cgroupFolders()).isNotNull();
                assertThat(t.periods()).isGreaterThanOrEqualTo(10);
                assertThat(t.throttledPeriods()).isGreaterThanOrEqualTo(t.periods() / 2);
                // about 45 ms of each 50 ms period held back, less where other tests keep the busy process waiting
                assertThat(t.throttledSeconds()).as("%s", t).isGreaterThan(0.1);
            } finally {
                busy.destroyForcibly().waitFor();
            }
        }
    }
}
