package io.allsum.worker.jobs;

import io.allsum.model.validate.RankValidation.CpuThrottling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's CFS bandwidth counters of this JVM's CPU cgroup and of each cgroup above it (v2 {@code cpu.stat}'s
 * {@code throttled_usec}, v1's {@code throttled_time}): a quota on any of them holds this JVM's ranks back. Read at
 * the start and the end of a validation; where no cgroup file system counts them, there is nothing to report.
 */
final class CgroupThrottling {

    /** One reading: when, and per cgroup folder {throttled nanoseconds, throttled periods, periods}. */
    record Reading(long nanoTime, Map<Path, long[]> byCgroup) {
    }

    private final Path procSelfCgroup;
    private final Path procSelfMountinfo;

    CgroupThrottling(Path procSelfCgroup, Path procSelfMountinfo) {
        this.procSelfCgroup = procSelfCgroup;
        this.procSelfMountinfo = procSelfMountinfo;
    }

    static CgroupThrottling ofThisProcess() {
        return new CgroupThrottling(Path.of("/proc/self/cgroup"), Path.of("/proc/self/mountinfo"));
    }

    /** The counters now; an empty reading where they cannot be read (not Linux, no cgroup file system). */
    Reading read() {
        long now = System.nanoTime();
        Map<Path, long[]> out = new LinkedHashMap<>();
        try {
            for (Path dir : cgroupFolders()) {
                long[] counters = counters(dir.resolve("cpu.stat"));
                if (counters != null) {
                    out.put(dir, counters);
                }
            }
        } catch (IOException | RuntimeException e) {
            out.clear(); // unreadable: the verdict goes without this figure
        }
        return new Reading(now, out);
    }

    /** The most throttled cgroup between two readings; null when no cgroup was counted in both. */
    static CpuThrottling between(Reading start, Reading end) {
        CpuThrottling most = null;
        for (Map.Entry<Path, long[]> e : end.byCgroup().entrySet()) {
            long[] before = start.byCgroup().get(e.getKey());
            if (before == null) {
                continue;
            }
            long[] after = e.getValue();
            CpuThrottling t = new CpuThrottling(Math.max(0, after[0] - before[0]) / 1e9,
                    Math.max(0, end.nanoTime() - start.nanoTime()) / 1e9, Math.max(0, after[1] - before[1]),
                    Math.max(0, after[2] - before[2]));
            if (t.throttledPeriods() > t.periods()) {
                t = new CpuThrottling(t.throttledSeconds(), t.windowSeconds(), t.periods(), t.periods());
            }
            if (most == null || t.throttledSeconds() > most.throttledSeconds()) {
                most = t;
            }
        }
        return most;
    }

    /** This process's cgroup folders that hold the cpu controller, its own first, then each parent to the mount. */
    List<Path> cgroupFolders() throws IOException {
        List<String[]> mounts = Files.readAllLines(procSelfMountinfo).stream().map(CgroupThrottling::cgroupMount)
                .filter(m -> m != null).toList();
        List<Path> out = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(procSelfCgroup)) {
            String[] f = line.split(":", 3);
            if (f.length < 3) {
                continue;
            }
            boolean v2 = f[0].equals("0") && f[1].isEmpty();
            boolean v1Cpu = List.of(f[1].split(",")).contains("cpu");
            for (String[] m : mounts) { // {root, mount point, "2" or the v1 controllers}
                if (v2 ? m[2].equals("2") : v1Cpu && List.of(m[2].split(",")).contains("cpu")) {
                    addFolders(out, Path.of(m[1]), m[0], f[2]);
                }
            }
        }
        return out;
    }

    private static void addFolders(List<Path> out, Path mountPoint, String mountRoot, String cgroupPath) {
        String relative = cgroupPath;
        if (!mountRoot.equals("/") && (relative.equals(mountRoot) || relative.startsWith(mountRoot + "/"))) {
            relative = relative.substring(mountRoot.length());
        }
        Path dir = mountPoint;
        for (String part : relative.split("/")) {
            if (!part.isEmpty() && !part.equals("..")) {
                dir = dir.resolve(part);
            }
        }
        for (Path d = dir; d != null && d.startsWith(mountPoint); d = d.getParent()) {
            if (!out.contains(d)) {
                out.add(d);
            }
        }
    }

    /** {root, mount point, "2" (v2) or the v1 super options} of a cgroup mount's mountinfo line, else null. */
    private static String[] cgroupMount(String line) {
        String[] f = line.split(" ");
        int dash = List.of(f).indexOf("-");
        if (dash < 0 || f.length < dash + 4 || f.length < 5) {
            return null;
        }
        String type = f[dash + 1];
        if (type.equals("cgroup2")) {
            return new String[] {f[3], unescape(f[4]), "2"};
        }
        return type.equals("cgroup") ? new String[] {f[3], unescape(f[4]), f[dash + 3]} : null;
    }

    private static String unescape(String field) {
        return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    /** {throttled ns, throttled periods, periods} from a cpu.stat, or null where it counts no quota. */
    static long[] counters(Path cpuStat) {
        List<String> lines;
        try {
            lines = Files.readAllLines(cpuStat);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        Map<String, Long> stat = new LinkedHashMap<>();
        for (String line : lines) {
            String[] kv = line.trim().split("\\s+");
            if (kv.length == 2) {
                try {
                    stat.put(kv[0], Long.parseLong(kv[1]));
                } catch (NumberFormatException ignored) {
                    // a field this reader does not use
                }
            }
        }
        Long nanos = stat.containsKey("throttled_usec") ? Long.valueOf(stat.get("throttled_usec") * 1000)
                : stat.get("throttled_time");
        if (nanos == null || !stat.containsKey("nr_throttled") || !stat.containsKey("nr_periods")) {
            return null;
        }
        return new long[] {nanos, stat.get("nr_throttled"), stat.get("nr_periods")};
    }
}
