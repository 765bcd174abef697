package io.allsum.client;

import io.allsum.model.Protocol;
import io.allsum.model.format.ByteSize;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.security.BearerToken;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.GzipBodies;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.model.rendezvous.RankView;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;

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
 * answer is thrown at once as an {@link AllsumClientException}. Each retry is logged at INFO with its cause. Request bodies are never logged nor put in
 * exception messages, so rank 0's unique id cannot leak through this class.
 */
public final class HttpAllsumClient implements AllsumClient {

    public static final String USER_AGENT = "allsum-client/1";

    /** A join never asks the server to hold it longer than this, so a dead connection is noticed in time. */
    static final Duration MAX_JOIN_WAIT = Duration.ofSeconds(Protocol.DEFAULT_JOIN_WAIT_SECONDS);
    /** Added to a long-poll's server-side wait for its HTTP timeout: the server answers at {@code wait}. */
    static final Duration LONG_POLL_MARGIN = Duration.ofSeconds(10);
    /** The most bytes of an answer without a member or job list: a rank view, a pending join, a job assignment. */
    public static final long SMALL_ANSWER_LIMIT = 1L << 20;
    /**
     * The most bytes of a full view, a group's status or its jobs: a full view of 65,536 ranks (the largest world)
     * with every member field at its length limit is 60.2 MiB; 16,384 ranks with workers' own fields are 2.2 MiB.
     */
    public static final long LARGE_ANSWER_LIMIT = 64L << 20;
    private static final int MAX_RANKS_IN_MESSAGE = 16;
    private static final System.Logger LOG = System.getLogger(HttpAllsumClient.class.getName());
    private static final TypeReference<List<Job>> JOB_LIST = new TypeReference<>() {
    };

    private final URI baseUri;
    private final String authorization;
    private final Duration requestTimeout;
    private final RetryPolicy retryPolicy;
    private final HttpClient http;
    private final JsonMapper json = AllsumJson.mapper();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String serverEpoch;
    /** The last full view fetched per group, with its ETag. */
    private final Map<String, CachedView> views = new ConcurrentHashMap<>();

