package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.RendezvousMeters;
import io.allsum.server.rendezvous.RendezvousProperties;
import io.allsum.server.rendezvous.RendezvousRegistry;
import io.allsum.server.rendezvous.ServerEpoch;
import io.allsum.web.BearerTokenFilter;
import io.allsum.web.ProblemWriter;
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
                         ProblemWriter problems, RendezvousMeters meters, JsonMapper json, BearerTokenFilter tokens,
                         ServerEpoch epoch) {
        this.handler = new JoinHandler(contextPath, registry, properties, answers, problems, meters, json,
                tokens, epoch.id());
    }

    @Override
    public void customize(JettyServletWebServerFactory factory) {
        factory.addServerCustomizers(server -> server.insertHandler(handler));
    }
}
