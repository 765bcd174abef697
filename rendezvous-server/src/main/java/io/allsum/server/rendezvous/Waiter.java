package io.allsum.server.rendezvous;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

/** A join parked until its generation completes, fails, or its wait runs out. Guarded by its group's lock. */
final class Waiter {

    final Slot slot;
    final CompletableFuture<JoinAnswer> answer = new CompletableFuture<>();
    ScheduledFuture<?> expiry;

    Waiter(Slot slot) {
        this.slot = slot;
    }
}
