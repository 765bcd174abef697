package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.JoinAnswer;
import io.allsum.server.rendezvous.JoinCommand;
import io.allsum.server.rendezvous.JoinMeterOutcome;
import io.allsum.server.rendezvous.RendezvousMeters;
import io.allsum.server.rendezvous.RendezvousProperties;
import io.allsum.server.rendezvous.RendezvousRegistry;
import io.allsum.model.rendezvous.GzipBodies;
import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.web.BodySizeLimitFilter;
import io.allsum.server.web.HttpAnswer;
import io.allsum.server.web.LongPollWait;
import io.allsum.server.web.ProblemDetailsAdvice;
import io.allsum.server.web.ProblemResponse;
import io.allsum.web.BearerTokenFilter;
import io.allsum.web.ProblemWriter;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.ErrorResponse;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The join endpoint ({@code POST /rendezvous}), on Jetty's core API in front of the servlet application: every
 * request to the join path is answered here, successes and problems alike; other paths go on to the servlet
 * application unchanged.
 *
 * <p>Why below the servlet layer: a generation's completion answers every parked join at once. Here a parked join
 * holds Jetty's request and a callback, and its answer is one non-blocking write from the thread that completes it
 * (docs/benchmarks/rendezvous.md).
 *
 * <p>Every join that passed the token check is counted once, by outcome, when its answer is made.
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
    private final BearerTokenFilter tokens;
    private final String epoch;
    private final long maxBody;
    private final long bodyTimeoutMillis;

    /** @param tokens the servlet application's token check, asked here too */
    JoinHandler(String contextPath, RendezvousRegistry registry, RendezvousProperties properties,
                JoinResponses answers, ProblemWriter problems, RendezvousMeters meters, JsonMapper json,
                BearerTokenFilter tokens, String epoch) {
        this.path = contextPath + Protocol.RENDEZVOUS_PATH;
        this.registry = registry;
        this.properties = properties;
        this.validator = new JoinRequestValidator(properties.maxWorldSize());
        this.answers = answers;
        this.problems = problems;
        this.meters = meters;
        this.json = json;
        this.tokens = tokens;
        this.epoch = epoch;
        this.maxBody = properties.maxBodySize().toBytes();
        this.bodyTimeoutMillis = properties.bodyTimeout().toMillis();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!path.equals(request.getHttpURI().getPath())) {
            return super.handle(request, response, callback);
        }
        response.getHeaders().put(Protocol.EPOCH_HEADER, epoch);
        ErrorResponse unauthorized = tokens.refusal(request.getHeaders().get(HttpHeader.AUTHORIZATION));
        if (unauthorized != null) { // an unauthenticated body is never read
            refuse(request, response, callback, ProblemResponse.of(ProblemCode.UNAUTHORIZED, unauthorized), false);
            return true;
        }
        if (!HttpMethod.POST.is(request.getMethod())) {
            ProblemResponse refused = ProblemResponse.of(ProblemCode.METHOD_NOT_ALLOWED, "method "
                    + oneLine(request.getMethod()) + " is not supported on " + Protocol.RENDEZVOUS_PATH + "; use POST");
            refused.getHeaders().set(HttpHeader.ALLOW.asString(), HttpMethod.POST.asString());
            refuse(request, response, callback, refused, true);
            return true;
        }
        Settings settings;
        try {
            settings = settings(request);
        } catch (ProblemException e) {
            refuse(request, response, callback, ProblemResponse.of(e), true);
            return true;
        }
        // The body is a few hundred bytes, most often read with the headers: no thread waits for it, and the
        // timeout's timer is only made for a body that did not come with them.
        Content.Source.asByteArrayAsync(request, (int) maxBody)
                .orTimeout(bodyTimeoutMillis, TimeUnit.MILLISECONDS)
                .whenComplete((body, failure) -> {
                    if (failure != null) {
                        unread(request, response, callback, failure);
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

    /**
     * How a join is read and answered.
     *
     * @param gzipBody the body is sent with {@code Content-Encoding: gzip}
     * @param gzip     the answer may be gzipped
     */
    record Settings(Duration waitFor, boolean rankView, boolean gzip, boolean gzipBody) {
    }

    /** A POST's join settings, or the problem of a request that is not a join. */
    Settings settings(Request request) {
        HttpFields headers = request.getHeaders();
        long length = request.getLength();
        if (length > maxBody) {
            throw new ProblemException(ProblemCode.BODY_TOO_LARGE, "the request body has " + length
                    + " bytes; the limit is " + maxBody + " bytes");
        }
        String contentType = headers.get(HttpHeader.CONTENT_TYPE);
        if (!isJson(contentType)) {
            throw new ProblemException(ProblemCode.UNSUPPORTED_MEDIA_TYPE, "a join's Content-Type must be "
                    + "application/json, got " + (contentType == null ? "none" : "'" + oneLine(contentType) + "'"));
        }
        boolean gzipBody = gzipBody(headers.getValuesList(HttpHeader.CONTENT_ENCODING));
        List<String> accept = headers.getValuesList(HttpHeader.ACCEPT);
        if (!acceptsJson(accept)) {
            throw new ProblemException(ProblemCode.NOT_ACCEPTABLE, "a join is answered with application/json, "
                    + "which Accept '" + oneLine(String.join(", ", accept)) + "' refuses");
        }
        Fields query;
        try {
            query = Request.extractQueryParameters(request);
        } catch (RuntimeException e) {
            throw new ProblemException(ProblemCode.INVALID_REQUEST, "the request is malformed: the query string "
                    + "does not decode");
        }
        Integer waitSeconds = null;
        String wait = single(query, Protocol.WAIT_PARAM);
        if (wait != null) {
            try {
                waitSeconds = Integer.valueOf(wait);
            } catch (NumberFormatException e) {
                throw ProblemException.invalid(Protocol.WAIT_PARAM, "parameter '" + Protocol.WAIT_PARAM
                        + "' must be an integer, got '" + oneLine(wait) + "'");
            }
        }
        boolean rankView = rankView(single(query, Protocol.VIEW_PARAM));
        boolean gzip = !rankView && AcceptEncoding.allowsGzip(
                Collections.enumeration(headers.getValuesList(HttpHeader.ACCEPT_ENCODING)));
        return new Settings(LongPollWait.resolve(waitSeconds, properties.defaultWait(), properties.maxWait()),
                rankView, gzip, gzipBody);
    }

    /** True for a gzip body, false for identity; another coding, or several, is refused (RFC 9110, 15.5.16). */
    private static boolean gzipBody(List<String> contentEncoding) {
        List<String> codings = contentEncoding.stream().flatMap(line -> java.util.Arrays.stream(line.split(",")))
                .map(coding -> coding.strip().toLowerCase(Locale.ROOT))
                .filter(coding -> !coding.isEmpty() && !coding.equals("identity")).toList();
        if (codings.isEmpty()) {
            return false;
        }
        if (codings.size() == 1 && (codings.getFirst().equals("gzip") || codings.getFirst().equals("x-gzip"))) {
            return true;
        }
        throw new ProblemException(ProblemCode.UNSUPPORTED_MEDIA_TYPE, "a join's Content-Encoding must be gzip or "
                + "identity, got '" + oneLine(String.join(", ", contentEncoding)) + "'");
    }

    /** The parameter's one value, null when absent. */
    private static String single(Fields query, String name) {
        Fields.Field field = query.get(name);
        if (field == null) {
            return null;
        }
        if (field.getValues().size() != 1) {
            throw ProblemException.invalid(name, "parameter '" + name + "' must be given once, got "
                    + field.getValues().size() + " values");
        }
        return field.getValue();
    }

    /** {@code view=rank}: the constant-size answer; absent or {@code full}: the whole view. */
    private static boolean rankView(String view) {
        if (view == null || view.equals(Protocol.VIEW_FULL)) {
            return false;
        }
        if (view.equals(Protocol.VIEW_RANK)) {
            return true;
        }
        throw ProblemException.invalid(Protocol.VIEW_PARAM, "must be '" + Protocol.VIEW_FULL + "' or '"
                + Protocol.VIEW_RANK + "', got '" + oneLine(view) + "'");
    }

    private static String oneLine(String text) {
        String line = text.replaceAll("\\p{Cntrl}", "?");
        return line.length() > 32 ? line.substring(0, 32) + "..." : line;
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

    /** A body that was not read whole: too large, too slow (408), or its client went away (nobody to answer). */
    private void unread(Request request, Response response, Callback callback, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        if (cause instanceof TimeoutException) {
            ProblemResponse slow = ProblemResponse.of(ProblemCode.REQUEST_TIMEOUT, "the join's body did not "
                    + "arrive within " + bodyTimeoutMillis + " ms of its headers (allsum.rendezvous.body-timeout)");
            respondProblem(response, callback, slow, true, true);
        } else if (cause instanceof IOException) {
            callback.failed(cause);
        } else { // the size limit of a body without a declared length
            respondProblem(response, callback, ProblemResponse.of(ProblemCode.BODY_TOO_LARGE, "the request body is "
                    + "larger than the limit of " + maxBody + " bytes"), true, true);
        }
    }

    private void serve(Request request, Response response, Callback callback, Settings settings, byte[] sent) {
        byte[] body = sent;
        if (settings.gzipBody() && sent.length > 0) {
            try {
                body = GzipBodies.inflate(sent, maxBody);
            } catch (GzipBodies.TooLarge e) {
                respondProblem(response, callback, ProblemResponse.of(ProblemCode.BODY_TOO_LARGE, "the gzip body "
                        + "inflates past the limit of " + maxBody + " bytes"), true, false);
                return;
            } catch (IOException e) {
                respondProblem(response, callback, malformed("the body is sent with Content-Encoding: gzip but is "
                        + "not gzip (" + e.getMessage() + ")"), true, false);
                return;
            }
        }
        if (body.length == 0) {
            respondProblem(response, callback, malformed("a JSON body is required"), true, false);
            return;
        }
        JoinCommand command;
        try {
            command = JoinCommand.from(json.readValue(body, JoinRequest.class), validator);
        } catch (JacksonException e) {
            respondProblem(response, callback, malformed(ProblemDetailsAdvice.describe(e)), true, false);
            return;
        } catch (ProblemException e) {
            respondProblem(response, callback, ProblemResponse.of(e), true, false);
            return;
        }
        CompletableFuture<JoinAnswer> answer;
        try {
            answer = registry.join(command, settings.waitFor());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        if (answer.isDone()) {
            answer.whenComplete((done, error) -> respond(response, callback, command, settings, done, error));
            return;
        }
        park(request, response, callback, command, settings, answer);
    }

    /** A body that is no JSON join request, with the title Spring MVC gives unreadable bodies. */
    private static ProblemResponse malformed(String detail) {
        ProblemResponse problem = ProblemResponse.of(ProblemCode.INVALID_REQUEST, detail);
        problem.getBody().setTitle(ProblemDetailsAdvice.MALFORMED_BODY_TITLE);
        return problem;
    }

    /**
     * Waits for the registry's answer without a thread. The connection's idle timeout does not end the wait (the
     * registry answers by the join's wait, 202 at the latest); a broken connection does, and the answer that comes
     * later finds the request taken.
     */
    private void park(Request request, Response response, Callback callback, JoinCommand command, Settings settings,
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
                cause = JoinResponses.noAnswer(command, limit);
            }
            respond(response, callback, command, settings, done, cause);
        });
    }

    /** Writes the answer (or the problem) without blocking; the request ends when the bytes are written. */
    private void respond(Response response, Callback callback, JoinCommand command, Settings settings, JoinAnswer done,
                         Throwable error) {
        HttpAnswer out;
        ProblemCode code = null;
        try {
            if (error == null) {
                out = answers.answer(done, command.rank(), settings.rankView(), settings.gzip());
            } else {
                ProblemException problem = JoinResponses.problem(error);
                code = problem.code();
                out = HttpAnswer.problem(problems, path, ProblemResponse.of(problem));
            }
        } catch (RuntimeException e) {
            log.error("answer to rank {} of group '{}' not made", command.rank(), command.group(), e);
            code = ProblemCode.INTERNAL_ERROR;
            out = HttpAnswer.problem(problems, path, ProblemResponse.of(code, "the server failed to answer: "
                    + e.getClass().getSimpleName()));
        }
        meters.joinAnswered(JoinMeterOutcome.of(out.status(), code));
        out.writeTo(response, Callback.from(() -> {
            JoinResponses.delivered(done);
            callback.succeeded();
        }, failure -> {
            JoinResponses.delivered(done);
            log.debug("answer to rank {} of group '{}' not written: {}", command.rank(), command.group(),
                    failure.toString());
            callback.failed(failure);
        }));
    }

    /**
     * Answers a request refused before its body was read. With {@code drain}, the body (at most
     * {@link BodySizeLimitFilter#SWALLOW_BYTES}) is read and dropped first, so that a client still sending it reads
     * the answer rather than a reset; otherwise, and when more is left, the answer closes the connection.
     */
    private void refuse(Request request, Response response, Callback callback, ProblemResponse problem,
                        boolean drain) {
        boolean counted = HttpMethod.POST.is(request.getMethod()) && problem.code() != ProblemCode.UNAUTHORIZED;
        if (request.getLength() == 0) {
            respondProblem(response, callback, problem, counted, false);
        } else if (!drain || request.getLength() > BodySizeLimitFilter.SWALLOW_BYTES) {
            respondProblem(response, callback, problem, counted, true);
        } else {
            drain(request, BodySizeLimitFilter.SWALLOW_BYTES,
                    whole -> respondProblem(response, callback, problem, counted, !whole));
        }
    }

    /** Reads and drops up to {@code budget} bytes, then tells {@code then} whether that was the whole body. */
    private static void drain(Request request, long budget, Consumer<Boolean> then) {
        long left = budget;
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                long rest = left;
                request.demand(() -> drain(request, rest, then));
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                then.accept(false);
                return;
            }
            left -= chunk.remaining();
            boolean last = chunk.isLast();
            chunk.release();
            if (last || left <= 0) {
                then.accept(last);
                return;
            }
        }
    }

    private void respondProblem(Response response, Callback callback, ProblemResponse problem, boolean counted,
                                boolean close) {
        if (counted) {
            meters.joinAnswered(JoinMeterOutcome.of(problem.code().status(), problem.code()));
        }
        if (close) {
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        }
        HttpAnswer.problem(problems, path, problem).writeTo(response, callback);
    }
}
