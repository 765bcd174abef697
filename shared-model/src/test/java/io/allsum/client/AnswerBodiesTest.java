package io.allsum.client;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AnswerBodiesTest {

    private static final HttpHeaders PLAIN = HttpHeaders.of(Map.of(), (name, value) -> true);
    private static final HttpHeaders GZIP = HttpHeaders.of(Map.of("Content-Encoding", List.of("gzip")),
            (name, value) -> true);

    @Test
    void aPlainBodyIsKeptAndAGzipOneInflated() throws IOException {
        byte[] json = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

        assertThat(AnswerBodies.decoded(json, PLAIN, 200, 100, "the answer", "GET /p")).isSameAs(json);
        assertThat(AnswerBodies.decoded(gzip(json), GZIP, 200, 100, "the answer", "GET /p")).isEqualTo(json);
    }

    @Test
    void aGzipBodyPastTheLimitOrNotGzipIsUnreadable() throws IOException {
        assertThatThrownBy(() -> AnswerBodies.decoded(gzip(new byte[101]), GZIP, 200, 100, "the answer", "GET /p"))
                .isInstanceOfSatisfying(AllsumClientException.class, e -> {
                    assertThat(e.title()).isEqualTo("Unreadable answer");
                    assertThat(e.detail()).isEqualTo("the answer inflates past the limit of 100 B");
                });
        assertThatThrownBy(() -> AnswerBodies.decoded(new byte[] {1, 2, 3}, GZIP, 202, 100, "the answer", "GET /p"))
                .isInstanceOfSatisfying(AllsumClientException.class, e -> assertThat(e.detail())
                        .startsWith("GET /p answered 202 with a gzip body that does not inflate: "));
    }

    private static byte[] gzip(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(body);
        }
        return out.toByteArray();
    }
}
