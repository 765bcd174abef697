package io.allsum.model;

import java.util.regex.Pattern;

/** Constants of allsum protocol v1, shared by the server, the workers and any Java client. */
public final class Protocol {

    public static final String VERSION = "1";

    /** NCCL's ncclUniqueId is exactly 128 bytes; it travels base64-encoded. */
    public static final int UNIQUE_ID_BYTES = 128;

    /** 1 to 64 of [A-Za-z0-9._-], but not "." or "..": a group name is a path segment. */
    public static final Pattern GROUP_NAME = Pattern.compile("(?!\\.{1,2}$)[A-Za-z0-9._-]{1,64}");
    public static final int INSTANCE_ID_MAX_LENGTH = 128;
    public static final int DEFAULT_MAX_WORLD_SIZE = 65536;

    public static final String RENDEZVOUS_PATH = "/rendezvous";
    public static final String GROUP_PATH = RENDEZVOUS_PATH + "/{group}";
    public static final String HEARTBEAT_PATH = GROUP_PATH + "/heartbeat";
    public static final String FAILURE_PATH = GROUP_PATH + "/failures";
    public static final String LEAVE_PATH = GROUP_PATH + "/leave";
    /** The current complete generation's full view (members), with an ETag; never the unique id. */
    public static final String VIEW_PATH = GROUP_PATH + "/view";
    public static final String JOBS_PATH = GROUP_PATH + "/jobs";
    public static final String JOB_PATH = JOBS_PATH + "/{jobId}";
    public static final String NEXT_JOB_PATH = JOBS_PATH + "/next";
    public static final String JOB_REPORT_PATH = JOB_PATH + "/reports";

    /** Query parameter: how long a join (or a job long-poll) may wait on the server, in seconds. */
    public static final String WAIT_PARAM = "wait";
    public static final int DEFAULT_JOIN_WAIT_SECONDS = 30;
    /**
     * Query parameters of {@code GET} {@link #JOB_PATH} with {@link #WAIT_PARAM}: what the client has seen (the job's
     * state, how many rows of {@code results}); the answer comes once the job differs from that, or when the wait
     * ran out. Each defaults to the job as it stands when the request arrives.
     */
    public static final String STATE_PARAM = "state";
    public static final String ROWS_PARAM = "rows";
    /**
     * Query parameter of a join: which 200 answer the client wants. {@link #VIEW_FULL} (the default, for clients
     * that predate it) is the whole GroupView; {@link #VIEW_RANK} the constant-size RankView.
     */
    public static final String VIEW_PARAM = "view";
    public static final String VIEW_FULL = "full";
    public static final String VIEW_RANK = "rank";
    /** Query parameter of the view endpoint: answer only if this generation is the complete one. */
    public static final String GENERATION_PARAM = "generation";

    /**
     * Response header on every answer: the server's incarnation, chosen at random when it starts. A new value means
     * the server restarted and holds none of the old groups, generations or job sequence numbers.
     */
    public static final String EPOCH_HEADER = "Allsum-Server-Epoch";
    public static final String PROBLEM_JSON = "application/problem+json";

    private Protocol() {
    }
}
