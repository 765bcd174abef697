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

    /**
     * The CUDA and NCCL versions this host offers, for the JSON record: CUDA as the driver reports it (nvidia-smi's
     * "CUDA Version"), NCCL from the file name libnccl.so.2 resolves to (ALLSUM_NCCL_LIB_DIR first, else ldconfig's
     * cache). A value is null when there is no GPU driver or no libnccl.
     */
    public static java.util.Map<String, String> versions() {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        out.put("cuda", firstMatch(run("nvidia-smi"), java.util.regex.Pattern.compile("CUDA Version:\\s*([0-9.]+)")));
        String dir = System.getenv("ALLSUM_NCCL_LIB_DIR");
        String nccl = null;
        if (dir != null && !dir.isBlank()) {
            nccl = ncclVersionOf(java.nio.file.Path.of(dir, "libnccl.so.2"));
        }
        if (nccl == null) {
            String cache = firstMatch(run("ldconfig", "-p"), java.util.regex.Pattern.compile("libnccl\\.so\\.2 .*=> (\\S+)"));
            nccl = cache == null ? null : ncclVersionOf(java.nio.file.Path.of(cache));
        }
        out.put("nccl", nccl);
        return out;
    }

    /** 2.28.9 from a path that resolves to libnccl.so.2.28.9; null when it does not exist. */
    static String ncclVersionOf(java.nio.file.Path lib) {
        try {
            String name = lib.toRealPath().getFileName().toString();
            return name.startsWith("libnccl.so.") ? name.substring("libnccl.so.".length()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String firstMatch(String text, java.util.regex.Pattern pattern) {
        if (text == null) {
            return null;
        }
        java.util.regex.Matcher m = pattern.matcher(text);
        return m.find() ? m.group(1) : null;
    }

    /** stdout of a short command, or null when it is missing, fails or takes more than 10 s. */
    private static String run(String... command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return null;
        }
        // Read while waiting, so that a long output cannot fill the pipe and a hung command cannot block the read.
        java.util.concurrent.CompletableFuture<String> output = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return null;
            }
        }, java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return null;
            }
            return p.exitValue() == 0 ? output.get(2, TimeUnit.SECONDS) : null;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return null;
        }
    }
}
