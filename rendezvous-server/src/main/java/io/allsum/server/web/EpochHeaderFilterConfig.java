package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.server.rendezvous.ServerEpoch;
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

/** The {@value Protocol#EPOCH_HEADER} header, the {@link ServerEpoch}'s id, on every servlet response. */
@Configuration(proxyBeanMethods = false)
class EpochHeaderFilterConfig {

    /** First of all filters: even a 401 or a 413 tells the client which incarnation answered. */
    static final int EPOCH_HEADER_ORDER = Ordered.HIGHEST_PRECEDENCE;

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
