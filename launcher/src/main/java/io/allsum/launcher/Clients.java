package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.client.HttpAllsumClient;
import io.allsum.client.RetryPolicy;

import java.net.URI;
import java.time.Duration;

/** The typed client as the launcher uses it: short timeouts, because a person is waiting at the terminal. */
public final class Clients {

    private Clients() {
    }

    public static AllsumClient connect(URI server, String token) {
        try {
            return HttpAllsumClient.builder(server)
                    .token(token)
                    .connectTimeout(Duration.ofSeconds(3))
                    .requestTimeout(Duration.ofSeconds(10))
                    .retryPolicy(RetryPolicy.DEFAULT.withDeadline(Duration.ofSeconds(10)))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new LauncherException(ExitCodes.USAGE, e.getMessage(), e);
        }
    }
}
