package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * This server's incarnation: a random id chosen at startup. It is in every rendezvous answer and, through the
 * {@value Protocol#EPOCH_HEADER} header, on every response (jobs included), so that a worker can tell a restarted
 * server, which holds none of the old groups, generations or job sequence numbers, from the one it knew.
 */
public record ServerEpoch(String id) {

    /** 64 random bits: two incarnations never share an id in practice. */
    public static ServerEpoch random() {
        byte[] bytes = new byte[8];
        new SecureRandom().nextBytes(bytes);
        return new ServerEpoch(HexFormat.of().formatHex(bytes));
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        ServerEpoch serverEpoch() {
            return ServerEpoch.random();
        }
    }
}
