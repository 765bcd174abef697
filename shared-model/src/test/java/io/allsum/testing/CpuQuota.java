package io.allsum.testing;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A CPU cgroup of its own for processes a test throttles: cgroup v2's {@code cpu.max} where the cpu controller is
 * on the unified hierarchy, else cgroup v1's CFS quota (hosts whose cpu controller is still on a v1 hierarchy).
 * {@link #close} moves the processes back where they came from and removes the cgroup. Needs root;
 * {@link #createOrSkip} skips the test, with the reason, where no cpu controller can be written.
 */
public final class CpuQuota implements AutoCloseable {

    private static final Path MOUNTS = Path.of("/proc/mounts");

    private final Path dir;
    private final boolean v2;
    private final List<Long> pids = new ArrayList<>();
    private final List<Path> origins = new ArrayList<>();

    private CpuQuota(Path dir, boolean v2) {
        this.dir = dir;
        this.v2 = v2;
    }

    /** Makes the cgroup {@code name} on the hierarchy with the cpu controller, or skips the calling test. */
    public static CpuQuota createOrSkip(String name) throws IOException {
        Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "cgroups need Linux");
        Assumptions.assumeTrue(Files.isReadable(MOUNTS), MOUNTS + " is not readable");
        Path v2 = null;
        Path v1 = null;
        for (String line : Files.readAllLines(MOUNTS)) {
            String[] f = line.split(" ");
            if (f.length < 4) {
                continue;
            }
            Path mount = Path.of(f[1]);
            if (f[2].equals("cgroup2") && words(mount.resolve("cgroup.controllers")).contains("cpu")) {
                v2 = mount;
            } else if (f[2].equals("cgroup") && Arrays.asList(f[3].split(",")).contains("cpu")) {
                v1 = mount;
            }
        }
        Assumptions.assumeTrue(v2 != null || v1 != null, "no cgroup hierarchy has the cpu controller ("
                + MOUNTS + " has neither a cgroup2 mount listing cpu in cgroup.controllers nor a v1 cpu mount)");
        if (v2 != null) {
            Path control = v2.resolve("cgroup.subtree_control");
            if (!words(control).contains("cpu")) {
                tryWrite(control, "+cpu");
            }
            Assumptions.assumeTrue(words(control).contains("cpu"), control + " lacks cpu and cannot enable "
                    + "it (needs root, and no processes of this cgroup's own)");
        }
        Path dir = (v2 != null ? v2 : v1).resolve(name);
        String made = tryCreate(dir);
        Assumptions.assumeTrue(made == null, "cannot create the cgroup " + dir + " (needs root): " + made);
        return new CpuQuota(dir, v2 != null);
    }

    /** At most {@code quotaMicros} of CPU time per {@code periodMicros}, all the cgroup's threads together. */
    public void limit(long quotaMicros, long periodMicros) throws IOException {
        if (v2) {
            Files.writeString(dir.resolve("cpu.max"), quotaMicros + " " + periodMicros);
        } else {
            Files.writeString(dir.resolve("cpu.cfs_period_us"), Long.toString(periodMicros));
            Files.writeString(dir.resolve("cpu.cfs_quota_us"), Long.toString(quotaMicros));
        }
    }

    /** Moves the process, every thread of it, into the cgroup. */
    public void add(long pid) throws IOException {
        origins.add(currentCgroup(pid));
        pids.add(pid);
        Files.writeString(dir.resolve("cgroup.procs"), Long.toString(pid));
    }

    /** What {@link #limit} applies, in the file's own words. */
    public String describe() throws IOException {
        return v2 ? dir + "/cpu.max " + Files.readString(dir.resolve("cpu.max")).strip()
                : dir + " cpu.cfs_quota_us " + Files.readString(dir.resolve("cpu.cfs_quota_us")).strip()
                + " per cpu.cfs_period_us " + Files.readString(dir.resolve("cpu.cfs_period_us")).strip();
    }

    /** The process's cgroup on this hierarchy, from {@code /proc/PID/cgroup}. */
    private Path currentCgroup(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
            String[] f = line.split(":", 3);
            boolean here = v2 ? f[0].equals("0") : Arrays.asList(f[1].split(",")).contains("cpu");
            if (here) {
                return dir.getParent().resolve(f[2].substring(1));
            }
        }
        return dir.getParent();
    }

    @Override
    public void close() throws IOException {
        for (int i = 0; i < pids.size(); i++) {
            if (ProcessHandle.of(pids.get(i)).isPresent()) {
                tryWrite(origins.get(i).resolve("cgroup.procs"), Long.toString(pids.get(i)));
            }
        }
        Files.deleteIfExists(dir);
    }

    /** The controllers a cgroup file lists, none where it cannot be read. */
    private static List<String> words(Path file) {
        try {
            return Files.isReadable(file) ? Arrays.asList(Files.readString(file).strip().split("\\s+")) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static void tryWrite(Path file, String value) {
        try {
            Files.writeString(file, value);
        } catch (IOException e) {
            // the caller checks the outcome
        }
    }

    private static String tryCreate(Path dir) {
        try {
            Files.createDirectory(dir);
            return null;
        } catch (IOException e) {
            return e.toString();
        }
    }
}
