package io.allsum.worker.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;

/** The worker's port is random by default (server.port=0): say which one it got. */
public class WorkerPortLogger implements ApplicationListener<WebServerInitializedEvent> {

    private static final Logger log = LoggerFactory.getLogger(WorkerPortLogger.class);

    private final WorkerProperties props;

    public WorkerPortLogger(WorkerProperties props) {
        this.props = props;
    }

    @Override
    public void onApplicationEvent(WebServerInitializedEvent event) {
        log.info("allsum worker rank {} of group '{}' serves HTTP on port {}", props.rank(), props.group(),
                event.getWebServer().getPort());
    }
}
