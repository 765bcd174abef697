package io.allsum.server.rendezvous.web;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AcceptEncodingTest {

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "GZIP", "deflate, gzip", "gzip;q=0.5", "br;q=1.0, gzip; q=0.1", "x-gzip", "*",
            "identity, *;q=0.3"})
    void acceptsGzip(String header) {
        assertThat(AcceptEncoding.allowsGzip(lines(header))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "identity", "deflate, br", "gzip;q=0", "gzip;q=0.0, identity", "*, gzip;q=0",
            "*;q=0", "gzip;q=nonsense"})
    void refusesGzip(String header) {
        assertThat(AcceptEncoding.allowsGzip(lines(header))).isFalse();
    }

    @Test
    void noHeaderMeansIdentity() {
        assertThat(AcceptEncoding.allowsGzip(Collections.emptyEnumeration())).isFalse();
        assertThat(AcceptEncoding.allowsGzip(null)).isFalse();
    }

    @Test
    void readsEveryHeaderLine() {
        assertThat(AcceptEncoding.allowsGzip(Collections.enumeration(List.of("deflate", "gzip")))).isTrue();
    }

    private static java.util.Enumeration<String> lines(String header) {
        return Collections.enumeration(List.of(header));
    }
}
