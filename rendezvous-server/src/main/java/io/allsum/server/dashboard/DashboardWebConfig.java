package io.allsum.server.dashboard;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

import java.io.IOException;

/**
 * Serves the page ({@code classpath:/static/dashboard/}) at {@code /dashboard/}, with headers that keep it to its own
 * files: no script, style or frame from elsewhere, and not framed by another site.
 */
@Configuration(proxyBeanMethods = false)
class DashboardWebConfig implements WebMvcConfigurer {

    /** The page's own files only; 'self' for fetch() to this server's APIs. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

    @Override
    public void addViewControllers(ViewControllerRegistry registry) {
        registry.addRedirectViewController("/", DashboardPaths.ROOT + "/"); // a browser pointed at the server
        registry.addRedirectViewController(DashboardPaths.ROOT, DashboardPaths.ROOT + "/");
        registry.addViewController(DashboardPaths.ROOT + "/").setViewName("forward:" + DashboardPaths.ROOT + "/index.html");
    }

    @Bean
    FilterRegistrationBean<OncePerRequestFilter> dashboardHeaders() {
        FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                    throws ServletException, IOException {
                response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
                response.setHeader("X-Content-Type-Options", "nosniff");
                response.setHeader("Referrer-Policy", "no-referrer");
                // Data answers carry a token-gated view of the cluster: never kept by a shared cache.
                response.setHeader("Cache-Control", "no-store");
                chain.doFilter(request, response);
            }
        });
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 5);
        registration.addUrlPatterns(DashboardPaths.ROOT, DashboardPaths.ROOT + "/*");
        return registration;
    }
}
