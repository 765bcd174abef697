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
 * was cleared. A suspect bad with only one cleared partner is measured once more with another cleared rank; a
 * partner bad with cleared ranks of two hosts, with cleared ranks of two hosts, and named itself when bad with both
 * again ({@link #recheck}): a crowded host stalls a healthy rank's probes now and then, and a rank cleared by a probe
 * within its host may still have a lossy link to the others.
 */
final class PartnerCheck {

    /** The decisions, the ranks a good probe cleared, and what is decided only once measured again. */
    record Verdict(List<Confirmation> confirmations, Set<Integer> cleared, List<Recheck> rechecks) {
    }

    /**
     * {@code rank} probed again with {@code probes} cleared ranks other than {@code avoid}: {@code provisional} stands
     * when every probe is bad again.
     */
    record Recheck(Confirmation provisional, int rank, int probes, Set<Integer> avoid) {
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
        List<Recheck> rechecks = new ArrayList<>();
        plan.probes().forEach((s, own) -> {
            String seen = " with known-good partners, against " + against + ": " + describeAll(own, describe);
            if (s.kind() == Suspect.Kind.LINK) {
                boolean confirmed = bad.get(own.get(0)) && !bad.get(own.get(1)) && !bad.get(own.get(2));
                out.add(new Confirmation(s.key(), confirmed, (confirmed ? "confirmed" : "not confirmed") + seen));
                return;
            }
            boolean anyGood = own.stream().anyMatch(p -> !bad.get(p));
            List<Integer> clearedPartners = own.stream().map(p -> other(p, s.rank())).filter(cleared::contains)
                    .toList();
            if (anyGood) {
                out.add(new Confirmation(s.key(), false, "not confirmed" + seen));
            } else if (clearedPartners.size() == 2) {
                out.add(new Confirmation(s.key(), true, "confirmed" + seen));
            } else if (clearedPartners.size() == 1) { // the other partner's fault, maybe: once more, with another
                rechecks.add(new Recheck(new Confirmation(s.key(), true, "bad with one cleared partner" + seen), s.rank(),
                        1, Set.of(s.rank(), clearedPartners.getFirst())));
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
                rechecks.add(new Recheck(new Confirmation(Suspect.key(Suspect.Kind.RANK, partner, -1), true,
                        "found while confirming: chosen as a known-good partner, it was slow or stalled with every "
                                + "rank it was measured with, against " + against + ": " + describeAll(own, describe),
                        partner), partner, 2, Set.of(partner)));
            }
        }
        return new Verdict(out, Set.copyOf(cleared), List.copyOf(rechecks));
    }

    /**
     * Each recheck's probes with the best cleared ranks ({@code byPreference} best first) it does not avoid, two of
     * them on two hosts; absent where there are not enough.
     */
    static Map<Recheck, List<Pair>> recheckPlan(List<Recheck> rechecks, List<Integer> byPreference,
                                                Set<Integer> cleared, List<String> hosts) {
        Map<Recheck, List<Pair>> out = new LinkedHashMap<>();
        for (Recheck r : rechecks) {
            List<Integer> with = new ArrayList<>();
            for (int c : byPreference) {
                if (!r.avoid().contains(c) && cleared.contains(c) && with.size() < r.probes()
                        && (with.isEmpty() || spread(List.of(with.getFirst(), c), hosts) == 2)) {
                    with.add(c);
                }
            }
            if (with.size() == r.probes()) {
                out.put(r, with.stream().map(c -> Pair.of(r.rank(), c)).toList());
            }
        }
        return out;
    }

    /**
     * The recheck's decision: it stands when bad again in all of {@code again}. Without probes (not enough cleared
     * ranks) a found partner is not named, and a suspect's finding stands.
     */
    static Confirmation recheck(Recheck r, List<Pair> again, Map<Pair, Boolean> bad, Function<Pair, String> describe) {
        Confirmation c = r.provisional();
        boolean found = c.foundRank() != null;
        if (again == null) {
            return new Confirmation(c.key(), !found, c.how() + "; no other cleared ranks to measure it again with"
                    + (found ? "" : ", so the finding stands"), c.foundRank());
        }
        boolean confirmed = again.stream().allMatch(bad::get);
        return new Confirmation(c.key(), confirmed, c.how() + "; measured again with cleared ranks, "
                + (confirmed ? "slow or stalled again: " : "fine this time: ") + describeAll(again, describe),
                c.foundRank());
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
