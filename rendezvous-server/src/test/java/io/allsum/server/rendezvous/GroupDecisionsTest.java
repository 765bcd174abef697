package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.UniqueId;
import io.allsum.server.rendezvous.GroupDecisions.Action;
import io.allsum.server.rendezvous.GroupDecisions.AddToParticipants;
import io.allsum.server.rendezvous.GroupDecisions.AnswerComplete;
import io.allsum.server.rendezvous.GroupDecisions.AnswerPending;
import io.allsum.server.rendezvous.GroupDecisions.DropSlot;
import io.allsum.server.rendezvous.GroupDecisions.FailGeneration;
import io.allsum.server.rendezvous.GroupDecisions.Invalid;
import io.allsum.server.rendezvous.GroupDecisions.MarkComplete;
import io.allsum.server.rendezvous.GroupDecisions.OpenGeneration;
import io.allsum.server.rendezvous.GroupDecisions.Park;
import io.allsum.server.rendezvous.GroupDecisions.Reject;
import io.allsum.server.rendezvous.GroupDecisions.Remove;
import io.allsum.server.rendezvous.GroupDecisions.Respond;
import io.allsum.server.rendezvous.GroupDecisions.Touch;
import io.allsum.server.rendezvous.GroupDecisions.Withdraw;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The rendezvous rules on plain state: no HTTP, no threads, no clock but the numbers passed in. */
class GroupDecisionsTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_000 * SECOND;

    private final GroupDecisions decisions =
            new GroupDecisions(Duration.ofSeconds(10), Duration.ofSeconds(300), Duration.ofMinutes(10));

    @Test
    void firstJoinTakesItsRankAndTheLastOneCompletesTheGeneration() {
        Group group = joining("g", 2, Backend.RING);

        assertThat(decisions.join(group, ring("g", 0, 2, "w0"), T0, true)).isInstanceOf(AddToParticipants.class);
        add(group, ring("g", 0, 2, "w0"), T0);
        assertThat(decisions.join(group, ring("g", 0, 2, "w0"), T0, true)).isInstanceOf(Park.class);
        assertThat(decisions.join(group, ring("g", 0, 2, "w0"), T0, false)).isInstanceOf(AnswerPending.class);
        add(group, ring("g", 1, 2, "w1"), T0);
        assertThat(decisions.join(group, ring("g", 1, 2, "w1"), T0, true)).isInstanceOf(MarkComplete.class);
    }

    @Test
    void completeGenerationAnswersItsOwnMemberAgainAndRefusesALiveHoldersRival() {
        Group group = complete("g", ring("g", 0, 1, "w0"));

        assertThat(decisions.join(group, ring("g", 0, 1, "w0"), T0 + SECOND, true)).isInstanceOf(AnswerComplete.class);
        Action rival = decisions.join(group, ring("g", 0, 1, "other"), T0 + 4 * SECOND, true);

        assertThat(rival).isInstanceOfSatisfying(Reject.class, reject -> {
            assertThat(reject.code()).isEqualTo(ProblemCode.RANK_HELD);
            assertThat(reject.detail()).contains("held by live instance w0, not other");
            assertThat(reject.retryAfter()).isEqualTo(Duration.ofSeconds(6));
        });
    }

    @Test
    void aSilentHolderOfACompleteGenerationFailsItWhenAnotherInstanceJoinsForItsRank() {
        Group group = complete("g", ring("g", 0, 1, "w0"));

        Action action = decisions.join(group, ring("g", 0, 1, "w0-restarted"), T0 + 11 * SECOND, true);

        assertThat(action).isInstanceOfSatisfying(FailGeneration.class, fail -> {
            assertThat(fail.cause()).isEqualTo(FailureCause.HEARTBEAT_TIMEOUT);
            assertThat(fail.what()).contains("rank 0 (instance w0) sent no heartbeat for 11.0 s");
        });
    }

    @Test
    void aJoinToAFailedGenerationOpensTheNextOne() {
        Group group = complete("g", ring("g", 0, 1, "w0"));
        group.fail("test");

        assertThat(decisions.join(group, ring("g", 0, 1, "w0"), T0, true))
                .isEqualTo(new OpenGeneration(2));
    }

    @Test
    void generationsContinueAboveTheHighestThatAReturningMemberReports() {
        Group fresh = joining("g", 2, Backend.RING);
        Group failed = complete("h", ring("h", 0, 1, "w0"));
        failed.fail("test");

        assertThat(decisions.join(fresh, returning(ring("g", 0, 2, "w0"), 15), T0, true))
                .isEqualTo(new GroupDecisions.RaiseGeneration(16));
        fresh.renumber(16);
        assertThat(decisions.join(fresh, returning(ring("g", 1, 2, "w1"), 15), T0, true))
                .isInstanceOf(AddToParticipants.class);
        assertThat(decisions.join(fresh, returning(ring("g", 1, 2, "w1"), 9), T0, true))
                .isInstanceOf(AddToParticipants.class);
        assertThat(decisions.join(failed, returning(ring("h", 0, 1, "w0"), 40), T0, true))
                .isEqualTo(new OpenGeneration(41));
    }

    @Test
    void aJoiningSlotOfADeadInstanceIsReplacedAndOfALiveOneIsNot() {
        Group group = joining("g", 2, Backend.RING);
        add(group, ring("g", 0, 2, "w0"), T0);

        assertThat(decisions.join(group, ring("g", 0, 2, "w0b"), T0 + 5 * SECOND, true))
                .isInstanceOfSatisfying(Reject.class, r -> assertThat(r.code()).isEqualTo(ProblemCode.RANK_HELD));
        assertThat(decisions.join(group, ring("g", 0, 2, "w0b"), T0 + 11 * SECOND, true))
                .isEqualTo(new DropSlot(0, "replaced by instance w0b"));
    }

    @Test
    void rankZeroReplayingTheIdOfAnEarlierGenerationIsRefusedAsStale() {
        UniqueId id = UniqueId.of(new byte[128]);
        JoinCommand rank0 = nccl("n", 0, 1, "w0", id);
        Group group = complete("n", rank0);
        group.fail("test");
        group.openGeneration(2, T0, 300 * SECOND);

        Action action = decisions.join(group, nccl("n", 0, 1, "w0b", id), T0, true);

        assertThat(action).isInstanceOfSatisfying(Reject.class, reject -> {
            assertThat(reject.code()).isEqualTo(ProblemCode.STALE_UNIQUE_ID);
            assertThat(reject.detail()).doesNotContain(id.base64());
        });
        UniqueId fresh = UniqueId.of(randomBytes());
        assertThat(decisions.join(group, nccl("n", 0, 1, "w0b", fresh), T0, true))
                .isInstanceOf(AddToParticipants.class);
    }

    @Test
    void worldSizeOrBackendOtherThanTheGroupsIsIncompatible() {
        Group group = joining("g", 2, Backend.RING);

        assertThat(decisions.incompatibility(group, ring("g", 0, 3, "w0")))
                .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo(ProblemCode.WORLD_SIZE_MISMATCH));
        assertThat(decisions.incompatibility(group, nccl("g", 1, 2, "w1", null)))
                .hasValueSatisfying(r -> assertThat(r.code()).isEqualTo(ProblemCode.BACKEND_MISMATCH));
        assertThat(decisions.incompatibility(group, ring("g", 1, 2, "w1"))).isEmpty();
    }

    @Test
    void heartbeatsTouchMembersRefuseStrangersAndTellOldGenerationsWhereTheGroupIs() {
        Group group = complete("g", ring("g", 0, 1, "w0"));

        assertThat(decisions.heartbeat(group, 0, "w0", 1)).isEqualTo(new Touch(0));
        assertThat(decisions.heartbeat(group, 0, "intruder", 1))
                .isInstanceOfSatisfying(Reject.class, r -> assertThat(r.code()).isEqualTo(ProblemCode.NOT_A_MEMBER));
        assertThat(decisions.heartbeat(group, 0, "w0", 7)).isInstanceOf(Respond.class);
    }

    @Test
    void aFailureReportFailsTheCurrentGenerationOnlyFromAMemberNamingARealRank() {
        Group group = complete("g", ring("g", 0, 2, "w0"), ring("g", 1, 2, "w1"));

        assertThat(decisions.reportFailure(group, 0, "w0", 1, 1, "peer\nclosed"))
                .isInstanceOfSatisfying(FailGeneration.class, fail -> {
                    assertThat(fail.cause()).isEqualTo(FailureCause.REPORTED_FAILURE);
                    assertThat(fail.what()).isEqualTo("rank 1 (instance w1) was reported failed by rank 0: peer closed");
                });
        assertThat(decisions.reportFailure(group, 0, "w0", 1, 2, null)).isEqualTo(
                new Invalid("failedRank", "must be between 0 and 1, got 2"));
        assertThat(decisions.reportFailure(group, 0, "wX", 1, 1, null)).isInstanceOf(Reject.class);
        assertThat(decisions.reportFailure(group, 0, "w0", 0 + 2, 1, null)).isInstanceOf(Respond.class);
    }

    @Test
    void leavingFailsACompleteGenerationAndWithdrawsFromAJoiningOne() {
        Group done = complete("g", ring("g", 0, 1, "w0"));
        Group joining = joining("h", 2, Backend.RING);
        add(joining, ring("h", 1, 2, "w1"), T0);

        assertThat(decisions.leave(done, 0, "w0")).isInstanceOfSatisfying(FailGeneration.class,
                fail -> assertThat(fail.cause()).isEqualTo(FailureCause.MEMBER_LEFT));
        assertThat(decisions.leave(joining, 1, "w1")).isEqualTo(new Withdraw(1));
        assertThat(decisions.leave(joining, 1, "someone-else")).isInstanceOf(Respond.class);
    }

    @Test
    void sweepFailsLateGenerationsDropsVanishedJoinersAndTimesOutSilentMembers() {
        Group late = joining("late", 4, Backend.RING);
        add(late, ring("late", 2, 4, "w2"), T0);
        Group vanished = joining("vanished", 2, Backend.RING);
        add(vanished, ring("vanished", 0, 2, "w0"), T0);
        Group silent = complete("silent", ring("silent", 0, 1, "w0"));

        assertThat(decisions.sweep(late, T0 + 301 * SECOND)).singleElement()
                .isInstanceOfSatisfying(FailGeneration.class, fail -> {
                    assertThat(fail.cause()).isEqualTo(FailureCause.JOIN_DEADLINE);
                    assertThat(fail.what()).contains("missing ranks [0-1, 3], 1 of 4 joined");
                });
        assertThat(decisions.sweep(vanished, T0 + 11 * SECOND)).singleElement()
                .isEqualTo(new DropSlot(0, "not heard from for 11.0 s"));
        assertThat(decisions.sweep(vanished, T0 + 9 * SECOND)).isEmpty();
        assertThat(decisions.sweep(silent, T0 + 11 * SECOND)).singleElement()
                .isInstanceOfSatisfying(FailGeneration.class,
                        fail -> assertThat(fail.cause()).isEqualTo(FailureCause.HEARTBEAT_TIMEOUT));
    }

    @Test
    void anIdleGroupWithoutParkedJoinsIsEvicted() {
        Group idle = joining("idle", 2, Backend.RING);

        assertThat(decisions.eviction(idle, T0 + 599 * SECOND)).isEmpty();
        assertThat(decisions.eviction(idle, T0 + 601 * SECOND)).get().extracting(Remove::why).asString()
                .startsWith("evicted after 601.0 s");
    }

    // ---- state builders

    private static Group joining(String name, int worldSize, Backend backend) {
        Group group = new Group(name, worldSize, backend);
        group.openGeneration(1, T0, 300 * SECOND);
        return group;
    }

    private static void add(Group group, JoinCommand command, long now) {
        group.addSlot(new Slot(command, now), command.uniqueId());
    }

    private static Group complete(String name, JoinCommand... members) {
        Group group = joining(name, members[0].worldSize(), members[0].backend());
        for (JoinCommand member : members) {
            add(group, member, T0);
        }
        group.complete(new EncodedView(new GroupView(name, group.generation(), group.worldSize(), group.backend(),
                null, group.slots().stream().map(Slot::toMember).toList()), "test-" + name));
        return group;
    }

    private static JoinCommand ring(String group, int rank, int worldSize, String instance) {
        return new JoinCommand(group, rank, worldSize, instance, Backend.RING, null, "127.0.0.1:" + (9000 + rank), null,
                null, 0);
    }

    private static JoinCommand returning(JoinCommand command, long lastGeneration) {
        return new JoinCommand(command.group(), command.rank(), command.worldSize(), command.instanceId(), command.backend(),
                command.uniqueId(), command.endpoint(), command.host(), command.device(), lastGeneration);
    }

    private static JoinCommand nccl(String group, int rank, int worldSize, String instance, UniqueId id) {
        return new JoinCommand(group, rank, worldSize, instance, Backend.NCCL, id, null, null, null, 0);
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[128];
        ThreadLocalRandom.current().nextBytes(bytes);
        return bytes;
    }
}
