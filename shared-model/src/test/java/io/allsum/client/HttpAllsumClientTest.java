package io.allsum.client;

import io.allsum.client.StubAllsumServer.Reply;
import io.allsum.model.Backend;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpAllsumClientTest {

    private static final String UNIQUE_ID = Base64.getEncoder().encodeToString(new byte[128]);
    private static final String GROUP_VIEW = """
            {"group":"g","generation":1,"worldSize":2,"backend":"nccl","uniqueId":"%s",
             "members":[{"rank":0,"instanceId":"i0"},{"rank":1,"instanceId":"i1"}],
             "fieldFromANewerServer":{"x":1}}""".formatted(UNIQUE_ID);
    private static final String PENDING = """
            {"group":"g","generation":1,"joinedRanks":[0],"missingRanks":[1],
             "joinDeadline":"2026-11-29T16:00:00Z","retryAfterSeconds":0}""";
    private static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(10), 2, Duration.ofMillis(100),
            Duration.ofSeconds(10));

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    private StubAllsumServer stub() throws IOException {
        return track(StubAllsumServer.start());
    }

    private HttpAllsumClient client(URI uri, RetryPolicy policy) {
        return track(HttpAllsumClient.builder(uri).retryPolicy(policy).build());
    }

    private <T extends AutoCloseable> T track(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private static JoinRequest rank(int rank) {
        return new JoinRequest("g", rank, 2, "i" + rank, Backend.NCCL, rank == 0 ? UNIQUE_ID : null, null, null, null);
    }

    @Test
    void joinRepostsAfterEach202UntilTheGroupCompletes() throws IOException {
        StubAllsumServer server = stub()
                .then(Reply.json(202, PENDING).withHeader("Retry-After", "0"))
                .then(Reply.json(202, PENDING).withHeader("Retry-After", "0"))
                .then(Reply.json(200, GROUP_VIEW));

        GroupView view = client(server.uri(), FAST).join(rank(1), Duration.ofSeconds(20));

        assertThat(view.uniqueId()).isEqualTo(UNIQUE_ID);
        assertThat(view.members()).extracting(m -> m.rank()).containsExactly(0, 1);
        assertThat(server.requests()).hasSize(3).allSatisfy(r -> {
            assertThat(r.method()).isEqualTo("POST");
            assertThat(r.uri().getPath()).isEqualTo("/rendezvous");
            assertThat(r.uri().getQuery()).matches("wait=(1[0-9]|20)");
            assertThat(r.body()).contains("\"rank\":1").contains("\"backend\":\"nccl\"");
        });
    }

    @Test
    void joinRankAsksForTheCompactAnswerAndRepostsAfter202() throws IOException {
        String rankView = """
                {"group":"g","generation":3,"worldSize":2,"backend":"ring","uniqueId":"%s","rank":1,
                 "previous":{"rank":0,"instanceId":"i0","endpoint":"h0:1"},"next":{"rank":0,"instanceId":"i0",
                 "endpoint":"h0:1"},"viewTag":"e-7","epoch":"e"}""".formatted(UNIQUE_ID);
        StubAllsumServer server = stub()
                .then(Reply.json(202, PENDING).withHeader("Retry-After", "0"))
                .then(Reply.json(200, rankView));

        RankView view = client(server.uri(), FAST).joinRank(rank(1), Duration.ofSeconds(20));

        assertThat(view.rank()).isEqualTo(1);
        assertThat(view.generation()).isEqualTo(3);
        assertThat(view.uniqueId()).isEqualTo(UNIQUE_ID);
        assertThat(view.previous().endpoint()).isEqualTo("h0:1");
        assertThat(view.toString()).doesNotContain(UNIQUE_ID);
        assertThat(server.requests()).hasSize(2).allSatisfy(r -> assertThat(r.uri().getQuery()).contains("view=rank"));
    }

    @Test
    void viewRevalidatesTheHeldGenerationWithItsETagAndKeepsItOn304() throws IOException {
        String members = GROUP_VIEW.replace("\"uniqueId\":\"" + UNIQUE_ID + "\"", "\"uniqueId\":null");
        StubAllsumServer server = stub()
                .then(Reply.json(200, members).withHeader("ETag", "\"e-1\""))
                .then(Reply.empty(304).withHeader("ETag", "\"e-1\""))
                .then(Reply.json(200, members.replace("\"generation\":1", "\"generation\":2"))
                        .withHeader("ETag", "\"e-2\""));
        HttpAllsumClient client = client(server.uri(), FAST);

        GroupView first = client.view("g", 1);
        GroupView again = client.view("g", 1);
        GroupView next = client.view("g", 2);

        assertThat(again).isSameAs(first);
        assertThat(first.members()).extracting(m -> m.rank()).containsExactly(0, 1);
        assertThat(next.generation()).isEqualTo(2);
        List<StubAllsumServer.Recorded> requests = server.requests();
        assertThat(requests).extracting(r -> r.uri().getPath()).containsOnly("/rendezvous/g/view");
        assertThat(requests).extracting(r -> r.uri().getQuery())
                .containsExactly("generation=1", "generation=1", "generation=2");
        assertThat(requests.get(0).header("If-None-Match")).isNull();
        assertThat(requests.get(1).header("If-None-Match")).isEqualTo("\"e-1\"");
        // A generation the client does not hold is fetched whole, not revalidated.
        assertThat(requests.get(2).header("If-None-Match")).isNull();
    }

    @Test
    void joinOnceAnswersPendingWithRetryAfterFromTheHeader() throws IOException {
        String pendingWithoutField = PENDING.replace(",\"retryAfterSeconds\":0", "");
        StubAllsumServer server = stub().then(Reply.json(202, pendingWithoutField).withHeader("Retry-After", "3"));

        var outcome = client(server.uri(), FAST).joinOnce(rank(1), Duration.ofSeconds(5));

        assertThat(outcome.isComplete()).isFalse();
        assertThat(outcome.pending().missingRanks()).containsExactly(1);
        assertThat(outcome.pending().retryAfterSeconds()).isEqualTo(3);
        assertThat(server.requests().getFirst().uri().getQuery()).isEqualTo("wait=5");
    }

    @Test
    void joinThrowsTimedOutNamingTheMissingRanksWhenItsDeadlinePasses() throws IOException {
        StubAllsumServer server = stub().otherwise(r -> Reply.json(202, PENDING.replace("[1]", "[1,5,7]"))
                .withHeader("Retry-After", "1"));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class,
                () -> client(server.uri(), FAST).join(rank(0), Duration.ofMillis(500)));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.status()).isZero();
        assertThat(e.missingRanks()).containsExactly(1, 5, 7);
        assertThat(e.getMessage()).contains("group 'g'").contains("rank 0").contains("[1, 5, 7]")
                .doesNotContain(UNIQUE_ID);
    }

    @Test
    void retriesA503AfterItsRetryAfter() throws IOException {
        StubAllsumServer server = stub()
                .then(Reply.problem(503, "Service Unavailable", "group limit reached").withHeader("Retry-After", "1"))
                .then(Reply.json(200, GROUP_VIEW));

        GroupView view = client(server.uri(), FAST).join(rank(1), Duration.ofSeconds(20));

        assertThat(view.generation()).isEqualTo(1);
        List<StubAllsumServer.Recorded> requests = server.requests();
        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).arrivedNanos() - requests.get(0).arrivedNanos())
                .isGreaterThanOrEqualTo(Duration.ofMillis(900).toNanos());
    }

    @Test
    void a503ThatOutlastsTheDeadlineIsThrownWithItsProblem() throws IOException {
        StubAllsumServer server = stub().otherwise(r -> Reply.problem(503, "Service Unavailable", "too many groups"));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class,
                () -> client(server.uri(), FAST.withDeadline(Duration.ofMillis(300))).status("g"));

        assertThat(e.status()).isEqualTo(503);
        assertThat(e.detail()).isEqualTo("too many groups");
        assertThat(server.requests().size()).isGreaterThan(1);
    }

    @Test
    void retriesRefusedConnectionsUntilTheServerAppears() throws Exception {
        int port = freePort();
        HttpAllsumClient client = client(URI.create("http://127.0.0.1:" + port), FAST.withDeadline(Duration.ofSeconds(20)));

        CompletableFuture<GroupView> join = CompletableFuture.supplyAsync(() -> client.join(rank(1), Duration.ofSeconds(20)));
        Thread.sleep(400); // several refused attempts happen before the server exists
        assertThat(join).isNotDone();
        StubAllsumServer server = track(StubAllsumServer.startOn(port)).then(Reply.json(200, GROUP_VIEW));

        assertThat(join.get(20, TimeUnit.SECONDS).uniqueId()).isEqualTo(UNIQUE_ID);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void anUnreachableServerFailsWithStatusZeroOnceTheDeadlinePasses() throws IOException {
        int port = freePort();
        HttpAllsumClient client = client(URI.create("http://127.0.0.1:" + port), FAST.withDeadline(Duration.ofMillis(300)));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class, () -> client.status("g"));

        assertThat(e.status()).isZero();
        assertThat(e.timedOut()).isFalse();
        assertThat(e.detail()).isEqualTo("cannot reach the rendezvous server at http://127.0.0.1:" + port
                + " (connection refused)");
        assertThat(e.getCause()).isInstanceOf(java.net.ConnectException.class);
    }

    @Test
    void eachRetryIsLoggedWithItsAttemptAndCause() throws IOException {
        int port = freePort();
        HttpAllsumClient client = client(URI.create("http://127.0.0.1:" + port), FAST.withDeadline(Duration.ofMillis(300)));
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(HttpAllsumClient.class.getName());
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(r.getLevel() + " " + java.text.MessageFormat.format(r.getMessage(), r.getParameters()));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        try {
            catchThrowableOfType(AllsumClientException.class, () -> client.status("g"));
        } finally {
            log.removeHandler(handler);
        }

        assertThat(lines).hasSizeGreaterThan(1);
        assertThat(lines.getFirst()).matches("INFO GET http://127\\.0\\.0\\.1:" + port
                + "/rendezvous/g failed \\(connection refused\\); retry 1 in \\d+ ms");
        assertThat(lines.get(1)).contains("; retry 2 in ");
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 404, 409, 410, 413, 429})
    void errorAnswersAreNotRetriedAndCarryTheProblemDetail(int status) throws IOException {
        StubAllsumServer server = stub().otherwise(r -> Reply.problem(status, "Conflict-ish",
                "rank 1 is held by instance i9"));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class,
                () -> client(server.uri(), FAST).join(rank(1), Duration.ofSeconds(5)));

        assertThat(e.status()).isEqualTo(status);
        assertThat(e.title()).isEqualTo("Conflict-ish");
        assertThat(e.detail()).isEqualTo("rank 1 is held by instance i9");
        assertThat(e.timedOut()).isFalse();
        assertThat(e.getMessage()).isEqualTo(status + " Conflict-ish: rank 1 is held by instance i9");
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void theProblemsCodeAndViolationsReachTheCallerSoThatItBranchesOnTheCode() throws IOException {
        StubAllsumServer server = stub().otherwise(r -> new Reply(409,
                java.util.Map.of("Content-Type", "application/problem+json"),
                "{\"type\":\"about:blank\",\"title\":\"Any wording\",\"status\":409,\"detail\":\"held\","
                        + "\"code\":\"rank-held\",\"violations\":[{\"field\":\"rank\",\"message\":\"taken\"}]}"));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class,
                () -> client(server.uri(), FAST).join(rank(1), Duration.ofSeconds(5)));

        assertThat(e.code()).contains(io.allsum.model.problem.ProblemCode.RANK_HELD);
        assertThat(e.is(io.allsum.model.problem.ProblemCode.RANK_HELD)).isTrue();
        assertThat(e.wireCode()).isEqualTo("rank-held");
        assertThat(e.violations()).containsExactly(new io.allsum.model.problem.Violation("rank", "taken"));
    }

    @Test
    void theServerEpochOfTheLatestAnswerIsExposedSoThatARestartIsSeen() throws IOException {
        StubAllsumServer server = stub()
                .then(Reply.problem(404, "Unknown group", "no group 'g'").withHeader("Allsum-Server-Epoch", "aaaa"))
                .then(Reply.problem(404, "Unknown group", "no group 'g'").withHeader("Allsum-Server-Epoch", "bbbb"));
        HttpAllsumClient client = client(server.uri(), FAST);
        assertThat(client.serverEpoch()).isEmpty();

        catchThrowableOfType(AllsumClientException.class, () -> client.status("g"));
        assertThat(client.serverEpoch()).contains("aaaa");
        catchThrowableOfType(AllsumClientException.class, () -> client.status("g"));
        assertThat(client.serverEpoch()).contains("bbbb");
    }

    @Test
    void anAnswerWithoutACodeGetsTheGenericCodeOfItsStatus() throws IOException {
        StubAllsumServer server = stub().otherwise(r -> Reply.problem(410, "Gone", "closed"));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class,
                () -> client(server.uri(), FAST).status("g"));

        assertThat(e.wireCode()).isNull();
        assertThat(e.code()).contains(io.allsum.model.problem.ProblemCode.GONE);
    }

    @Test
    void anErrorBodyThatIsNotAProblemBecomesTheDetail() throws IOException {
        StubAllsumServer server = stub().then(new Reply(500, java.util.Map.of("Content-Type", "text/plain"),
                "proxy exploded\n"));

        AllsumClientException e = catchThrowableOfType(AllsumClientException.class,
                () -> client(server.uri(), FAST).status("g"));

        assertThat(e.status()).isEqualTo(500);
        assertThat(e.title()).isEqualTo("Internal Server Error");
        assertThat(e.detail()).isEqualTo("proxy exploded");
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void sendsTheBearerTokenAndUserAgent() throws IOException {
        StubAllsumServer server = stub().otherwise(r -> "Bearer s3cret".equals(r.header("Authorization"))
                ? Reply.json(200, GROUP_VIEW)
                : Reply.problem(401, "Unauthorized", "missing or wrong bearer token")
                        .withHeader("WWW-Authenticate", "Bearer"));

        HttpAllsumClient withToken = track(HttpAllsumClient.builder(server.uri()).token("s3cret").retryPolicy(FAST).build());
        assertThat(withToken.join(rank(1), Duration.ofSeconds(5)).group()).isEqualTo("g");
        assertThat(server.requests().getFirst().header("User-Agent")).isEqualTo("allsum-client/1");

        HttpAllsumClient withoutToken = client(server.uri(), FAST);
        assertThatThrownBy(() -> withoutToken.join(rank(1), Duration.ofSeconds(5)))
                .isInstanceOfSatisfying(AllsumClientException.class, e -> {
                    assertThat(e.status()).isEqualTo(401);
                    assertThat(e.detail()).isEqualTo("missing or wrong bearer token");
                });
        assertThat(server.requests().get(1).header("Authorization")).isNull();
    }

    @Test
    void asksForGzipAndInflatesAGzipJoinAnswer() throws IOException {
        StubAllsumServer server = stub().then(Reply.gzipJson(200, GROUP_VIEW));

        var outcome = client(server.uri(), FAST).joinOnce(rank(1), Duration.ofSeconds(1));

        assertThat(server.requests().getFirst().header("Accept-Encoding")).isEqualTo("gzip");
        assertThat(outcome.complete().uniqueId()).isEqualTo(UNIQUE_ID);
        assertThat(outcome.complete().members()).extracting(m -> m.instanceId()).containsExactly("i0", "i1");
    }

    @Test
    void aGzipErrorAnswerStillCarriesItsProblemDetail() throws IOException {
        StubAllsumServer server = stub().then(Reply.gzipJson(409,
                "{\"status\":409,\"title\":\"Conflict\",\"detail\":\"rank 1 is held\"}"));

        assertThatThrownBy(() -> client(server.uri(), FAST).joinOnce(rank(1), Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(AllsumClientException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.detail()).isEqualTo("rank 1 is held");
                });
    }

    @Test
    void aBodyThatClaimsGzipButIsNotIsAnUnreadableAnswer() throws IOException {
        StubAllsumServer server = stub().then(Reply.json(200, GROUP_VIEW).withHeader("Content-Encoding", "gzip"));

        assertThatThrownBy(() -> client(server.uri(), FAST).joinOnce(rank(1), Duration.ofSeconds(1)))
                .isInstanceOfSatisfying(AllsumClientException.class, e -> {
                    assertThat(e.title()).isEqualTo("Unreadable answer");
                    assertThat(e.detail()).contains("POST /rendezvous").contains("gzip");
                });
    }

    @Test
    void absentOptionalFieldsAreLeftOutOfTheJoinBody() throws IOException {
        StubAllsumServer server = stub().then(Reply.json(200, GROUP_VIEW));

        client(server.uri(), FAST).joinOnce(rank(1), Duration.ofSeconds(1));

        assertThat(server.requests().getFirst().body()).doesNotContain("uniqueId").doesNotContain("null")
                .contains("\"instanceId\":\"i1\"");
        assertThat(server.requests().getFirst().header("Content-Type")).isEqualTo("application/json");
    }

    @Test
    void nextJobIsEmptyOn204AndTheAssignmentOn200() throws IOException {
        StubAllsumServer server = stub()
                .then(Reply.empty(204))
                .then(Reply.json(200, """
                        {"jobId":"j-7","seq":7,"generation":2,"spec":{"op":"all_reduce","dtype":"float32",
                         "minBytes":8,"maxBytes":1024}}"""));
        HttpAllsumClient client = client(server.uri(), FAST);

        Optional<JobAssignment> none = client.nextJob("g", 3, "worker 3/a", 6, Duration.ofSeconds(2));
        Optional<JobAssignment> job = client.nextJob("g", 3, "worker 3/a", 6, Duration.ofSeconds(2));

        assertThat(none).isEmpty();
        assertThat(job).get().satisfies(a -> {
            assertThat(a.jobId()).isEqualTo("j-7");
            assertThat(a.seq()).isEqualTo(7);
            assertThat(a.spec().maxBytes()).isEqualTo(1024);
        });
        URI first = server.requests().getFirst().uri();
        assertThat(first.getRawPath()).isEqualTo("/rendezvous/g/jobs/next");
        assertThat(first.getRawQuery()).isEqualTo("rank=3&instanceId=worker%203%2Fa&after=6&wait=2");
    }

    @Test
    void reportAccepts204AndSubmitReadsTheJob() throws IOException {
        StubAllsumServer server = stub()
                .then(Reply.empty(204))
                .then(Reply.json(201, """
                        {"jobId":"j-1","group":"g","seq":1,"state":"queued","submittedAt":"2026-11-29T16:00:00Z"}"""))
                .then(Reply.json(200, "[{\"jobId\":\"j-1\",\"group\":\"g\",\"seq\":1,\"state\":\"running\"}]"));
        HttpAllsumClient client = client(server.uri(), FAST);

        client.report("g", "j-0", new RankReport(0, "i0", 1L, true, null, List.of()));
        var job = client.submitJob("g", JobSpec.allSum(1024));
        var jobs = client.jobs("g");

        assertThat(job.jobId()).isEqualTo("j-1");
        assertThat(job.submittedAt()).isEqualTo(java.time.Instant.parse("2026-11-29T16:00:00Z"));
        assertThat(jobs).singleElement().satisfies(j -> assertThat(j.state().isFinal()).isFalse());
        assertThat(server.requests()).extracting(r -> r.method() + " " + r.uri().getPath()).containsExactly(
                "POST /rendezvous/g/jobs/j-0/reports", "POST /rendezvous/g/jobs", "GET /rendezvous/g/jobs");
    }

    @Test
    void aClosedClientRefusesNewCalls() throws IOException {
        StubAllsumServer server = stub().otherwise(r -> Reply.json(200, GROUP_VIEW));
        HttpAllsumClient client = client(server.uri(), FAST);
        client.close();

        assertThatThrownBy(() -> client.status("g")).isInstanceOfSatisfying(AllsumClientException.class,
                e -> assertThat(e.title()).isEqualTo("Client closed"));
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void aJoinWaitingOnTheServerEndsWhenItsThreadIsInterrupted() throws Exception {
        java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
        StubAllsumServer server = stub().otherwise(r -> {
            arrived.countDown();
            sleepQuietly(Duration.ofSeconds(20)); // the server holds the join
            return Reply.json(200, GROUP_VIEW);
        });
        HttpAllsumClient client = client(server.uri(), FAST);
        java.util.concurrent.CompletableFuture<Throwable> outcome = new java.util.concurrent.CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                client.join(rank(1), Duration.ofSeconds(20));
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        assertThat(arrived.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        caller.interrupt();

        assertThat(outcome.get(5, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOfSatisfying(
                AllsumClientException.class, e -> assertThat(e.title()).isEqualTo("Interrupted"));
    }

    @Test
    void closingTheClientEndsAJoinWaitingOnTheServer() throws Exception {
        java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
        StubAllsumServer server = stub().otherwise(r -> {
            arrived.countDown();
            sleepQuietly(Duration.ofSeconds(20));
            return Reply.json(200, GROUP_VIEW);
        });
        HttpAllsumClient client = client(server.uri(), FAST);
        java.util.concurrent.CompletableFuture<GroupView> join = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> client.join(rank(1), Duration.ofSeconds(20)));
        assertThat(arrived.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        client.close();

        assertThatThrownBy(() -> join.get(5, java.util.concurrent.TimeUnit.SECONDS))
                .hasCauseInstanceOf(AllsumClientException.class)
                .cause().satisfies(e -> assertThat(((AllsumClientException) e).title()).isEqualTo("Client closed"));
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void rejectsABaseUrlThatIsNotHttp() {
        assertThatThrownBy(() -> HttpAllsumClient.builder("ftp://example.org")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ftp://example.org");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
