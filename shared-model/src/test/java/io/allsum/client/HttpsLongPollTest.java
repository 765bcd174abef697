package io.allsum.client;

import io.allsum.client.StubAllsumServer.Reply;
import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** A join long-polled over https: held by the server, re-posted after a 202, answered gzipped. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpsLongPollTest {

    private static final char[] PASSWORD = "changeit".toCharArray();

    @Test
    void aJoinHeldOnAnHttpsServerGetsItsRankView(@TempDir Path dir) throws Exception {
        SSLContext tls = selfSigned(dir.resolve("server.p12"));
        String rankView = """
                {"group":"g","generation":4,"worldSize":2,"backend":"ring","rank":1,
                 "previous":{"rank":0,"instanceId":"i0","endpoint":"h0:1"},"next":{"rank":0,"instanceId":"i0",
                 "endpoint":"h0:1"},"viewTag":"t","epoch":"e"}""";
        SSLContext before = SSLContext.getDefault();
        SSLContext.setDefault(tls); // the JDK client trusts what the default context trusts
        try (StubAllsumServer server = StubAllsumServer.startHttps(tls)
                .then(Reply.json(202, """
                        {"group":"g","generation":4,"joinedRanks":[1],"missingRanks":[0],
                         "joinDeadline":"2026-11-29T16:00:00Z"}""").withHeader("Retry-After", "0"))
                .then(r -> {
                    sleep(Duration.ofMillis(1500)); // the last rank arrives while this join is held
                    return Reply.gzipJson(200, rankView);
                });
             HttpAllsumClient client = HttpAllsumClient.builder(server.uri()).token("t0k").build()) {
            SSLContext.setDefault(before);

            RankView view = client.joinRank(new JoinRequest("g", 1, 2, "i1", Backend.RING, null, "h1:1", null, null),
                    Duration.ofSeconds(20));

            assertThat(server.uri().getScheme()).isEqualTo("https");
            assertThat(view.generation()).isEqualTo(4);
            assertThat(view.previous().endpoint()).isEqualTo("h0:1");
            assertThat(server.requests()).hasSize(2).allSatisfy(r -> {
                assertThat(r.uri().getQuery()).contains("view=rank");
                assertThat(r.header("Authorization")).isEqualTo("Bearer t0k");
            });
        } finally {
            SSLContext.setDefault(before);
        }
    }

    /** A key pair and self-signed certificate for 127.0.0.1 made by the JDK's keytool, as server and trust. */
    private static SSLContext selfSigned(Path keystore) throws Exception {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "allsum", "-keyalg", "EC",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", new String(PASSWORD)).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            store.load(in, PASSWORD);
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, PASSWORD);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        return tls;
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
