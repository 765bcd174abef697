package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A healthy group's figures, for later validations of the same group to be held against: the median solo figure per
 * device kind, the median pair within a host and across hosts, the bus bandwidth per sweep size. Each figure has its
 * own margin, calibrated from repeated healthy runs against each other, so that a figure counts as short only when
 * it falls further below than healthy runs did. Peers cannot show a group that is slow all alike; a baseline can.
 */
public record Baseline(int worldSize, int runs, String savedAt, List<Figure> figures) {

    /** The smallest margin: healthy runs that agree closely still differ by this much on another day. */
    public static final double MIN_MARGIN = 0.10;
    public static final double MAX_MARGIN = 0.60;
    /** Margin over the worst shortfall seen among the healthy runs. */
    static final double MARGIN_FACTOR = 2.0;
    /** One run calibrates nothing: its figures get this margin. */
    public static final double UNCALIBRATED_MARGIN = 0.25;
    public static final int MAX_FIGURES = 256;

    /** {@code name}: what it is (solo/cpu, pairs/within-host, pairs/across-hosts, busbw/BYTES); GB/s. */
    public record Figure(String name, double gbps, double margin) {
    }

    public Baseline {
        figures = figures == null ? List.of() : List.copyOf(figures);
    }

    /** This run's baseline figures by name, from its places, solo figures, pair figures and bus bandwidth per size. */
    public static SortedMap<String, Double> figuresOf(List<RankPlace> places, Map<Integer, Double> solo,
                                                      Map<Pair, Double> pairs, Map<Long, Double> busbwBySize) {
        SortedMap<String, Double> out = new TreeMap<>();
        Map<String, List<Double>> soloByKind = new LinkedHashMap<>();
        solo.forEach((rank, gbps) -> soloByKind.computeIfAbsent("solo/" + deviceKind(places.get(rank).device()),
                k -> new ArrayList<>()).add(gbps));
        soloByKind.forEach((name, values) -> out.put(name, RobustStats.of(values).median()));
        List<Double> within = new ArrayList<>();
        List<Double> across = new ArrayList<>();
        pairs.forEach((pair, gbps) -> (Objects.equals(places.get(pair.low()).host(), places.get(pair.high()).host())
                ? within : across).add(gbps));
        if (!within.isEmpty()) {
            out.put("pairs/within-host", RobustStats.of(within).median());
        }
        if (!across.isEmpty()) {
            out.put("pairs/across-hosts", RobustStats.of(across).median());
        }
        busbwBySize.forEach((bytes, gbps) -> out.put("busbw/" + bytes, gbps));
        return out;
    }

    /** "cpu", or "gpu" for a device that is a GPU index. */
    static String deviceKind(String device) {
        return device == null || device.equals("cpu") ? "cpu" : "gpu";
    }

    /**
     * The baseline of healthy {@code runs} (each run's {@link #figuresOf}): per figure the median over runs, and a
     * margin of {@link #MARGIN_FACTOR} times the worst shortfall of a run below that median, within
     * [{@link #MIN_MARGIN}, {@link #MAX_MARGIN}]; one run gets {@link #UNCALIBRATED_MARGIN}. Figures some run lacks
     * are left out.
     */
    public static Baseline calibrate(int worldSize, List<? extends Map<String, Double>> runs, String savedAt) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("a baseline needs at least one healthy run");
        }
        List<Figure> figures = new ArrayList<>();
        for (String name : new TreeMap<>(runs.getFirst()).keySet()) {
            if (!runs.stream().allMatch(r -> r.containsKey(name))) {
                continue;
            }
            List<Double> values = runs.stream().map(r -> r.get(name)).toList();
            RobustStats stats = RobustStats.of(values);
            double worst = values.stream().mapToDouble(stats::shortfall).max().orElse(0);
            double margin = runs.size() == 1 ? UNCALIBRATED_MARGIN
                    : Math.min(MAX_MARGIN, Math.max(MIN_MARGIN, MARGIN_FACTOR * worst));
            figures.add(new Figure(name, stats.median(), margin));
        }
        return new Baseline(worldSize, runs.size(), savedAt, figures);
    }

    /**
     * One line per figure of this baseline that {@code current} falls short of by more than its margin; figures
     * this run did not measure are not judged.
     */
    public List<String> shortfalls(Map<String, Double> current) {
        List<String> out = new ArrayList<>();
        for (Figure f : figures) {
            Double now = current.get(f.name());
            if (now != null && f.gbps() > 0 && now < f.gbps() * (1 - f.margin())) {
                out.add(String.format(Locale.ROOT, "%s %.3g GB/s, %.0f%% below the baseline's %.3g (margin %.0f%%)",
                        f.name(), now, 100 * (f.gbps() - now) / f.gbps(), f.gbps(), 100 * f.margin()));
            }
        }
        return out;
    }

    /** The first problem with this baseline as a job's input, or null. */
    public String problem() {
        if (figures.size() > MAX_FIGURES) {
            return "at most " + MAX_FIGURES + " figures, got " + figures.size();
        }
        for (Figure f : figures) {
            if (f == null || f.name() == null || f.name().isBlank() || f.name().length() > 64) {
                return "each figure needs a name of 1..64 characters";
            }
            if (!(Double.isFinite(f.gbps()) && f.gbps() >= 0) || !(f.margin() >= 0 && f.margin() < 1)) {
                return "figure " + f.name() + ": gbps must be finite and >= 0, margin in [0, 1)";
            }
        }
        return null;
    }
}
