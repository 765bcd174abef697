package io.allsum.model.validate;

import io.allsum.model.validate.ValidationResult.PairFigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pair figures of a validation gathered by host pair, for groups with several ranks on a host: how each host
 * reaches each other host (and itself), the median and lowest GB/s over the rank pairs between them.
 */
public final class HostPairs {

    /** Hosts in the order of their lowest rank; {@code host} is never after {@code peerHost} in that order. */
    public record HostPair(String host, String peerHost, int pairs, double medianGBps, double lowestGBps) {
    }

    private HostPairs() {
    }

    /** None unless the ranks span two or more hosts and some host holds two or more ranks. */
    public static List<HostPair> of(List<RankPlace> ranks, List<PairFigure> pairs) {
        Map<Integer, String> hostOf = new LinkedHashMap<>();
        Map<String, Integer> order = new LinkedHashMap<>();
        ranks.stream().sorted(java.util.Comparator.comparingInt(RankPlace::rank)).forEach(p -> {
            hostOf.put(p.rank(), p.host());
            order.putIfAbsent(p.host(), order.size());
        });
        boolean shared = hostOf.size() > order.size();
        if (order.size() < 2 || !shared) {
            return List.of();
        }
        Map<String, List<Double>> byPair = new LinkedHashMap<>();
        for (String a : order.keySet()) {
            for (String b : order.keySet()) {
                if (order.get(a) <= order.get(b)) {
                    byPair.put(a + "\n" + b, new ArrayList<>());
                }
            }
        }
        for (PairFigure p : pairs) {
            String a = hostOf.get(p.low());
            String b = hostOf.get(p.high());
            if (a != null && b != null) {
                byPair.get(order.get(a) <= order.get(b) ? a + "\n" + b : b + "\n" + a).add(p.gbps());
            }
        }
        List<HostPair> out = new ArrayList<>();
        byPair.forEach((key, figures) -> {
            if (!figures.isEmpty()) {
                String[] hosts = key.split("\n", 2);
                out.add(new HostPair(hosts[0], hosts[1], figures.size(), RobustStats.of(figures).median(),
                        figures.stream().mapToDouble(Double::doubleValue).min().orElseThrow()));
            }
        });
        return out;
    }
}
