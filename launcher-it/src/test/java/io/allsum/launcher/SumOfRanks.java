package io.allsum.launcher;

import io.allsum.Allsum;
import io.allsum.Communicator;
import io.allsum.model.ReduceOp;

/** A library program for {@link RunCommandIT}: each rank all-reduces rank + 1, so every rank prints N(N+1)/2. */
public final class SumOfRanks {

    private SumOfRanks() {
    }

    public static void main(String[] args) {
        try (Communicator comm = Allsum.init()) {
            int[] value = {comm.rank() + 1};
            comm.allReduce(value, ReduceOp.SUM);
            System.out.println("sum " + value[0]);
            System.err.println("rank " + comm.rank() + " of " + comm.size() + " (" + comm.backend() + ") done");
        }
    }
}
