package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import io.allsum.model.security.BearerToken;
import io.allsum.server.web.HttpAnswer;
import io.allsum.server.web.LongPollWait;
import io.allsum.server.web.ProblemException;
import io.allsum.server.web.ProblemWriter;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves well-formed joins ({@code POST /rendezvous}) on Jetty's core API, below the servlet layer; every other
 * request, and every join this handler does not take, goes on to the servlet application unchanged.
 *
 * <p>Why: a generation's completion answers every parked join at once, and through the servlet layer each answer
 * was a servlet async completion (a writer thread, the servlet response, a re-dispatch to complete the request) and
 * each parked join held the servlet and Spring MVC request objects (docs/benchmarks.md, "Joins below the servlet
 * layer"). Here a parked join holds Jetty's request and a callback, and its answer is one non-blocking write from the
 * thread that completes it.
 *
 * <p>What it takes: a POST to exactly the join path with a JSON body of a declared length within the body limit, an
 * {@code Accept} that allows JSON, a valid token when one is configured, and {@code wait}/{@code view} parameters as
 * the protocol spells them. Anything else (a missing token, a chunked body, a {@code wait=abc}) is the servlet
 * path's to answer, with the same problem it always gave. A body that does not parse or validate is handed to the
 * servlet path too, with its bytes replayed, so every 400 comes from one place (Spring MVC and its advice). From the
 * registry's answer on, both paths write the same bytes ({@link JoinResponses#answer}, {@link ProblemWriter}).
 */
final class JoinHandler extends Handler.Wrapper {

    private static final Logger log = LoggerFactory.getLogger(JoinHandler.class);

    private final String path;
    private final RendezvousRegistry registry;
    private final RendezvousProperties properties;
    private final JoinRequestValidator validator;
    private final JoinResponses answers;
    private final ProblemWriter problems;
    private final RendezvousMeters meters;
    private final JsonMapper json;
    private final BearerToken token;
    private final String epoch;
    private final LongAdder served = new LongAdder();

    /** @param token null when the server takes requests without one */
    JoinHandler(String contextPath, RendezvousRegistry registry, RendezvousProperties properties,
                JoinResponses answers, ProblemWriter problems, RendezvousMeters meters, JsonMapper json,
                BearerToken token, String epoch) {
        this.path = contextPath + Protocol.RENDEZVOUS_PATH;
        this.registry = registry;
        this.properties = properties;
        this.validator = new JoinRequestValidator(properties.maxWorldSize());
        this.answers = answers;
        this.problems = problems;
        this.meters = meters;
        this.json = json;
        this.token = token;
        this.epoch = epoch;
    }

    /** Joins this handler answered itself (the rest went to the servlet path). */
    long served() {
        return served.sum();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Settings settings = takesSafely(request);
        if (settings == null) {
            return super.handle(request, response, callback);
        }
        // The body is a few hundred bytes, most often read with the headers: no thread waits for it.
        Content.Source.asByteArrayAsync(request, (int) properties.maxBodySize().toBytes())
                .whenComplete((body, failure) -> {
                    if (failure != null) {
                        callback.failed(failure); // the client went away mid-body
                        return;
                    }
                    try {
                        serve(request, response, callback, settings, body);
                    } catch (RuntimeException e) { // a bug: answer it rather than leave the request open
                        log.error("join not served", e);
                        Response.writeError(request, response, callback, e);
                    }
                });
        return true;
    }

    /** How a taken join is answered. */
    record Settings(Duration waitFor, boolean rankView, boolean gzip) {
    }

    private Settings takesSafely(Request request) {
        try {
            return takes(request);
        } catch (RuntimeException e) {
            return null; // e.g. a query string that does not decode: the servlet path refuses it, as before
        }
    }

    /** The join's settings when this handler takes the request, null when the servlet path answers it. */
    Settings takes(Request request) {
        if (!HttpMethod.POST.is(request.getMethod()) || !path.equals(request.getHttpURI().getPath())) {
            return null;
        }
        HttpFields headers = request.getHeaders();
        long length = request.getLength();
        if (length <= 0 || length > properties.maxBodySize().toBytes() || headers.contains(HttpHeader.EXPECT)
                || !isJson(headers.get(HttpHeader.CONTENT_TYPE)) || !acceptsJson(headers.getValuesList(HttpHeader.ACCEPT))) {
            return null;
        }
        if (token != null && token.check(headers.get(HttpHeader.AUTHORIZATION)) != BearerToken.Check.ACCEPTED) {
            return null;
        }
        Fields query = Request.extractQueryParameters(request);
        Integer waitSeconds = null;
        Fields.Field wait = query.get(Protocol.WAIT_PARAM);
        if (wait != null) {
            if (wait.getValues().size() != 1 || !wait.getValue().matches("[0-9]{1,9}")) {
                return null;
            }
            waitSeconds = Integer.valueOf(wait.getValue());
        }
        boolean rankView = false;
        Fields.Field view = query.get(Protocol.VIEW_PARAM);
        if (view != null) {
            if (view.getValues().size() != 1) {
                return null;
            }
            if (view.getValue().equals(Protocol.VIEW_RANK)) {
                rankView = true;
            } else if (!view.getValue().equals(Protocol.VIEW_FULL)) {
                return null;
            }
        }
        boolean gzip = !rankView && AcceptEncoding.allowsGzip(
                Collections.enumeration(headers.getValuesList(HttpHeader.ACCEPT_ENCODING)));
        return new Settings(LongPollWait.resolve(waitSeconds, properties.defaultWait(), properties.maxWait()),
                rankView, gzip);
    }

    /** {@code application/json}, in UTF-8 (JSON's own encoding) if a charset is named at all. */
    static boolean isJson(String contentType) {
        if (contentType == null) {
            return false;
        }
        String[] parts = contentType.split(";");
        if (!parts[0].strip().equalsIgnoreCase("application/json")) {
            return false;
        }
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip().toLowerCase(Locale.ROOT).replace("\"", "");
            if (!parameter.equals("charset=utf-8")) {
                return false;
            }
        }
        return true;
    }

    /** No {@code Accept}, or one that names JSON, {@code application/*} or {@code *}{@code /*} without q=0. */
    static boolean acceptsJson(List<String> accept) {
        if (accept.isEmpty()) {
            return true;
        }
        for (String header : accept) {
            for (String range : header.split(",")) {
                String[] parts = range.split(";");
                String type = parts[0].strip().toLowerCase(Locale.ROOT);
                if (!type.equals("application/json") && !type.equals("application/*") && !type.equals("*/*")) {
                    continue;
                }
                boolean refused = false;
                for (int i = 1; i < parts.length; i++) {
                    String parameter = parts[i].replace(" ", "").toLowerCase(Locale.ROOT);
                    refused |= parameter.matches("q=0(\\.0*)?");
                }
                if (!refused) {
                    return true;
                }
            }
        }
        return false;
    }

    private void serve(Request request, Response response, Callback callback, Settings settings, byte[] body) {
        Joiner joiner;
        try {
            joiner = Joiner.from(json.readValue(body, JoinRequest.class), validator);
        } catch (RuntimeException e) {
            replay(request, response, callback, body); // the servlet path names what is wrong, as it always did
            return;
        }
        served.increment();
        response.getHeaders().put(Protocol.EPOCH_HEADER, epoch);
        CompletableFuture<JoinAnswer> answer;
        try {
            answer = registry.join(joiner, settings.waitFor());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        if (answer.isDone()) {
            answer.whenComplete((done, error) -> respond(response, callback, joiner, settings, done, error));
            return;
        }
        park(request, response, callback, joiner, settings, answer);
    }

    /**
     * Waits for the registry's answer without a thread. The connection's idle timeout does not end the wait (the
     * registry answers by the join's wait, 202 at the latest); a broken connection does, and the answer that comes
     * later finds the request taken.
     */
    private void park(Request request, Response response, Callback callback, Joiner joiner, Settings settings,
                      CompletableFuture<JoinAnswer> answer) {
        AtomicBoolean taken = new AtomicBoolean();
        request.addIdleTimeoutListener(timeout -> false);
        request.addFailureListener(failure -> {
            if (taken.compareAndSet(false, true)) {
                callback.failed(failure);
            }
        });
        Duration limit = JoinResponses.answerLimit(settings.waitFor());
        answer.orTimeout(limit.toMillis(), TimeUnit.MILLISECONDS).whenComplete((done, error) -> {
            if (!taken.compareAndSet(false, true)) {
                JoinResponses.delivered(done);
                return;
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause()
                    : error;
            if (cause instanceof TimeoutException) {
                cause = JoinResponses.noAnswer(joiner, limit);
            }
            respond(response, callback, joiner, settings, done, cause);
        });
    }

    /** Writes the answer (or the problem) without blocking; the request ends when the bytes are written. */
    private void respond(Response response, Callback callback, Joiner joiner, Settings settings, JoinAnswer done,
                         Throwable error) {
        HttpAnswer out;
        ProblemCode code = null;
        try {
            if (error == null) {
                out = answers.answer(done, joiner.rank(), settings.rankView(), settings.gzip());
            } else {
                ProblemException problem = JoinResponses.problem(error);
                code = problem.code();
                out = problems.answer(path, problem);
            }
        } catch (RuntimeException e) {
            log.error("answer to rank {} of group '{}' not made", joiner.rank(), joiner.group(), e);
            ProblemException problem = new ProblemException(ProblemCode.INTERNAL_ERROR, "the server failed to answer: "
                    + e.getClass().getSimpleName());
            code = problem.code();
            out = problems.answer(path, problem);
        }
        meters.joinAnswered(JoinOutcome.of(out.status(), code));
        try {
            write(out, response, callback, joiner, done);
        } catch (RuntimeException e) {
            JoinResponses.delivered(done);
            callback.failed(e);
        }
    }

    private void write(HttpAnswer out, Response response, Callback callback, Joiner joiner, JoinAnswer done) {
        out.writeTo(response, Callback.from(() -> {
            JoinResponses.delivered(done);
            callback.succeeded();
        }, failure -> {
            JoinResponses.delivered(done);
            log.debug("answer to rank {} of group '{}' not written: {}", joiner.rank(), joiner.group(),
                    failure.toString());
            callback.failed(failure);
        }));
    }

    /** Hands a join whose body was already read to the servlet path, which reads the same bytes again. */
    private void replay(Request request, Response response, Callback callback, byte[] body) {
        Request again = new Request.Wrapper(request) {
            private Content.Chunk next = Content.Chunk.from(ByteBuffer.wrap(body), true);

            @Override
            public Content.Chunk read() {
                Content.Chunk chunk = next;
                next = Content.Chunk.EOF;
                return chunk;
            }

            @Override
            public void demand(Runnable demandCallback) {
                demandCallback.run();
            }
        };
        try {
            if (!super.handle(again, response, callback)) {
                Response.writeError(again, response, callback, 404);
            }
        } catch (Throwable e) {
            Response.writeError(again, response, callback, e);
        }
    }
}
