package io.allsum.worker;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** One allsum worker per GPU (or per CPU rank): joins the rendezvous, builds the communicator, runs jobs. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class WorkerAgentApplication {

    public static void main(String[] args) {
        SpringApplication.run(WorkerAgentApplication.class, args);
    }
}
