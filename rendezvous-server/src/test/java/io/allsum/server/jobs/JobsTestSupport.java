package io.allsum.server.jobs;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/** Replaces the rendezvous registry by {@link FakeGroupDirectory} for the job tests. */
@TestConfiguration(proxyBeanMethods = false)
public class JobsTestSupport {

    @Bean
    @Primary
    FakeGroupDirectory fakeGroupDirectory(ApplicationEventPublisher events) {
        return new FakeGroupDirectory(events);
    }
}
