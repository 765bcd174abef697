package io.allsum.comm.nccl;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.Collective;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Every {@link Collective} x every dtype (x every reduction op where the op reduces), out-of-place and, where the
 * op has that form, in-place, on a communicator of world size 1, compared byte for byte with {@link Elements}' host
 * reference.
 */
final class CollectiveChecks {

    /** One verified case: e.g. "all_reduce max float16 in-place", and its wrong elements (or the error). */
    record Result(String name, long wrongElements, String error) {
        boolean passed() {
            return wrongElements == 0 && error == null;
        }
    }

    private CollectiveChecks() {
    }

    static List<Result> runAll(Communicator comm, int count) {
        if (comm.size() != 1) {
            throw new IllegalArgumentException("these checks compute references for world size 1, not " + comm.size());
        }
        List<Result> results = new ArrayList<>();
        for (DataType type : DataType.values()) {
            for (Collective collective : Collective.values()) {
                CollectiveOp op = collective.op();
                List<ReduceOp> redops = op.reduces() ? List.of(ReduceOp.values()) : Collections.singletonList(null);
                for (ReduceOp redop : redops) {
                    for (boolean inPlace : op.runsInPlace() ? new boolean[] {false, true} : new boolean[] {false}) {
                        results.add(check(comm, collective, redop, type, inPlace, count));
                    }
                }
            }
            results.add(check(comm, Collective.ALL_REDUCE, ReduceOp.SUM, type, false, 0));
        }
        try {
            comm.barrier();
            results.add(new Result("barrier", 0, null));
        } catch (RuntimeException e) {
            results.add(new Result("barrier", 0, e.getMessage()));
        }
        return results;
    }

    /** An unsupported combination must fail with a clear CommException and leave the communicator usable. */
    private static Result expectRefusal(Communicator comm, String name, Collective collective, ReduceOp redop,
                                        int count, DataType type) {
        try (CommBuffer buffer = comm.allocate((long) count * type.bytes())) {
            collective.bind(comm, buffer, buffer, count, type, redop, 0).run();
            return new Result(name + " (expected a refusal)", 0, "NCCL accepted an unsupported combination");
        } catch (io.allsum.comm.CommException e) {
            return new Result(name + " (refused: " + e.getMessage() + ")", 0, null);
        }
    }

    /** One call on rank 0 of 1, its inputs and expected outputs where the collective's blocks put them. */
    private static Result check(Communicator comm, Collective collective, ReduceOp redop, DataType type,
                                boolean inPlace, int count) {
        String name = collective.op() + (redop != null ? " " + redop : "") + (count == 0 ? " (zero elements)" : "")
                + " " + type + (inPlace ? " in-place" : " out-of-place");
        if (redop != null && Nccl.unsupportedOpReason(type, redop) != null) {
            return expectRefusal(comm, name, collective, redop, count, type);
        }
        int width = type.bytes();
        long bytes = (long) count * width;
        double[] input = Elements.pattern(type, count, 1);
        double[] reduced = redop == null ? null : Elements.reduce(redop, type, Collections.singletonList(input));
        Collective.Placement placement = new Collective.Placement(0, 1, 0, count, inPlace);
        try (CommBuffer send = comm.allocate(bytes); CommBuffer recv = inPlace ? null : comm.allocate(bytes)) {
            CommBuffer target = inPlace ? send : recv;
            if (!inPlace) {
                // A sentinel that no reference value has, so an untouched output cannot pass.
                ByteBuffer sentinel = ByteBuffer.allocateDirect((int) bytes);
                while (sentinel.hasRemaining()) {
                    sentinel.put((byte) 0x5A);
                }
                recv.copyFromHost(sentinel.flip(), 0);
            }
            for (Collective.Block b : collective.inputs(placement)) {
                (b.recv() ? target : send).copyFromHost(encoded(type, input, b), b.offset() * width);
            }
            collective.bind(comm, send, target, count, type, redop, 0).run();
            ByteBuffer actual = ByteBuffer.allocateDirect((int) bytes);
            target.copyToHost(actual, 0);
            long wrong = 0;
            for (Collective.Block b : collective.outputs(placement)) {
                // World size 1: every source is this rank's input or its reduction.
                ByteBuffer expected = encoded(type, b.source() == Collective.Block.REDUCED ? reduced : input, b);
                wrong += Elements.countWrong(type, expected, actual.slice((int) (b.offset() * width),
                        (int) (b.elements() * width)));
            }
            return new Result(name, wrong, null);
        } catch (RuntimeException e) {
            return new Result(name, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** The bytes of a block's source elements. */
    private static ByteBuffer encoded(DataType type, double[] values, Collective.Block b) {
        int from = (int) b.sourceOffset();
        return Elements.encode(type, Arrays.copyOfRange(values, from, from + (int) b.elements()));
    }
}
