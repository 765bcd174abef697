package io.allsum.server.rendezvous;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/** A join parked until its generation completes, fails, or its wait runs out. Guarded by its group's lock. */
final class Waiter {

    private final Slot slot;
    private final CompletableFuture<JoinAnswer> answer = new CompletableFuture<>();
    private Future<?> expiry;

    Waiter(Slot slot) {
        this.slot = slot;
    }

    Slot slot() {
        return slot;
    }

    CompletableFuture<JoinAnswer> answer() {
        return answer;
    }

    void expiresBy(Future<?> timer) {
        this.expiry = timer;
    }

    /** Called under the lock when the waiter leaves the group's set; the answer itself is sent after unlock. */
    void cancelExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
        }
    }
}
