package io.allsum.client;

import io.allsum.client.ClientTransport.Answer;
import io.allsum.model.Protocol;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.security.BearerToken;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.RankView;
import tools.jackson.core.type.TypeReference;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link AllsumClient} over the JDK's HTTP client (HTTP/1.1, http or https) and Jackson 3. Thread-safe: one instance
 * serves any number of concurrent calls, each long-poll on its own connection.
 *
 * <p>Every answer ends within its call's HTTP timeout, body included, and its body, as sent and as inflated, within
 * {@link #SMALL_ANSWER_LIMIT} or, where it holds a whole group's members or jobs, {@link #LARGE_ANSWER_LIMIT}; a
 * body past either, or one that cannot be read, is an {@link AllsumClientException} at once ("Unreadable answer").
 *
 * <p>Connection errors (refused, connect timeout, connection closed before an answer) and 503 are retried with
 * {@link RetryPolicy}'s backoff (a 503's {@code Retry-After} wins) until the call's deadline; every other error
 * answer is thrown at once as an {@link AllsumClientException}. Each retry is logged at INFO with its cause. Request
 * bodies are never logged nor put in exception messages, so rank 0's unique id cannot leak through this class.
 *
 * <p>This class holds the endpoints; {@link ClientTransport} the exchanges, {@link ClientCodec} the JSON,
 * {@link ClientPaths} the URLs and {@link JoinLoop} the join.
 */
public final class HttpAllsumClient implements AllsumClient {

    public static final String USER_AGENT = "allsum-client/1";

    /** Added to a long-poll's server-side wait for its HTTP timeout: the server answers at {@code wait}. */
    static final Duration LONG_POLL_MARGIN = Duration.ofSeconds(10);
    /** The most bytes of an answer without a member or job list: a rank view, a pending join, a job assignment. */
    public static final long SMALL_ANSWER_LIMIT = 1L << 20;
    /**
     * The most bytes of a full view, a group's status or its jobs: a full view of 65,536 ranks (the largest world)
     * with every member field at its length limit is 60.2 MiB; 16,384 ranks with workers' own fields are 2.2 MiB.
     */
    public static final long LARGE_ANSWER_LIMIT = 64L << 20;
    private static final TypeReference<List<Job>> JOB_LIST = new TypeReference<>() {
    };

    private final URI baseUri;
    private final Duration requestTimeout;
    private final ClientTransport transport;
    private final ClientCodec codec = new ClientCodec();
    private final JoinLoop joins;
    /** The last full view fetched per group, with its ETag. */
    private final Map<String, CachedView> views = new ConcurrentHashMap<>();

    private HttpAllsumClient(Builder b) {
        this.baseUri = b.baseUri;
        this.requestTimeout = b.requestTimeout;
        String authorization = b.token == null || b.token.isBlank() ? null
                : BearerToken.of(b.token).authorizationHeader();
        this.transport = new ClientTransport(baseUri, authorization, b.connectTimeout, b.retryPolicy);
        this.joins = new JoinLoop(transport, codec);
    }

    public static Builder builder(URI baseUri) {
        return new Builder(baseUri);
    }

    public static Builder builder(String baseUrl) {
        return new Builder(URI.create(Objects.requireNonNull(baseUrl, "baseUrl")));
    }

    public URI baseUri() {
        return baseUri;
    }

    // ---------------------------------------------------------------- rendezvous

    @Override
    public JoinAnswer joinOnce(JoinRequest request, Duration wait) {
        JoinLoop.Joined<GroupView> joined = joins.once(request, wait, transport.callDeadline(), GroupView.class);
        return new JoinAnswer(joined.complete(), joined.pending());
    }

    @Override
    public GroupView join(JoinRequest request, Duration deadline) {
        return joins.untilComplete(request, deadline, GroupView.class);
    }

    /** The compact answer ({@code view=rank}, docs/protocol.md): constant size, whatever the world size. */
    @Override
    public RankView joinRank(JoinRequest request, Duration deadline) {
        return joins.untilComplete(request, deadline, RankView.class);
    }

    /**
     * The full view, kept per group with its ETag: asking again for the generation already held costs a 304
     * without a body.
     */
    @Override
    public GroupView view(String group, long generation) {
        String path = ClientPaths.query(ClientPaths.group(Protocol.VIEW_PATH, group), Protocol.GENERATION_PARAM,
                generation);
        CachedView cached = views.get(group);
        boolean revalidate = cached != null && cached.view().generation() == generation;
        Answer answer = transport.exchange("GET", path, null, requestTimeout, transport.callDeadline(),
                revalidate ? cached.etag() : null, LARGE_ANSWER_LIMIT);
        if (answer.status() == 304 && revalidate) {
            return cached.view();
        }
        if (answer.status() != 200) {
            throw codec.problem(answer, "GET", path);
        }
        GroupView view = codec.read(answer, GroupView.class, "GET", path);
        answer.headers().firstValue("ETag").ifPresent(etag -> views.put(group, new CachedView(etag, view)));
        return view;
    }

    private record CachedView(String etag, GroupView view) {
    }

    @Override
    public GroupStatus status(String group) {
        return call("GET", ClientPaths.group(Protocol.GROUP_PATH, group), null, GroupStatus.class, LARGE_ANSWER_LIMIT);
    }

    @Override
    public HeartbeatResponse heartbeat(String group, HeartbeatRequest request) {
        return call("POST", ClientPaths.group(Protocol.HEARTBEAT_PATH, group), request, HeartbeatResponse.class,
                SMALL_ANSWER_LIMIT);
    }

