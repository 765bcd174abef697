package io.allsum.server.jobs;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import java.time.Duration;

/** Replaces the rendezvous registry by {@link FakeGroupDirectory} for the job tests. */
@TestConfiguration(proxyBeanMethods = false)
public class JobsTestSupport {

    @Bean
    @Primary
    FakeGroupDirectory fakeGroupDirectory(ApplicationEventPublisher events) {
        return new FakeGroupDirectory(events);
    }

    /** The job tests' server is long up: an unknown group is answered 404 at once (StartupGraceTest has the grace). */
    @Bean
    @Primary
    StartupGrace startupGraceOver() {
        return new StartupGrace(Duration.ZERO);
    }
}
