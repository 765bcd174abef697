package io.allsum.server.rendezvous;

import io.allsum.model.security.BearerToken;
import io.allsum.server.security.SecurityProperties;
import io.allsum.server.web.ProblemWriter;
import io.allsum.server.web.ServerEpoch;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Puts {@link JoinHandler} in front of the servlet application, so that well-formed joins never enter the servlet
 * layer. {@code allsum.rendezvous.core-joins=false} leaves every join to the servlet path (for comparison).
 */
@Component
class JoinHandlerInstaller implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    private final JoinHandler handler;
    private final boolean enabled;

    JoinHandlerInstaller(@Value("${server.servlet.context-path:}") String contextPath,
                         @Value("${allsum.rendezvous.core-joins:true}") boolean enabled,
                         RendezvousRegistry registry, RendezvousProperties properties, JoinResponses answers,
                         ProblemWriter problems, RendezvousMeters meters, JsonMapper json, SecurityProperties security,
                         ServerEpoch epoch) {
        this.enabled = enabled;
        this.handler = new JoinHandler(contextPath, registry, properties, answers, problems, meters, json,
                security.tokenConfigured() ? BearerToken.of(security.token()) : null, epoch.id());
    }

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        if (enabled) {
            factory.addServerCustomizers(server -> server.insertHandler(handler));
        }
    }

    /** Joins the core handler answered itself. */
    long servedJoins() {
        return handler.served();
    }
}
