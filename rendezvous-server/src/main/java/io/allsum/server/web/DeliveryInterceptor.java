package io.allsum.server.web;

import io.allsum.server.rendezvous.Delivery;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Marks a completed join's answer as delivered once Spring MVC has written it, for the
 * {@code allsum.rendezvous.delivery} timer.
 */
class DeliveryInterceptor implements HandlerInterceptor {

    static final String ATTRIBUTE = DeliveryInterceptor.class.getName() + ".delivery";

    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler,
                                Exception ex) {
        if (request.getAttribute(ATTRIBUTE) instanceof Delivery delivery) {
            request.removeAttribute(ATTRIBUTE);
            delivery.answered();
        }
    }
}
