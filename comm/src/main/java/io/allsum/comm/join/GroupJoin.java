package io.allsum.comm.join;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory;
import io.allsum.comm.HotPathWarmup;
import io.allsum.comm.PeerFailedException;
import io.allsum.model.Backend;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.RankView;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One rank's side of the {@code /rendezvous} protocol, shared by the worker agent and {@code Allsum.init()}: the
 * join (this backend's contribution, the compact answer, the member list the ring needs), the communicator of the
 * completed generation, the heartbeat's verdict, the failure report and the leave. Retries and restarts are the
 * caller's policy.
 */
public final class GroupJoin {

    /** Answers that no retry will change: invalid request (or forbidden), bad token, body too large. */
    public static final Set<ProblemCode> PERMANENT_REJECTIONS =
            EnumSet.of(ProblemCode.INVALID_REQUEST, ProblemCode.UNAUTHORIZED, ProblemCode.BODY_TOO_LARGE);
    /**
     * Answers meaning this generation (or this rank's place in it) is gone; the generic codes cover answers without
     * a code of their own (a proxy), by their status alone.
     */
    public static final Set<ProblemCode> GENERATION_GONE = EnumSet.of(ProblemCode.UNKNOWN_GROUP,
            ProblemCode.GROUP_CLOSED, ProblemCode.NOT_A_MEMBER, ProblemCode.GENERATION_FAILED,
            ProblemCode.NOT_FOUND, ProblemCode.CONFLICT, ProblemCode.GONE);

    private final AllsumClient client;
    private final CommunicatorFactory factory;
    private final String group;
    private final int rank;
    private final int worldSize;
    private final String instanceId;
    private final String hostName;
    private final String device;

    /**
     * @param device the device named in the join when the backend names none (may be null)
     */
    public GroupJoin(AllsumClient client, CommunicatorFactory factory, String group, int rank, int worldSize,
                     String instanceId, String hostName, String device) {
        this.client = Objects.requireNonNull(client, "client");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.group = Objects.requireNonNull(group, "group");
        this.rank = rank;
        this.worldSize = worldSize;
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
        this.hostName = hostName;
        this.device = device;
    }

    public CommunicatorFactory factory() {
        return factory;
    }

    public AllsumClient client() {
        return client;
    }

    /**
     * Prepares this rank's contribution and joins, re-posting until the generation completes or {@code deadline}
     * passes.
     *
     * @param lastGeneration the generation this rank last joined (0: none), so that a restarted server goes above
     * @throws AllsumClientException when the server refuses, cannot be reached or the deadline passes
     * @throws CommException         when the backend cannot prepare its part (the ring's socket)
     */
    public RankView join(long lastGeneration, Duration deadline) {
        CommunicatorFactory.JoinContribution contribution = factory.prepareJoin(rank);
        String named = contribution.device() != null ? contribution.device() : device;
        JoinRequest request = new JoinRequest(group, rank, worldSize, instanceId, factory.backend(),
                contribution.uniqueId(), contribution.endpoint(), hostName, named,
                lastGeneration > 0 ? lastGeneration : null);
        return client.joinRank(request, deadline);
    }

    /**
     * The generation's view for {@link #build}: NCCL needs only the compact answer; the ring dials every member (a
     * mesh), so it fetches the member list once (cached by ETag).
     */
    public GroupView fullView(RankView answer) {
        if (factory.backend() != Backend.RING) {
            return answer.withMembers(List.of());
        }
        return answer.withMembers(client.view(group, answer.generation()).members());
    }

    /** The communicator of a completed generation, its hot path warmed; aborted again when the warm-up fails. */
    public Communicator build(GroupView view, Duration deadline) {
        Communicator communicator = factory.create(view, rank, deadline);
        try {
            HotPathWarmup.warm(communicator);
        } catch (CommException e) {
            communicator.abort();
            throw e;
        }
        return communicator;
    }

    /**
     * One heartbeat for generation {@code view}: why it is over, or empty while it stands.
     *
     * @throws AllsumClientException when the server could not say (unreachable, a transient error)
     */
    public Optional<String> heartbeat(GroupView view) {
        HeartbeatResponse answer;
        try {
            answer = client.heartbeat(group, new HeartbeatRequest(rank, instanceId, view.generation()));
        } catch (AllsumClientException e) {
            if (isAny(e, GENERATION_GONE)) {
                return Optional.of("heartbeat answered " + e.getMessage());
            }
            throw e;
        }
        if (answer.epoch() != null && view.epoch() != null && !answer.epoch().equals(view.epoch())) {
            return Optional.of("the rendezvous server restarted (epoch " + view.epoch() + " -> " + answer.epoch()
                    + ")");
        }
        if (answer.generation() != view.generation() || answer.state() == GenerationState.FAILED
                || answer.state() == GenerationState.CLOSED) {
            String why = answer.failureReason() != null ? ": " + answer.failureReason() : "";
            return Optional.of("the server has generation " + answer.generation() + " " + answer.state() + why);
        }
        return Optional.empty();
    }

    /** Tells the server generation {@code generation} failed, naming the peer when the communicator knows it. */
    public void reportFailure(long generation, CommException e) {
        // Without a named peer, this rank's own communicator is what failed.
        int failedRank = e instanceof PeerFailedException p ? p.peerRank() : rank;
        client.reportFailure(group, new FailureReport(rank, instanceId, generation, failedRank, e.getMessage()));
    }

    /** Tells the server this rank is gone, so that the others learn it at once. */
    public void leave() {
        client.leave(group, new LeaveRequest(rank, instanceId));
    }

    /** Whether the server answered a problem with one of these codes (never when it could not be reached). */
    public static boolean isAny(AllsumClientException e, Set<ProblemCode> codes) {
        return e.code().map(codes::contains).orElse(false);
    }
}
