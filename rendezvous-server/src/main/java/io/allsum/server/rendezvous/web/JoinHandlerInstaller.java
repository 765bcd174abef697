package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.RendezvousMeters;
import io.allsum.server.rendezvous.RendezvousProperties;
import io.allsum.server.rendezvous.RendezvousRegistry;
import io.allsum.server.rendezvous.ServerEpoch;
import io.allsum.model.security.BearerToken;
import io.allsum.server.security.SecurityProperties;
import io.allsum.server.web.ProblemWriter;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/** Puts {@link JoinHandler}, the join endpoint, in front of the servlet application. */
@Component
class JoinHandlerInstaller implements WebServerFactoryCustomizer<JettyServletWebServerFactory> {

    private final JoinHandler handler;

    JoinHandlerInstaller(@Value("${server.servlet.context-path:}") String contextPath,
                         RendezvousRegistry registry, RendezvousProperties properties, JoinResponses answers,
                         ProblemWriter problems, RendezvousMeters meters, JsonMapper json, SecurityProperties security,
                         ServerEpoch epoch) {
        this.handler = new JoinHandler(contextPath, registry, properties, answers, problems, meters, json,
                security.tokenConfigured() ? BearerToken.of(security.token()) : null, epoch.id());
    }

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        factory.addServerCustomizers(server -> server.insertHandler(handler));
    }
}
