package io.allsum.model.rendezvous;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EndpointTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"node-1.example:5000, node-1.example, 5000", "10.0.0.7:1, 10.0.0.7, 1",
            "'[::1]:65535', ::1, 65535", "'[fe80::1:2]:80', fe80::1:2, 80"})
    void readsHostAndPortAndWritesThemBack(String text, String host, int port) {
        Endpoint endpoint = Endpoint.parse(text);

        assertThat(endpoint).isEqualTo(new Endpoint(host, port));
        assertThat(endpoint.toString()).isEqualTo(text);
        assertThat(Endpoint.problem(text)).isNull();
        assertThat(Endpoint.tryParse(text)).contains(endpoint);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "host", "::1:8080", "[::1]", "[not-ipv6]:80", "host:0", "host:65536", "host:x",
            "under_score:80", ":80"})
    void refusesWhatIsNotAnEndpoint(String text) {
        assertThat(Endpoint.problem(text)).isNotNull();
        assertThat(Endpoint.tryParse(text)).isEmpty();
        assertThatThrownBy(() -> Endpoint.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("endpoint " + Endpoint.problem(text));
    }

    @Test
    void saysWhatIsWrong() {
        assertThat(Endpoint.problem(null)).isEqualTo("is required (host:port)");
        assertThat(Endpoint.problem("h:99999")).isEqualTo("must end in a port from 1 to 65535, got '99999'");
        assertThat(Endpoint.problem("::1:80")).startsWith("must put an IPv6 address in brackets");
        assertThat(Endpoint.problem("h".repeat(257) + ":1")).isEqualTo("must be at most 256 characters");
    }

    @Test
    void bracketsOnlyAnIpv6Literal() {
        assertThat(Endpoint.format("::1", 5000)).isEqualTo("[::1]:5000");
        assertThat(Endpoint.format("[::1]", 5000)).isEqualTo("[::1]:5000");
        assertThat(Endpoint.format("10.0.0.1", 5000)).isEqualTo("10.0.0.1:5000");
        assertThatThrownBy(() -> new Endpoint("h", 0)).hasMessageContaining("1 to 65535");
    }
}
