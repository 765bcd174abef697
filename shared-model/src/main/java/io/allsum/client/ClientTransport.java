package io.allsum.client;

import io.allsum.model.Protocol;
import io.allsum.model.format.ByteSize;
import io.allsum.model.rendezvous.GzipBodies;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client's exchanges with one server: a request sent, connection errors and 503 retried with
 * {@link RetryPolicy}'s backoff until the call's deadline, each try bounded in time and its answer in size. Bodies
 * go in and come out as bytes; they are never logged nor put in exception messages. Thread-safe.
 */
final class ClientTransport implements AutoCloseable {

    /** The client's logger: retries are logged under {@link HttpAllsumClient}'s name. */
    private static final System.Logger LOG = System.getLogger(HttpAllsumClient.class.getName());

    private final URI baseUri;
    private final String authorization;
    private final RetryPolicy retryPolicy;
    private final HttpClient http;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String serverEpoch;

    /** @param authorization the {@code Authorization} header's value; null sends none */
    ClientTransport(URI baseUri, String authorization, Duration connectTimeout, RetryPolicy retryPolicy) {
        this.baseUri = baseUri;
        this.authorization = authorization;
        this.retryPolicy = retryPolicy;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                // The client's selector thread completes each response itself, and the caller (blocked in get)
                // wakes: one thread hand-off fewer than through an executor. Every body here is gathered into a
                // byte array, so nothing blocks that thread. A rendezvous of 256 ranks in 16 processes got every
                // answer 15% sooner (docs/benchmarks/rendezvous.md).
                .executor(Runnable::run)
                .build();
    }

    /** One answer: its status, its body as inflated, its headers. */
    record Answer(int status, byte[] body, HttpHeaders headers) {
    }

    /** The retry deadline of a call starting now (a System.nanoTime instant): the policy's deadline from now. */
    long callDeadline() {
        return deadlineIn(retryPolicy.deadline());
    }

    /** The System.nanoTime instant {@code duration} from now (a negative one is now). */
    static long deadlineIn(Duration duration) {
        long nanos = duration.isNegative() ? 0 : duration.toNanos();
        long now = System.nanoTime();
        return now + Math.min(nanos, Long.MAX_VALUE / 4);
    }

    /** The {@code Allsum-Server-Epoch} of the latest answer; empty before one that carried it. */
    Optional<String> serverEpoch() {
        return Optional.ofNullable(serverEpoch);
    }

    /**
     * Sends one request, retrying connection errors and 503 until {@code retryDeadline} (a System.nanoTime
     * instant). Returns the last answer, 503 included when the deadline passed while the server was busy.
     *
     * @param body        the JSON body; null for none
     * @param ifNoneMatch an ETag the caller holds, sent as {@code If-None-Match}; null for none
     * @param limit       the most bytes the answer's body may have, as sent and inflated
     */
    Answer exchange(String method, String path, byte[] body, Duration httpTimeout, long retryDeadline,
                    String ifNoneMatch, long limit) {
        HttpRequest request = request(method, path, body, httpTimeout, ifNoneMatch);
        for (int retry = 0; ; retry++) {
            ensureOpen();
            Duration pause;
            try {
                Answer answer = send(request, method, path, httpTimeout, limit);
                answer.headers().firstValue(Protocol.EPOCH_HEADER).ifPresent(epoch -> serverEpoch = epoch);
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
                if (!ConnectionErrors.isConnectionError(e)) {
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
        HttpResponse.BodyHandler<byte[]> bodies = AnswerBodies.limited(limit, answerFrom(method, path));
        CompletableFuture<HttpResponse<byte[]>> future = http.sendAsync(request, info -> {
            head.set(info);
            return bodies.apply(info);
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
                throw new AllsumClientException(status, "Unreadable answer", cause instanceof AnswerBodies.AnswerTooLarge
                        ? cause.getMessage() : answerFrom(method, path) + " (status " + status + ", at most "
                        + ByteSize.format(limit) + " accepted) could not be read: "
                        + ConnectionErrors.describe(cause), false, cause);
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException(ConnectionErrors.describe(cause), cause);
        }
        int status = response.statusCode();
        byte[] body = AnswerBodies.decoded(response.body(), response.headers(), status, limit,
                answerFrom(method, path), method + " " + ClientPaths.stripQuery(path));
        return new Answer(status, body, response.headers());
    }

    private String answerFrom(String method, String path) {
        return "the answer from " + baseUri + ClientPaths.stripQuery(path) + " to " + method;
    }

    private void logRetry(String method, String path, int retry, Duration pause, String cause) {
        LOG.log(System.Logger.Level.INFO, "{0} {1}{2} {3}; retry {4} in {5} ms", method, baseUri,
                ClientPaths.stripQuery(path), cause, retry + 1, String.valueOf(pause.toMillis()));
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
        logRetry(method, path, retry, pause, "failed (" + ConnectionErrors.reason(e) + ")");
        return pause;
    }

    private HttpRequest request(String method, String path, byte[] body, Duration httpTimeout, String ifNoneMatch) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUri + path)).timeout(httpTimeout)
                .header("User-Agent", HttpAllsumClient.USER_AGENT)
                .header("Accept", "application/json, " + Protocol.PROBLEM_JSON)
                // A view of N members is O(N) bytes per rank; gzipped it is about a tenth (docs/protocol.md).
                .header("Accept-Encoding", GzipBodies.ACCEPT_ENCODING);
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        if (ifNoneMatch != null) {
            builder.header("If-None-Match", ifNoneMatch);
        }
        if (body != null) {
            builder.header("Content-Type", "application/json");
        }
        return builder.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    private AllsumClientException unreachable(IOException e) {
        return new AllsumClientException(0, "Unreachable", "cannot reach the rendezvous server at " + baseUri + " ("
                + ConnectionErrors.reason(e) + ")", false, e);
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

    /** Sleeps until the System.nanoTime instant {@code nanoTime}; an interrupt ends the call. */
    void sleepUntil(long nanoTime) {
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
}