    @Override
    public void reportFailure(String group, FailureReport report) {
        call("POST", ClientPaths.group(Protocol.FAILURE_PATH, group), report, Void.class, SMALL_ANSWER_LIMIT);
    }

    @Override
    public void leave(String group, LeaveRequest request) {
        call("POST", ClientPaths.group(Protocol.LEAVE_PATH, group), request, Void.class, SMALL_ANSWER_LIMIT);
    }

    @Override
    public void closeGroup(String group) {
        call("DELETE", ClientPaths.group(Protocol.GROUP_PATH, group), null, Void.class, SMALL_ANSWER_LIMIT);
    }

    // ---------------------------------------------------------------- jobs

    @Override
    public Job submitJob(String group, JobSpec spec) {
        return call("POST", ClientPaths.group(Protocol.JOBS_PATH, group), spec, Job.class, LARGE_ANSWER_LIMIT);
    }

    @Override
    public Job job(String group, String jobId) {
        return call("GET", ClientPaths.job(Protocol.JOB_PATH, group, jobId), null, Job.class, LARGE_ANSWER_LIMIT);
    }

    @Override
    public Job awaitJob(String group, String jobId, JobState seenState, int seenRows, Duration wait) {
        long waitSeconds = Math.max(0, wait.toSeconds());
        String path = ClientPaths.query(ClientPaths.job(Protocol.JOB_PATH, group, jobId), Protocol.WAIT_PARAM,
                waitSeconds, Protocol.STATE_PARAM, seenState.wireName(), Protocol.ROWS_PARAM, seenRows);
        Answer answer = longPoll(path, waitSeconds, LARGE_ANSWER_LIMIT);
        if (answer.status() != 200) {
            throw codec.problem(answer, "GET", path);
        }
        return codec.read(answer, Job.class, "GET", path);
    }

    @Override
    public List<Job> jobs(String group) {
        String path = ClientPaths.group(Protocol.JOBS_PATH, group);
        Answer answer = transport.exchange("GET", path, null, requestTimeout, transport.callDeadline(), null,
                LARGE_ANSWER_LIMIT);
        if (answer.status() / 100 != 2) {
            throw codec.problem(answer, "GET", path);
        }
        return codec.read(answer, JOB_LIST, "GET", path);
    }

    @Override
    public Job cancelJob(String group, String jobId) {
        return call("DELETE", ClientPaths.job(Protocol.JOB_PATH, group, jobId), null, Job.class, LARGE_ANSWER_LIMIT);
    }

    @Override
    public Optional<JobAssignment> nextJob(String group, int rank, String instanceId, long afterSeq, Duration wait) {
        long waitSeconds = Math.max(0, wait.toSeconds());
        String path = ClientPaths.query(ClientPaths.group(Protocol.NEXT_JOB_PATH, group), "rank", rank,
                "instanceId", Objects.requireNonNull(instanceId, "instanceId"), "after", afterSeq,
                Protocol.WAIT_PARAM, waitSeconds);
        Answer answer = longPoll(path, waitSeconds, SMALL_ANSWER_LIMIT);
        return switch (answer.status()) {
            case 200 -> Optional.of(codec.read(answer, JobAssignment.class, "GET", path));
            case 204 -> Optional.empty();
            default -> throw codec.problem(answer, "GET", path);
        };
    }

    @Override
    public void report(String group, String jobId, RankReport report) {
        call("POST", ClientPaths.job(Protocol.JOB_REPORT_PATH, group, jobId), report, Void.class, SMALL_ANSWER_LIMIT);
    }

    @Override
    public Optional<String> serverEpoch() {
        return transport.serverEpoch();
    }

    @Override
    public void close() {
        transport.close();
    }

    /** An ordinary call: a 2xx answer's body as {@code type} (null for {@code Void}), any other as its problem. */
    private <T> T call(String method, String path, Object body, Class<T> type, long limit) {
        Answer answer = transport.exchange(method, path, codec.write(body), requestTimeout, transport.callDeadline(),
                null, limit);
        return codec.expect2xx(answer, type, method, path);
    }

    /** A GET the server holds for up to {@code waitSeconds}: its HTTP timeout is that wait plus a margin. */
    private Answer longPoll(String path, long waitSeconds, long limit) {
        return transport.exchange("GET", path, null, Duration.ofSeconds(waitSeconds).plus(LONG_POLL_MARGIN),
                transport.callDeadline(), null, limit);
    }

    /** Builder: only the base URI is required. Defaults: 10 s per request, 5 s to connect, {@link RetryPolicy#DEFAULT}. */
    public static final class Builder {
        private final URI baseUri;
        private String token;
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

        private Builder(URI baseUri) {
            Objects.requireNonNull(baseUri, "baseUri");
            String problem = ServerUrl.problem(baseUri);
            if (problem != null) {
                throw new IllegalArgumentException("allsum server URL " + problem);
            }
            String text = baseUri.toString();
            while (text.endsWith("/")) {
                text = text.substring(0, text.length() - 1);
            }
            this.baseUri = URI.create(text);
        }

        /** The bearer token ({@code ALLSUM_TOKEN}); null or empty sends none. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** HTTP timeout of an ordinary call; long-polls use their wait plus a margin instead. */
        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = positive(requestTimeout, "requestTimeout");
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive(connectTimeout, "connectTimeout");
            return this;
        }

        public Builder retryPolicy(RetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        public HttpAllsumClient build() {
            return new HttpAllsumClient(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }
    }
}
