package io.allsum.launcher;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/** Checks a server's {@code /actuator/health}, which is open without the token. */
public final class ServerProbe {

    private final HttpClient http;
    private final URI health;

    public ServerProbe(URI server) {
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
        this.health = server.resolve("/actuator/health");
    }

    /** One probe: null when the server answered 200, else why not, as a short phrase. */
    public String problem(Duration timeout) {
        if (timeout.isZero() || timeout.isNegative()) {
            // The JDK refuses a zero request timeout ("Invalid duration: PT0S"): there is no time left to ask.
            return "no time left to ask";
        }
        try {
            HttpRequest request = HttpRequest.newBuilder(health).timeout(timeout).GET().build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? null : "health answered " + response.statusCode();
        } catch (HttpConnectTimeoutException e) {
            return "connect timed out";
        } catch (HttpTimeoutException e) {
            return "no answer within " + timeout.toMillis() + " ms";
        } catch (ConnectException e) {
            return "connection refused";
        } catch (IOException e) {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", e);
        }
    }

    /** Polls until healthy; {@code whileWaiting} runs between probes (it throws when a child died). */
    public void awaitHealthy(Deadline deadline, Runnable whileWaiting) {
        awaitHealthy(deadline, whileWaiting, null);
    }

    /**
     * As {@link #awaitHealthy(Deadline, Runnable)}, with a note of what it waits for every {@link Progress#NOTE_EVERY}
     * of silence on {@code progress} (none when null), so that a slow start is never a silent wait.
     */
    public void awaitHealthy(Deadline deadline, Runnable whileWaiting, Progress progress) {
        String problem = "not asked yet";
        while (!deadline.passed()) {
            Duration wait = deadline.remainingAtMost(Duration.ofSeconds(2));
            String now = problem(wait);
            if (now == null) {
                return;
            }
            // A probe cut short by the deadline says less than an earlier full one (e.g. "connection refused").
            if (problem.equals("not asked yet") || wait.toMillis() >= 200) {
                problem = now;
            }
            whileWaiting.run();
            if (progress != null && progress.noteDue()) {
                progress.event("waiting for the server at " + health.resolve("/") + " to be healthy (last probe: "
                        + problem + ")");
            }
            deadline.sleep(Duration.ofMillis(50));
        }
        throw new LauncherException("the server at " + health.resolve("/") + " was not healthy " + deadline.within()
                + " (last probe: " + problem + ")");
    }
}
