package io.allsum.server.jobs;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.util.HashMap;
import java.util.Map;

/** {@link JobsProperties} bound as the server binds them, so that tests take the defaults from the one place. */
final class JobsSettings {

    private JobsSettings() {
    }

    static JobsProperties defaults() {
        return with(Map.of());
    }

    /** @param settings {@code allsum.jobs.*} names without the prefix, e.g. {@code "history" -> "2"} */
    static JobsProperties with(Map<String, String> settings) {
        Map<String, String> prefixed = new HashMap<>();
        settings.forEach((name, value) -> prefixed.put("allsum.jobs." + name, value));
        return new Binder(new MapConfigurationPropertySource(prefixed)).bindOrCreate("allsum.jobs", JobsProperties.class);
    }
}
