package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.JoinPending;

/** What a join gets: the complete group (200) or where it stands (202). Errors travel as ProblemException. */
public sealed interface JoinAnswer {

    /** @param delivery counts this answer towards the delivery timer; null for a repeated answer */
    record Complete(EncodedView view, Delivery delivery) implements JoinAnswer {
        @Override
        public String toString() {
            return "Complete[group=" + view.view().group() + ", generation=" + view.view().generation() + "]";
        }
    }

    record Pending(JoinPending pending) implements JoinAnswer {
    }
}
