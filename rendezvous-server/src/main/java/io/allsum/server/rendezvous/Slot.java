package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.MemberStatus;

/** A rank taken in the current generation. Guarded by its group's lock. */
final class Slot {

    private final int rank;
    private final String instanceId;
    private final String endpoint;
    private final String host;
    private final String device;
    private long lastContactNanos;
    /** Joins of this instance parked on the server right now: while any is, the instance is alive. */
    private int parkedJoins;

    Slot(JoinCommand command, long nowNanos) {
        this.rank = command.rank();
        this.instanceId = command.instanceId();
        this.endpoint = command.endpoint();
        this.host = command.host();
        this.device = command.device();
        this.lastContactNanos = nowNanos;
    }

    int rank() {
        return rank;
    }

    String instanceId() {
        return instanceId;
    }

    boolean heldBy(String instance) {
        return instanceId.equals(instance);
    }

    long silentNanos(long nowNanos) {
        return nowNanos - lastContactNanos;
    }

    void contact(long nowNanos) {
        lastContactNanos = nowNanos;
    }

    void parked() {
        parkedJoins++;
    }

    void unparked() {
        parkedJoins--;
    }

    void clearParked() {
        parkedJoins = 0;
    }

    boolean isAlive(long nowNanos, long heartbeatTimeoutNanos) {
        return parkedJoins > 0 || nowNanos - lastContactNanos <= heartbeatTimeoutNanos;
    }

    Member toMember() {
        return new Member(rank, instanceId, endpoint, host, device);
    }

    MemberStatus toStatus(long nowNanos) {
        return new MemberStatus(rank, instanceId, endpoint, host, device, (nowNanos - lastContactNanos) / 1_000_000);
    }

    /** Names the member in failure reasons and logs. */
    String describe() {
        return "rank " + rank + " (instance " + instanceId + ")";
    }
}
