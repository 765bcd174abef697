package io.allsum.server.jobs;

import org.flywaydb.core.Flyway;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import javax.sql.DataSource;
import java.util.UUID;

/** Real job stores for unit tests: an H2 database migrated by the same Flyway scripts as the server's. */
final class TestJobStores {

    private TestJobStores() {
    }

    /** A fresh in-memory database, kept until the JVM ends. */
    static DataSource freshDatabase() {
        DriverManagerDataSource ds = new DriverManagerDataSource(
                "jdbc:h2:mem:jobs-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
        Flyway.configure().dataSource(ds).locations("classpath:db/migration").load().migrate();
        return ds;
    }

    static JobStore inMemory() {
        return new JobStore(JdbcClient.create(freshDatabase()));
    }
}
