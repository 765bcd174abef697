package io.allsum.server.jobs;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Points the job history at an H2 file database under {@code allsum.data-dir} (env {@code ALLSUM_DATA_DIR},
 * default {@code ./data}) unless {@code spring.datasource.url} names a database. The directory is made absolute
 * and created here, so that a relative setting works (H2 refuses implicitly relative paths) and a missing or
 * unwritable directory is reported before anything else starts.
 */
public class DataDirectory implements EnvironmentPostProcessor, Ordered {

    static final String DATA_DIR = "allsum.data-dir";
    static final String DEFAULT_DATA_DIR = "./data";
    static final String SOURCE_NAME = "allsumJobHistoryDatabase";
    /** The database file is {@code <data-dir>/allsum-jobs.mv.db}. */
    static final String DATABASE_NAME = "allsum-jobs";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        String configuredUrl = env.getProperty("spring.datasource.url");
        if (configuredUrl != null && !configuredUrl.isBlank()) {
            return;
        }
        Path dir = Path.of(env.getProperty(DATA_DIR, DEFAULT_DATA_DIR)).toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + dir + " (" + DATA_DIR
                    + " / ALLSUM_DATA_DIR): " + e, e);
        }
        if (!Files.isWritable(dir)) {
            throw new IllegalStateException("the data directory " + dir + " (" + DATA_DIR
                    + " / ALLSUM_DATA_DIR) is not writable by this user");
        }
        // DB_CLOSE_ON_EXIT=FALSE: Spring closes the pool on shutdown; H2's own hook would race it.
        String url = "jdbc:h2:file:" + dir.resolve(DATABASE_NAME) + ";DB_CLOSE_ON_EXIT=FALSE";
        // First: it only ever replaces an absent or blank url (a blank one would otherwise win and mean "in memory").
        env.getPropertySources().addFirst(new MapPropertySource(SOURCE_NAME, Map.of(
                "spring.datasource.url", url,
                "spring.datasource.username", env.getProperty("spring.datasource.username", "sa"),
                "spring.datasource.password", env.getProperty("spring.datasource.password", ""))));
    }

    @Override
    public int getOrder() {
        // After the config files are loaded (ConfigDataEnvironmentPostProcessor), so that they are seen here.
        return Ordered.LOWEST_PRECEDENCE;
    }
}
