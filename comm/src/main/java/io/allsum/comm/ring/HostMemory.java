package io.allsum.comm.ring;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The host memory this process can still allocate: Linux's MemAvailable (free memory plus what the kernel can
 * reclaim), bounded by the container's limit when the JVM sees one; elsewhere the JVM's free physical memory.
 */
final class HostMemory {

    private static final Path MEMINFO = Path.of("/proc/meminfo");

    private HostMemory() {
    }

    static long availableBytes() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long free = os.getFreeMemorySize();
        long available = meminfo("MemAvailable:");
        long total = meminfo("MemTotal:");
        if (available < 0 || total < 0) {
            return free;
        }
        // The JVM reports the container's limit and usage when it runs in one: then the tighter of the two counts.
        return os.getTotalMemorySize() < total ? Math.min(free, available) : available;
    }

    /** A /proc/meminfo value in bytes, or -1 where there is none. */
    private static long meminfo(String key) {
        try {
            for (String line : Files.readAllLines(MEMINFO)) {
                if (line.startsWith(key)) {
                    String[] parts = line.substring(key.length()).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * (parts.length > 1 && parts[1].equals("kB") ? 1024 : 1);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
