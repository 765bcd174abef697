package io.allsum.client;

import io.allsum.client.ClientTransport.Answer;
import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A rank's join: one post long-polls the server (200: the completed group, 202: where it stands), and the loop
 * posts again after each 202 until the generation completes or the join's deadline passes.
 */
final class JoinLoop {

    /** A join never asks the server to hold it longer than this, so a dead connection is noticed in time. */
    static final Duration MAX_JOIN_WAIT = Duration.ofSeconds(Protocol.DEFAULT_JOIN_WAIT_SECONDS);
    private static final int MAX_RANKS_IN_MESSAGE = 16;

    private final ClientTransport transport;
    private final ClientCodec codec;

    JoinLoop(ClientTransport transport, ClientCodec codec) {
        this.transport = transport;
        this.codec = codec;
    }

    /** One join post: exactly one of {@code complete} and {@code pending} is set. */
    record Joined<V>(V complete, JoinPending pending) {
    }

    /**
     * Posts until the group completes; {@code answerType} is {@link GroupView} (the full view) or {@link RankView}.
     *
     * @throws AllsumClientException ({@link AllsumClientException#timedOut()}) naming the missing ranks
     */
    <V> V untilComplete(JoinRequest request, Duration deadline, Class<V> answerType) {
        Objects.requireNonNull(request, "request");
        long end = ClientTransport.deadlineIn(deadline);
        JoinPending last = null;
        while (true) {
            long remaining = end - System.nanoTime();
            if (remaining <= 0) {
                throw timedOut(request, deadline, last);
            }
            Duration wait = joinWait(Duration.ofNanos(remaining));
            long sent = System.nanoTime();
            Joined<V> outcome = once(request, wait, end, answerType);
            if (outcome.complete() != null) {
                return outcome.complete();
            }
            last = outcome.pending();
            // A server that answered 202 well before our wait is asking us to slow down: honour its Retry-After.
            if (System.nanoTime() - sent < wait.toNanos() / 2 && last.retryAfterSeconds() > 0) {
                transport.sleepUntil(Math.min(end, System.nanoTime()
                        + TimeUnit.SECONDS.toNanos(last.retryAfterSeconds())));
            }
        }
    }

    /** Server-side wait for the next join post: whole seconds, at least 1, at most 30 and the time left. */
    static Duration joinWait(Duration remaining) {
        long seconds = Math.min(MAX_JOIN_WAIT.toSeconds(), remaining.toSeconds());
        return Duration.ofSeconds(Math.max(1, seconds));
    }

    /** One join post, waiting at most {@code wait} server-side and retrying until {@code retryDeadline}. */
    <V> Joined<V> once(JoinRequest request, Duration wait, long retryDeadline, Class<V> answerType) {
        Objects.requireNonNull(request, "request");
        long waitSeconds = Math.max(0, wait.toSeconds());
        boolean rankView = answerType == RankView.class;
        String path = ClientPaths.query(Protocol.RENDEZVOUS_PATH, Protocol.WAIT_PARAM, waitSeconds,
                Protocol.VIEW_PARAM, rankView ? Protocol.VIEW_RANK : null);
        Answer answer = transport.exchange("POST", path, codec.write(request),
                Duration.ofSeconds(waitSeconds).plus(HttpAllsumClient.LONG_POLL_MARGIN), retryDeadline, null,
                rankView ? HttpAllsumClient.SMALL_ANSWER_LIMIT : HttpAllsumClient.LARGE_ANSWER_LIMIT);
        return switch (answer.status()) {
            case 200 -> new Joined<>(codec.read(answer, answerType, "POST", path), null);
            case 202 -> new Joined<>(null, withRetryAfter(codec.read(answer, JoinPending.class, "POST", path), answer));
            default -> throw codec.problem(answer, "POST", path);
        };
    }

    /** The pending join with the answer's {@code Retry-After} header where its body named no pause. */
    private static JoinPending withRetryAfter(JoinPending pending, Answer answer) {
        if (pending.retryAfterSeconds() > 0) {
            return pending;
        }
        long header = ProblemAnswers.retryAfter(answer.headers()).map(Duration::toSeconds).orElse(0L);
        return new JoinPending(pending.group(), pending.generation(), pending.joinedRanks(), pending.missingRanks(),
                pending.joinDeadline(), (int) Math.min(Integer.MAX_VALUE, header), pending.epoch());
    }

    private static AllsumClientException timedOut(JoinRequest request, Duration deadline, JoinPending last) {
        List<Integer> missing = last == null || last.missingRanks() == null ? List.of() : last.missingRanks();
        String detail = "join of group '" + request.group() + "' as rank " + request.rank() + " did not complete within "
                + deadline + (last == null ? "" : "; missing ranks " + abbreviate(missing)
                + " (" + (last.joinedRanks() == null ? 0 : last.joinedRanks().size()) + " of " + request.worldSize()
                + " joined, generation " + last.generation() + ")");
        return new AllsumClientException(0, "Join deadline passed", detail, true, missing, null);
    }

    static String abbreviate(List<Integer> ranks) {
        if (ranks.size() <= MAX_RANKS_IN_MESSAGE) {
            return ranks.toString();
        }
        return ranks.subList(0, MAX_RANKS_IN_MESSAGE).toString().replace("]", ", ... " + (ranks.size()
                - MAX_RANKS_IN_MESSAGE) + " more]");
    }
}
