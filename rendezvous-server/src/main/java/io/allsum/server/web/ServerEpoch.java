package io.allsum.server.web;

import io.allsum.model.Protocol;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
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

        /** First of all filters: even a 401 or a 413 tells the client which incarnation answered. */
        static final int EPOCH_HEADER_ORDER = Ordered.HIGHEST_PRECEDENCE;

        @Bean
        ServerEpoch serverEpoch() {
            return ServerEpoch.random();
        }

        @Bean
        FilterRegistrationBean<OncePerRequestFilter> epochHeaderFilter(ServerEpoch epoch) {
            OncePerRequestFilter filter = new OncePerRequestFilter() {
                @Override
                protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                                                FilterChain chain) throws ServletException, IOException {
                    response.setHeader(Protocol.EPOCH_HEADER, epoch.id());
                    chain.doFilter(request, response);
                }

                @Override
                protected boolean shouldNotFilterErrorDispatch() {
                    return false;
                }
            };
            FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(filter);
            registration.setOrder(EPOCH_HEADER_ORDER);
            registration.addUrlPatterns("/*");
            return registration;
        }
    }
}
