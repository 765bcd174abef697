package io.allsum.client;

import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.RankView;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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

    private static final String MEMBER = """
            {"rank":1,"instanceId":"warm-up-1","endpoint":"127.0.0.1:1","host":"localhost","device":"0"}""";

    /**
     * The 200 answers of the long-polls, as JSON text (writing sample records would build serializers that a client
     * never uses). Every field is set: a missing one would leave its reader to be built by the first real answer.
     * A 202 to a join (JoinPending) is left out: it comes after a wait of many seconds, when nothing is in a hurry.
     */
    private static final Map<Class<?>, String> SAMPLES = Map.of(
            RankView.class, """
                    {"group":"warm-up","generation":1,"worldSize":2,"backend":"ring","uniqueId":"AA==","rank":0,\
                    "previous":%s,"next":%s,"viewTag":"\\"1-2\\"","epoch":"epoch"}""".formatted(MEMBER, MEMBER),
            GroupView.class, """
                    {"group":"warm-up","generation":1,"worldSize":2,"backend":"ring","uniqueId":"AA==",\
                    "members":[%s,%s],"epoch":"epoch"}""".formatted(MEMBER, MEMBER),
            JobAssignment.class, """
                    {"jobId":"warm-up","seq":1,"generation":1,"spec":{"op":"all_reduce","dtype":"float32",\
                    "redop":"sum","root":0,"minBytes":8,"maxBytes":8,"stepFactor":2,"iterations":1,\
                    "warmupIterations":1,"inPlace":false,"verify":true,"timeoutSeconds":1}}""");

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
    byte[] claim(Class<?> type) {
        String sample = SAMPLES.get(type);
        return enabled && sample != null && claimed.add(type) ? sample.getBytes(StandardCharsets.UTF_8) : null;
    }

    /** The sample of a type, for tests; null when the type has none. */
    static String sample(Class<?> type) {
        return SAMPLES.get(type);
    }

    /** The types warmed up before their long-polls. */
    static Set<Class<?>> types() {
        return SAMPLES.keySet();
    }
}
