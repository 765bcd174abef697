package io.allsum.comm.nccl;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Every collective x every dtype (x every reduction op where the op reduces), out-of-place and in-place, on a
 * communicator of world size 1, compared byte for byte with {@link Elements}' host reference.
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
            for (ReduceOp op : ReduceOp.values()) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    results.add(check(comm, "all_reduce " + op, type, inPlace, count,
                            (s, r) -> comm.allReduce(s, r, count, type, op), op));
                    results.add(check(comm, "reduce_scatter " + op, type, inPlace, count,
                            (s, r) -> comm.reduceScatter(s, r, count, type, op), op));
                    results.add(check(comm, "reduce " + op, type, inPlace, count,
                            (s, r) -> comm.reduce(s, r, count, type, op, 0), op));
                }
            }
            for (boolean inPlace : new boolean[] {false, true}) {
                results.add(check(comm, "all_gather", type, inPlace, count,
                        (s, r) -> comm.allGather(s, r, count, type), null));
                results.add(check(comm, "broadcast", type, inPlace, count,
                        (s, r) -> comm.broadcast(s, r, count, type, 0), null));
            }
            results.add(check(comm, "send_recv", type, false, count,
                    (s, r) -> comm.sendRecv(s, 0, r, 0, count, type), null));
            results.add(check(comm, "all_reduce sum (zero elements)", type, false, 0,
                    (s, r) -> comm.allReduce(s, r, 0, type, ReduceOp.SUM), ReduceOp.SUM));
        }
        try {
            comm.barrier();
            results.add(new Result("barrier", 0, null));
        } catch (RuntimeException e) {
            results.add(new Result("barrier", 0, e.getMessage()));
        }
        return results;
    }

    private interface Op {
        void run(CommBuffer send, CommBuffer recv);
    }

    /** An unsupported combination must fail with a clear CommException and leave the communicator usable. */
    private static Result expectRefusal(Communicator comm, String name, Op op, int count, DataType type) {
        try (CommBuffer buffer = comm.allocate((long) count * type.bytes())) {
            op.run(buffer, buffer);
            return new Result(name + " (expected a refusal)", 0, "NCCL accepted an unsupported combination");
        } catch (io.allsum.comm.CommException e) {
            return new Result(name + " (refused: " + e.getMessage() + ")", 0, null);
        }
    }

    private static Result check(Communicator comm, String opName, DataType type, boolean inPlace, int count, Op op,
                                ReduceOp reduceOp) {
        String name = opName + " " + type + (inPlace ? " in-place" : " out-of-place");
        if (reduceOp != null && Nccl.unsupportedOpReason(type, reduceOp) != null) {
            return expectRefusal(comm, name, op, count, type);
        }
        long bytes = (long) count * type.bytes();
        double[] input = Elements.pattern(type, count, 1);
        double[] expected = reduceOp == null ? input : Elements.reduce(reduceOp, type, Collections.singletonList(input));
        ByteBuffer inputBytes = Elements.encode(type, input);
        ByteBuffer expectedBytes = Elements.encode(type, expected);
        try (CommBuffer send = comm.allocate(bytes); CommBuffer recv = inPlace ? null : comm.allocate(bytes)) {
            send.copyFromHost(inputBytes.duplicate(), 0);
            CommBuffer target = inPlace ? send : recv;
            if (!inPlace) {
                // A sentinel that no reference value has, so an untouched output cannot pass.
                ByteBuffer sentinel = ByteBuffer.allocateDirect((int) bytes);
                while (sentinel.hasRemaining()) {
                    sentinel.put((byte) 0x5A);
                }
                recv.copyFromHost(sentinel.flip(), 0);
            }
            op.run(send, target);
            ByteBuffer actual = ByteBuffer.allocateDirect((int) bytes);
            target.copyToHost(actual, 0);
            return new Result(name, Elements.countWrong(type, expectedBytes, actual.flip()), null);
        } catch (RuntimeException e) {
            return new Result(name, 0, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
