package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.MemberStatus;

/** A rank taken in the current generation. Guarded by its group's lock. */
final class Slot {

    final int rank;
    final String instanceId;
    final String endpoint;
    final String host;
    final String device;
    long lastContactNanos;
    /** Joins of this instance parked on the server right now: while any is, the instance is alive. */
    int parkedJoins;

    Slot(int rank, String instanceId, String endpoint, String host, String device, long nowNanos) {
        this.rank = rank;
        this.instanceId = instanceId;
        this.endpoint = endpoint;
        this.host = host;
        this.device = device;
        this.lastContactNanos = nowNanos;
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
