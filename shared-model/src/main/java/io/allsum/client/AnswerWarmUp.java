package io.allsum.client;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;
import tools.jackson.databind.json.JsonMapper;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Sample answers of the long-polls, which the client reads through its own read path (the transport's answer parsing,
 * gzip check, JSON reader) before its first long-poll of each type is sent, once per JVM and type.
 *
 * <p>Why: in a fresh JVM the first read of an answer costs 30-120 ms: Jackson introspects the record and builds its
 * deserializers, and the transport's first answer loads classes and spins lambdas; a JDK AOT cache saves only the
 * class loading. A worker's first join is parked on the server until the last rank arrives, so all of that used to
 * fall between the last join and the rank holding its view, the very time a rendezvous is measured by, and a host
 * of freshly started workers paid it all at once. Reading a sample first (every field set, so that every nested
 * reader is built too) moves the cost to before the request, where it overlaps the wait for the other ranks
 * (docs/benchmarks.md, "A fresh worker's first rendezvous").
 *
 * <p>{@code -Dallsum.client.answerWarmUp=false} turns it off, to measure the cold path.
 */
final class AnswerWarmUp {

    static final String SWITCH = "allsum.client.answerWarmUp";

    private static final Member SAMPLE_MEMBER = new Member(1, "warm-up-1", "127.0.0.1:1", "localhost", "0");

    /** Every field set: a null field would leave its reader to be built by the first real answer. */
    private static final Map<Class<?>, Supplier<Object>> SAMPLES = Map.of(
            RankView.class, () -> new RankView("warm-up", 1, 2, Backend.RING, "AA==", 0, SAMPLE_MEMBER,
                    SAMPLE_MEMBER, "\"1-2\"", "epoch"),
            GroupView.class, () -> new GroupView("warm-up", 1, 2, Backend.RING, "AA==",
                    List.of(SAMPLE_MEMBER, SAMPLE_MEMBER), "epoch"),
            JoinPending.class, () -> new JoinPending("warm-up", 1, List.of(0), List.of(1),
                    Instant.ofEpochSecond(1_700_000_000L), 1, "epoch"),
            JobAssignment.class, () -> new JobAssignment("warm-up", 1, 1, new JobSpec(CollectiveOp.ALL_REDUCE,
                    DataType.FLOAT32, ReduceOp.SUM, 0, 8L, 8L, 2, 1, 1, Boolean.FALSE, Boolean.TRUE, 1)));

    /** The one the clients of this JVM share: the readers they build are the shared mapper's. */
    static final AnswerWarmUp THIS_JVM = new AnswerWarmUp(Boolean.parseBoolean(System.getProperty(SWITCH, "true")));

    private final boolean enabled;
    private final Set<Class<?>> claimed = ConcurrentHashMap.newKeySet();

    AnswerWarmUp(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * A sample answer of {@code type} as JSON the first time it is asked for (with the warm-up on and a sample for
     * the type); null otherwise.
     */
    byte[] claim(JsonMapper json, Class<?> type) {
        Supplier<Object> sample = SAMPLES.get(type);
        return enabled && sample != null && claimed.add(type) ? json.writeValueAsBytes(sample.get()) : null;
    }

    /** The sample read for a type, for tests; null when the type has none. */
    static Object sample(Class<?> type) {
        Supplier<Object> sample = SAMPLES.get(type);
        return sample == null ? null : sample.get();
    }

    /** The types warmed up before their long-polls. */
    static Set<Class<?>> types() {
        return SAMPLES.keySet();
    }
}
