package io.allsum.server.jobs;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * The restart test against PostgreSQL, when one is reachable: set {@code ALLSUM_TEST_POSTGRES_URL} (a JDBC url with
 * user and password, e.g. {@code jdbc:postgresql://127.0.0.1:5432/allsum?user=allsum&password=secret}); each run
 * migrates a fresh schema of its own. Skipped, saying why, when the variable is unset or the database does not
 * answer.
 */
class PostgresJobHistoryRestartTest extends JobHistoryRestartTest {

    static final String URL_VARIABLE = "ALLSUM_TEST_POSTGRES_URL";

    private String url;
    private final String schema = "allsum_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeEach
    void requirePostgres() {
        url = System.getenv(URL_VARIABLE);
        Assumptions.assumeTrue(url != null && !url.isBlank(), "no PostgreSQL to test against: " + URL_VARIABLE
                + " is not set (docs/jobs.md, 'PostgreSQL')");
        try (Connection connection = DriverManager.getConnection(url)) {
            Assumptions.assumeTrue(connection.isValid(5), "PostgreSQL at " + URL_VARIABLE + " does not answer");
        } catch (SQLException e) {
            Assumptions.abort("PostgreSQL at " + URL_VARIABLE + " is not reachable: " + e.getMessage());
        }
    }

    @Override
    List<String> databaseArguments() {
        String separator = url.contains("?") ? "&" : "?";
        return List.of("--spring.datasource.url=" + url + separator + "currentSchema=" + schema,
                "--spring.flyway.schemas=" + schema);
    }

    @Override
    Path databaseFile() {
        return null;
    }
}
