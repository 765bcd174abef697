package io.allsum.client;

import io.allsum.model.format.ByteSize;
import io.allsum.model.rendezvous.GzipBodies;

import java.io.IOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/** An answer's body gathered into bytes within a limit, as sent and as inflated. */
final class AnswerBodies {

    private AnswerBodies() {
    }

    /** The body past its limit, as declared. */
    static final class AnswerTooLarge extends IOException {
        AnswerTooLarge(String message) {
            super(message);
        }
    }

    /**
     * Gathers at most {@code limit} bytes; a {@code Content-Length} above it fails the body at once with
     * {@link AnswerTooLarge}, without reading it. {@code answerFrom} names the answer in that message.
     */
    static HttpResponse.BodyHandler<byte[]> limited(long limit, String answerFrom) {
        return info -> {
            long declared = info.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (declared > limit) {
                return refused(new AnswerTooLarge(answerFrom + " declares " + declared
                        + " bytes, above the limit of " + ByteSize.format(limit)));
            }
            return HttpResponse.BodySubscribers.limiting(HttpResponse.BodySubscribers.ofByteArray(), limit);
        };
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

    /**
     * The body as the server encoded it (join answers come gzipped), inflated to at most {@code limit} bytes.
     *
     * @param request the request answered, as {@code "GET /path"}, for the message of a body that does not inflate
     */
    static byte[] decoded(byte[] body, HttpHeaders headers, int status, long limit, String answerFrom,
                          String request) {
        if (!GzipBodies.isGzip(headers)) {
            return body;
        }
        try {
            return GzipBodies.inflate(body, limit);
        } catch (GzipBodies.TooLarge e) {
            throw new AllsumClientException(status, "Unreadable answer", answerFrom
                    + " inflates past the limit of " + ByteSize.format(limit), false, e);
        } catch (IOException e) {
            throw new AllsumClientException(status, "Unreadable answer", request + " answered " + status
                    + " with a gzip body that does not inflate: " + ConnectionErrors.describe(e), false, e);
        }
    }
}
