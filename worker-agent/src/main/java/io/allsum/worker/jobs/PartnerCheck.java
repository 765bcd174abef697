package io.allsum.worker.jobs;

import io.allsum.model.validate.RankValidation.Confirmation;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.Suspect;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Which suspects stand after each is measured again with two partners chosen as known-good, and whether a partner
 * was bad instead. The two partners are also measured with each other, so that a partner which stalls (and so made
 * its probes bad) is caught: a good probe clears both its ends, and a rank is judged only by probes whose other end
 * was cleared. A partner bad with cleared ranks of two hosts is measured once more with cleared ranks of two hosts
 * ({@link #recheck}), and named itself when bad with both again: a crowded host stalls a healthy rank's probes now and
 * then, and a rank cleared by a probe within its host may still have a lossy link to the others.
 */
final class PartnerCheck {

    /** The decisions, and the ranks a good probe cleared. */
    record Verdict(List<Confirmation> confirmations, Set<Integer> cleared) {
    }

    /** What to measure: each suspect's probes, and the partners' pair with each other. */
    record Plan(Map<Suspect, List<Pair>> probes, Pair control) {

        List<Pair> pairs() {
            List<Pair> out = new ArrayList<>();
            probes.values().forEach(own -> own.forEach(p -> {
                if (!out.contains(p)) {
                    out.add(p);
                }
            }));
            if (control != null && !out.contains(control)) {
                out.add(control);
            }
            return out;
        }
    }

    private PartnerCheck() {
    }

    /**
     * A rank or straggler is measured with both partners; a link once more, and each of its ends with a partner. Null
     * with fewer than 2 partners.
     */
    static Plan plan(List<Suspect> checked, List<Integer> partners) {
        if (partners.size() < 2) {
            return null;
        }
        int first = partners.get(0);
        int second = partners.get(1);
        Map<Suspect, List<Pair>> probes = new LinkedHashMap<>();
        for (Suspect s : checked) {
            probes.put(s, s.kind() == Suspect.Kind.LINK
                    ? List.of(Pair.of(s.rank(), s.peerRank()), Pair.of(s.rank(), first), Pair.of(s.peerRank(), second))
                    : List.of(Pair.of(s.rank(), first), Pair.of(s.rank(), second)));
        }
        return new Plan(probes, Pair.of(first, second));
    }

    /**
     * @param hosts    each rank's host, by rank
     * @param bad      whether each planned pair's probe was slow or stalled
     * @param describe each probe's figures, for the confirmation's text
     * @param against  what the probes were judged against, for the text
     */
    static Verdict judge(Plan plan, List<String> hosts, Map<Pair, Boolean> bad, Function<Pair, String> describe,
                         String against) {
        Set<Integer> cleared = new HashSet<>();
        plan.pairs().forEach(p -> {
            if (!bad.get(p)) {
                cleared.add(p.low());
                cleared.add(p.high());
            }
        });
        List<Confirmation> out = new ArrayList<>();
        plan.probes().forEach((s, own) -> {
            String seen = " with known-good partners, against " + against + ": " + describeAll(own, describe);
            if (s.kind() == Suspect.Kind.LINK) {
                boolean confirmed = bad.get(own.get(0)) && !bad.get(own.get(1)) && !bad.get(own.get(2));
                out.add(new Confirmation(s.key(), confirmed, (confirmed ? "confirmed" : "not confirmed") + seen));
                return;
            }
            boolean anyGood = own.stream().anyMatch(p -> !bad.get(p));
            boolean byCleared = own.stream().anyMatch(p -> cleared.contains(other(p, s.rank())));
            if (anyGood) {
                out.add(new Confirmation(s.key(), false, "not confirmed" + seen));
            } else if (byCleared) {
                out.add(new Confirmation(s.key(), true, "confirmed" + seen));
            } else {
                out.add(new Confirmation(s.key(), true, "not cleared: both partners were slow with each other too ("
                        + describe.apply(plan.control()) + "), so the finding stands" + seen));
            }
        });
        for (int partner : List.of(plan.control().low(), plan.control().high())) {
            if (cleared.contains(partner)) { // partners are never suspects: plan() takes them from the others
                continue;
            }
            List<Pair> own = plan.pairs().stream().filter(p -> p.has(partner)).toList();
            List<Integer> by = own.stream().map(p -> other(p, partner)).filter(cleared::contains).toList();
            if (spread(by, hosts) >= 2) { // every probe of it was bad
                out.add(new Confirmation(Suspect.key(Suspect.Kind.RANK, partner, -1), true,
                        "found while confirming: chosen as a known-good partner, it was slow or stalled with every "
                                + "rank it was measured with, against " + against + ": " + describeAll(own, describe),
                        partner));
            }
        }
        return new Verdict(out, Set.copyOf(cleared));
    }

    /**
     * Each found partner's probes with the two best cleared ranks of two different hosts, {@code byPreference}
     * ordered best first (none where the cleared ranks are on fewer than 2 hosts).
     */
    static Map<Integer, List<Pair>> recheckPlan(List<Confirmation> found, List<Integer> byPreference,
                                                Set<Integer> cleared, List<String> hosts) {
        Map<Integer, List<Pair>> out = new LinkedHashMap<>();
        for (Confirmation c : found) {
            int rank = c.foundRank();
            List<Integer> with = new ArrayList<>();
            for (int r : byPreference) {
                if (r != rank && cleared.contains(r) && with.size() < 2
                        && (with.isEmpty() || spread(List.of(with.getFirst(), r), hosts) == 2)) {
                    with.add(r);
                }
            }
            if (with.size() == 2) {
                out.put(rank, List.of(Pair.of(rank, with.get(0)), Pair.of(rank, with.get(1))));
            }
        }
        return out;
    }

    /** A found partner stands when bad again with both cleared ranks of its {@code again} probes. */
    static Confirmation recheck(Confirmation found, List<Pair> again, Map<Pair, Boolean> bad,
                                Function<Pair, String> describe) {
        if (again == null) {
            return new Confirmation(found.key(), false, found.how() + "; no cleared ranks of two hosts to measure "
                    + "it again with", found.foundRank());
        }
        boolean confirmed = again.stream().allMatch(bad::get);
        return new Confirmation(found.key(), confirmed, found.how() + "; measured again with cleared ranks, "
                + (confirmed ? "slow or stalled again: " : "fine this time: ") + describeAll(again, describe),
                found.foundRank());
    }

    /** How many hosts {@code ranks} are on; how many ranks, where the whole group is on one host. */
    private static long spread(List<Integer> ranks, List<String> hosts) {
        boolean oneHost = hosts.stream().map(String::valueOf).distinct().count() == 1;
        return oneHost ? ranks.stream().distinct().count()
                : ranks.stream().map(r -> String.valueOf(hosts.get(r))).distinct().count();
    }

    private static int other(Pair p, int rank) {
        return p.low() == rank ? p.high() : p.low();
    }

    private static String describeAll(List<Pair> pairs, Function<Pair, String> describe) {
        return String.join("; ", pairs.stream().map(describe).toList());
    }
}
