package io.allsum.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Lists the host's GPUs with {@code nvidia-smi -L}; no nvidia-smi, or one that fails, means no GPU. */
public final class GpuProbe {

    private GpuProbe() {
    }

    /** The "GPU i: name (UUID: ...)" lines, in device order; empty without GPUs. */
    public static List<String> listGpus() {
        Process p;
        try {
            p = new ProcessBuilder("nvidia-smi", "-L").redirectErrorStream(true).start();
        } catch (IOException e) {
            return List.of();
        }
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return List.of();
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.exitValue() == 0 ? parse(out) : List.of();
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return List.of();
        }
    }

    static List<String> parse(String nvidiaSmiOutput) {
        return nvidiaSmiOutput.lines().map(String::strip).filter(l -> l.matches("GPU \\d+:.*")).toList();
    }
}
