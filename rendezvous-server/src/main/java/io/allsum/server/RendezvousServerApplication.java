package io.allsum.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The allsum rendezvous server: runs on rank 0's host, hands out the NCCL id, sequences jobs. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class RendezvousServerApplication {

    public static void main(String[] args) {
        SpringApplication.run(RendezvousServerApplication.class, args);
    }
}
