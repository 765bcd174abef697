package io.allsum.comm.ring;

/** The operations that put frames on the wire; a frame carries its op so that mismatched calls fail loudly. */
enum RingOp {
    ALL_REDUCE("all_reduce"), ALL_GATHER("all_gather"), REDUCE_SCATTER("reduce_scatter"), BROADCAST("broadcast"),
    REDUCE("reduce"), POINT_TO_POINT("send_recv"), BARRIER("barrier"), SPLIT("split");

    private final String phase;

    RingOp(String phase) {
        this.phase = phase;
    }

    String phase() {
        return phase;
    }
}