    private HttpAllsumClient(Builder b) {
        this.baseUri = b.baseUri;
        this.authorization = b.token == null || b.token.isBlank() ? null : BearerToken.of(b.token).authorizationHeader();
        this.requestTimeout = b.requestTimeout;
        this.retryPolicy = b.retryPolicy;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(b.connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                // The client's selector thread completes each response itself, and the caller (blocked in get)
                // wakes: one thread hand-off fewer than through an executor. Every body here is gathered into a
                // byte array, so nothing blocks that thread. A rendezvous of 256 ranks in 16 processes got every
                // answer 15% sooner (docs/benchmarks/rendezvous.md).
                .executor(Runnable::run)
                .build();
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
        return joinOnce(request, wait, deadlineIn(retryPolicy.deadline()));
    }

    @Override
    public GroupView join(JoinRequest request, Duration deadline) {
        return joinUntilComplete(request, deadline, GroupView.class);
    }

    /** The compact answer ({@code view=rank}, docs/protocol.md): constant size, whatever the world size. */
    @Override
    public RankView joinRank(JoinRequest request, Duration deadline) {
        return joinUntilComplete(request, deadline, RankView.class);
    }

    /**
     * The full view, kept per group with its ETag: asking again for the generation already held costs a 304
     * without a body.
     */
    @Override
    public GroupView view(String group, long generation) {
        String path = ClientPaths.group(Protocol.VIEW_PATH, group) + "?" + Protocol.GENERATION_PARAM + "=" + generation;
        CachedView cached = views.get(group);
        boolean revalidate = cached != null && cached.view().generation() == generation;
        Answer answer = exchange("GET", path, null, requestTimeout, deadlineIn(retryPolicy.deadline()),
                revalidate ? cached.etag() : null, LARGE_ANSWER_LIMIT);
        if (answer.status() == 304 && revalidate) {
            return cached.view();
        }
        if (answer.status() != 200) {
            throw ProblemAnswers.problem(json, answer.status(), answer.body(), "GET", path);
        }
        GroupView view = read(answer, GroupView.class, "GET", path);
        answer.headers().firstValue("ETag").ifPresent(etag -> views.put(group, new CachedView(etag, view)));
        return view;
    }

    private record CachedView(String etag, GroupView view) {
    }

    private <V> V joinUntilComplete(JoinRequest request, Duration deadline, Class<V> answerType) {
        Objects.requireNonNull(request, "request");
        long end = deadlineIn(deadline);
        JoinPending last = null;
        while (true) {
            long remaining = end - System.nanoTime();
            if (remaining <= 0) {
                throw joinTimedOut(request, deadline, last);
            }
            Duration wait = joinWait(Duration.ofNanos(remaining));
            long sent = System.nanoTime();
            Joined<V> outcome = joinOnce(request, wait, end, answerType);
            if (outcome.complete() != null) {
                return outcome.complete();
            }
            last = outcome.pending();
            // A server that answered 202 well before our wait is asking us to slow down: honour its Retry-After.
            if (System.nanoTime() - sent < wait.toNanos() / 2 && last.retryAfterSeconds() > 0) {
                sleepUntil(Math.min(end, System.nanoTime() + TimeUnit.SECONDS.toNanos(last.retryAfterSeconds())));
            }
        }
    }

    /** Server-side wait for the next join post: whole seconds, at least 1, at most 30 and the time left. */
    static Duration joinWait(Duration remaining) {
        long seconds = Math.min(MAX_JOIN_WAIT.toSeconds(), remaining.toSeconds());
        return Duration.ofSeconds(Math.max(1, seconds));
    }

    private JoinAnswer joinOnce(JoinRequest request, Duration wait, long retryDeadline) {
        Joined<GroupView> joined = joinOnce(request, wait, retryDeadline, GroupView.class);
        return new JoinAnswer(joined.complete(), joined.pending());
    }

    /** One join post: exactly one of {@code complete} and {@code pending} is set. */
    private record Joined<V>(V complete, JoinPending pending) {
    }

    private <V> Joined<V> joinOnce(JoinRequest request, Duration wait, long retryDeadline, Class<V> answerType) {
        Objects.requireNonNull(request, "request");
        long waitSeconds = Math.max(0, wait.toSeconds());
        String path = Protocol.RENDEZVOUS_PATH + "?" + Protocol.WAIT_PARAM + "=" + waitSeconds
                + (answerType == RankView.class ? "&" + Protocol.VIEW_PARAM + "=" + Protocol.VIEW_RANK : "");
        Answer answer = exchange("POST", path, request, Duration.ofSeconds(waitSeconds).plus(LONG_POLL_MARGIN),
                retryDeadline, null, answerType == RankView.class ? SMALL_ANSWER_LIMIT : LARGE_ANSWER_LIMIT);
        return switch (answer.status()) {
            case 200 -> new Joined<>(read(answer, answerType, "POST", path), null);
            case 202 -> new Joined<>(null, withRetryAfter(read(answer, JoinPending.class, "POST", path), answer));
            default -> throw ProblemAnswers.problem(json, answer.status(), answer.body(), "POST", path);
        };
    }

    private static JoinPending withRetryAfter(JoinPending pending, Answer answer) {
        if (pending.retryAfterSeconds() > 0) {
            return pending;
        }
        long header = ProblemAnswers.retryAfter(answer.headers()).map(Duration::toSeconds).orElse(0L);
        return new JoinPending(pending.group(), pending.generation(), pending.joinedRanks(), pending.missingRanks(),
                pending.joinDeadline(), (int) Math.min(Integer.MAX_VALUE, header), pending.epoch());
    }

    private AllsumClientException joinTimedOut(JoinRequest request, Duration deadline, JoinPending last) {
        List<Integer> missing = last == null || last.missingRanks() == null ? List.of() : last.missingRanks();
        String detail = "join of group '" + request.group() + "' as rank " + request.rank() + " did not complete within "
                + deadline + (last == null ? "" : "; missing ranks " + abbreviate(missing)
                + " (" + (last.joinedRanks() == null ? 0 : last.joinedRanks().size()) + " of " + request.worldSize()
                + " joined, generation " + last.generation() + ")");
        return new AllsumClientException(0, "Join deadline passed", detail, true, missing, null);
    }

    private static String abbreviate(List<Integer> ranks) {
        if (ranks.size() <= MAX_RANKS_IN_MESSAGE) {
            return ranks.toString();
        }
        return ranks.subList(0, MAX_RANKS_IN_MESSAGE).toString().replace("]", ", ... " + (ranks.size()
                - MAX_RANKS_IN_MESSAGE) + " more]");
    }

    @Override
    public GroupStatus status(String group) {
        return call("GET", ClientPaths.group(Protocol.GROUP_PATH, group), null, GroupStatus.class, LARGE_ANSWER_LIMIT);
    }

    @Override
    public HeartbeatResponse heartbeat(String group, HeartbeatRequest request) {
        return call("POST", ClientPaths.group(Protocol.HEARTBEAT_PATH, group), request, HeartbeatResponse.class, SMALL_ANSWER_LIMIT);
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
        String path = ClientPaths.job(Protocol.JOB_PATH, group, jobId) + "?" + Protocol.WAIT_PARAM + "=" + waitSeconds
                + "&" + Protocol.STATE_PARAM + "=" + seenState.wireName() + "&" + Protocol.ROWS_PARAM + "=" + seenRows;
        Answer answer = exchange("GET", path, null, Duration.ofSeconds(waitSeconds).plus(LONG_POLL_MARGIN),
                deadlineIn(retryPolicy.deadline()), null, LARGE_ANSWER_LIMIT);
        if (answer.status() != 200) {
            throw ProblemAnswers.problem(json, answer.status(), answer.body(), "GET", path);
        }
        return read(answer, Job.class, "GET", path);
    }

    @Override
    public List<Job> jobs(String group) {
        String path = ClientPaths.group(Protocol.JOBS_PATH, group);
        Answer answer = exchange("GET", path, null, requestTimeout, deadlineIn(retryPolicy.deadline()), null,
                LARGE_ANSWER_LIMIT);
        if (answer.status() / 100 != 2) {
            throw ProblemAnswers.problem(json, answer.status(), answer.body(), "GET", path);
        }
        try {
            return json.readValue(answer.body(), JOB_LIST);
        } catch (JacksonException e) {
            throw unreadable("GET", path, answer, e);
        }
    }

    @Override
    public Job cancelJob(String group, String jobId) {
        return call("DELETE", ClientPaths.job(Protocol.JOB_PATH, group, jobId), null, Job.class, LARGE_ANSWER_LIMIT);
    }

    @Override
    public Optional<JobAssignment> nextJob(String group, int rank, String instanceId, long afterSeq, Duration wait) {
        long waitSeconds = Math.max(0, wait.toSeconds());
        String path = ClientPaths.group(Protocol.NEXT_JOB_PATH, group) + "?rank=" + rank + "&instanceId="
                + ClientPaths.encode(Objects.requireNonNull(instanceId, "instanceId")) + "&after=" + afterSeq
                + "&" + Protocol.WAIT_PARAM + "=" + waitSeconds;
        Answer answer = exchange("GET", path, null, Duration.ofSeconds(waitSeconds).plus(LONG_POLL_MARGIN),
                deadlineIn(retryPolicy.deadline()), null, SMALL_ANSWER_LIMIT);
        return switch (answer.status()) {
            case 200 -> Optional.of(read(answer, JobAssignment.class, "GET", path));
            case 204 -> Optional.empty();
            default -> throw ProblemAnswers.problem(json, answer.status(), answer.body(), "GET", path);
        };
    }

    @Override
    public void report(String group, String jobId, RankReport report) {
        call("POST", ClientPaths.job(Protocol.JOB_REPORT_PATH, group, jobId), report, Void.class, SMALL_ANSWER_LIMIT);
    }

    @Override
    public Optional<String> serverEpoch() {
        return Optional.ofNullable(serverEpoch);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // A worker closing its client must not wait out its own long-polls: shutdownNow ends them.
        http.shutdownNow();
        try {
            http.awaitTermination(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- HTTP plumbing

    private record Answer(int status, byte[] body, HttpHeaders headers) {
    }

    private <T> T call(String method, String path, Object body, Class<T> type, long limit) {
        Answer answer = exchange(method, path, body, requestTimeout, deadlineIn(retryPolicy.deadline()), null, limit);
        if (answer.status() / 100 != 2) {
            throw ProblemAnswers.problem(json, answer.status(), answer.body(), method, path);
        }
        if (type == Void.class) {
            return null;
        }
        return read(answer, type, method, path);
    }

    private <T> T read(Answer answer, Class<T> type, String method, String path) {
        try {
            return type == RankView.class ? type.cast(JoinWire.rankView(json, answer.body()))
                    : json.readValue(answer.body(), type);
        } catch (JacksonException e) {
            throw unreadable(method, path, answer, e);
        }
    }

    private AllsumClientException unreadable(String method, String path, Answer answer, JacksonException e) {
        return new AllsumClientException(answer.status(), "Unreadable answer", method + " " + path
                + " answered " + answer.status() + " with a body that is not the expected JSON: "
                + e.getOriginalMessage(), false, e);
    }

    /**
     * Sends one request, retrying connection errors and 503 until {@code retryDeadline} (a System.nanoTime
     * instant). Returns the last answer, 503 included when the deadline passed while the server was busy.
     *
     * @param ifNoneMatch an ETag the caller holds, sent as {@code If-None-Match}; null for none
     * @param limit       the most bytes the answer's body may have, as sent and inflated
     */
    private Answer exchange(String method, String path, Object body, Duration httpTimeout, long retryDeadline,
                            String ifNoneMatch, long limit) {
        HttpRequest request = request(method, path, body, httpTimeout, ifNoneMatch);
        for (int retry = 0; ; retry++) {
            ensureOpen();
            Duration pause;
            try {
                Answer answer = send(request, method, path, httpTimeout, limit);
                String epoch = answer.headers().firstValue(Protocol.EPOCH_HEADER).orElse(null);
                if (epoch != null) {
                    serverEpoch = epoch;
                }
                if (answer.status() != 503) {
                    return answer;
                }
                pause = ProblemAnswers.retryAfter(answer.headers()).orElse(retryPolicy.pause(retry));
                if (System.nanoTime() + pause.toNanos() > retryDeadline) {
                    return answer;
                }
                logRetry(method, path, retry, pause, "answered 503");
            } catch (HttpConnectTimeoutException | ConnectException e) {
                pause = retryPauseOrGiveUp(e, method, path, retry, retryDeadline);
            } catch (HttpTimeoutException e) {
                throw new AllsumClientException(0, "Request timed out", "no answer from allsum server at " + baseUri
                        + " to " + method + " " + ClientPaths.stripQuery(path) + " within " + httpTimeout, true, e);
            } catch (IOException e) {
                if (closed.get()) {
                    throw clientClosed(e);
                }
                if (!isConnectionError(e)) {
                    throw unreachable(e);
                }
                pause = retryPauseOrGiveUp(e, method, path, retry, retryDeadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AllsumClientException(0, "Interrupted", method + " " + ClientPaths.stripQuery(path)
                        + " to allsum server at " + baseUri + " was interrupted", false, e);
            }
            sleepUntil(System.nanoTime() + pause.toNanos());
        }
    }

    /**
     * One try: the whole exchange, body included, ends within {@code httpTimeout} (the JDK's request timeout
     * restarts on every byte, so a server that trickles would hold it forever) and its body within {@code limit}.
     * A failure after the answer's head arrived is an {@link AllsumClientException} at once, never a retry.
     */
    private Answer send(HttpRequest request, String method, String path, Duration httpTimeout, long limit)
            throws IOException, InterruptedException {
        AtomicReference<HttpResponse.ResponseInfo> head = new AtomicReference<>();
        CompletableFuture<HttpResponse<byte[]>> future = http.sendAsync(request, info -> {
            head.set(info);
            long declared = info.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (declared > limit) {
                return refused(new AnswerTooLarge(answerFrom(method, path) + " declares " + declared
                        + " bytes, above the limit of " + ByteSize.format(limit)));
            }
            return HttpResponse.BodySubscribers.limiting(HttpResponse.BodySubscribers.ofByteArray(), limit);
        });
        HttpResponse<byte[]> response;
        try {
            response = future.get(httpTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            HttpTimeoutException timeout = new HttpTimeoutException("no complete answer within " + httpTimeout);
            timeout.initCause(e);
            throw timeout;
        } catch (InterruptedException e) {
            future.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof HttpTimeoutException timeout) {
                throw timeout;
            }
            if (head.get() != null && !closed.get()) {
                int status = head.get().statusCode();
                throw new AllsumClientException(status, "Unreadable answer", cause instanceof AnswerTooLarge
                        ? cause.getMessage() : answerFrom(method, path) + " (status " + status + ", at most "
                        + ByteSize.format(limit) + " accepted) could not be read: " + describe(cause), false, cause);
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(describe(cause), cause);
        }
        int status = response.statusCode();
        return new Answer(status, decoded(response.body(), response.headers(), status, method, path, limit),
                response.headers());
    }

    /** A body not to be read: cancelling its subscription at once closes the connection. */
    private static BodySubscriber<byte[]> refused(IOException reason) {
        return new BodySubscriber<>() {
            @Override
            public CompletionStage<byte[]> getBody() {
                return CompletableFuture.failedFuture(reason);
            }

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.cancel();
            }

            @Override
            public void onNext(List<ByteBuffer> item) {
            }

            @Override
            public void onError(Throwable throwable) {
            }

            @Override
            public void onComplete() {
            }
        };
    }

    /** The answer's body past its limit, as declared. */
    private static final class AnswerTooLarge extends IOException {
        AnswerTooLarge(String message) {
            super(message);
        }
    }

    private String answerFrom(String method, String path) {
        return "the answer from " + baseUri + ClientPaths.stripQuery(path) + " to " + method;
    }

    /** The body as the server encoded it (join answers come gzipped), inflated to at most {@code limit} bytes. */
    private byte[] decoded(byte[] body, HttpHeaders headers, int status, String method, String path, long limit) {
        if (!GzipBodies.isGzip(headers)) {
            return body;
        }
        try {
            return GzipBodies.inflate(body, limit);
        } catch (GzipBodies.TooLarge e) {
            throw new AllsumClientException(status, "Unreadable answer", answerFrom(method, path)
                    + " inflates past the limit of " + ByteSize.format(limit), false, e);
        } catch (IOException e) {
            throw new AllsumClientException(status, "Unreadable answer", method + " "
                    + ClientPaths.stripQuery(path) + " answered " + status + " with a gzip body that does not "
                    + "inflate: " + describe(e), false, e);
        }
    }

    private void logRetry(String method, String path, int retry, Duration pause, String cause) {
        LOG.log(System.Logger.Level.INFO, "{0} {1}{2} {3}; retry {4} in {5} ms", method, baseUri, ClientPaths.stripQuery(path),
                cause, retry + 1, String.valueOf(pause.toMillis()));
    }

    private Duration retryPauseOrGiveUp(IOException e, String method, String path, int retry, long retryDeadline) {
        if (closed.get()) {
            throw clientClosed(e);
        }
        long remaining = retryDeadline - System.nanoTime();
        if (remaining <= 0) {
            throw unreachable(e);
        }
        Duration pause = retryPolicy.pause(retry);
        if (pause.toNanos() > remaining) {
            pause = Duration.ofNanos(remaining);
        }
        logRetry(method, path, retry, pause, "failed (" + reason(e) + ")");
        return pause;
    }

    private HttpRequest request(String method, String path, Object body, Duration httpTimeout, String ifNoneMatch) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUri + path)).timeout(httpTimeout);
        List<String> headers = headers(body != null, ifNoneMatch);
        for (int i = 0; i < headers.size(); i += 2) {
            builder.header(headers.get(i), headers.get(i + 1));
        }
        return builder.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(json(body))).build();
    }

    /** A request's body: a join through {@link JoinWire} (cheap when cold, as a worker's join always is). */
    private byte[] json(Object body) {
        return body instanceof JoinRequest join ? JoinWire.request(json, join) : json.writeValueAsBytes(body);
    }

    /** Every request's headers, as name, value, name, value ... */
    private List<String> headers(boolean jsonBody, String ifNoneMatch) {
        List<String> headers = new ArrayList<>(List.of("User-Agent", USER_AGENT,
                "Accept", "application/json, " + Protocol.PROBLEM_JSON,
                // A view of N members is O(N) bytes per rank; gzipped it is about a tenth (docs/protocol.md).
                "Accept-Encoding", GzipBodies.ACCEPT_ENCODING));
        if (authorization != null) {
            headers.addAll(List.of("Authorization", authorization));
        }
        if (ifNoneMatch != null) {
            headers.addAll(List.of("If-None-Match", ifNoneMatch));
        }
        if (jsonBody) {
            headers.addAll(List.of("Content-Type", "application/json"));
        }
        return headers;
    }

    /**
     * Connection-level failures after which the same request may simply be sent again: refused, connect timeout,
     * or the connection closed/reset before an answer (a server restarting, or an idle pooled connection it shut).
     * Decided by type alone: the JDK client reports a connection it lost as a plain {@link IOException}, so any
     * I/O failure counts, except those that re-sending cannot fix: a request timeout (the server is there but slow,
     * and re-sending would only add load), a protocol error (the peer is not an allsum server) and TLS failures.
     */
    static boolean isConnectionError(Throwable error) {
        boolean io = false;
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException) {
                return true;
            }
            if (t instanceof HttpTimeoutException || t instanceof ProtocolException || t instanceof SSLException) {
                return false;
            }
            io |= t instanceof IOException;
        }
        return io;
    }

    private AllsumClientException unreachable(IOException e) {
        return new AllsumClientException(0, "Unreachable", "cannot reach the rendezvous server at " + baseUri + " ("
                + reason(e) + ")", false, e);
    }

    /**
     * Why a connection failed, in the words a person expects: the JDK reports a refused connection as a
     * ConnectException with no message around a ClosedChannelException, which says nothing by itself.
     */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return "connect timed out";
            }
            if (t instanceof ConnectException) {
                String m = t.getMessage();
                return m == null || m.isBlank() || m.toLowerCase(Locale.ROOT).contains("refused")
                        ? "connection refused" : m;
            }
            if (t instanceof java.net.UnknownHostException) {
                return "unknown host " + t.getMessage();
            }
            if (t instanceof ClosedChannelException || t instanceof EOFException) {
                return "the connection was closed before an answer";
            }
        }
        return describe(e);
    }

    private AllsumClientException clientClosed(Throwable e) {
        return new AllsumClientException(0, "Client closed", "the allsum client for " + baseUri + " was closed",
                false, e);
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw clientClosed(null);
        }
    }

    private static String describe(Throwable e) {
        Throwable root = e;
        while (root.getMessage() == null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static long deadlineIn(Duration duration) {
        long nanos = duration.isNegative() ? 0 : duration.toNanos();
        long now = System.nanoTime();
        return now + Math.min(nanos, Long.MAX_VALUE / 4);
    }

    private void sleepUntil(long nanoTime) {
        long remaining = nanoTime - System.nanoTime();
        if (remaining <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(remaining);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AllsumClientException(0, "Interrupted", "interrupted while waiting to retry a call to "
                    + baseUri, false, e);
        }
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
