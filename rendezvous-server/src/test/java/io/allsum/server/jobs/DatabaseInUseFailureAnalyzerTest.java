package io.allsum.server.jobs;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

class DatabaseInUseFailureAnalyzerTest {

    private final DatabaseInUseFailureAnalyzer analyzer = new DatabaseInUseFailureAnalyzer();

    @Test
    void databaseHeldByAnotherServerIsExplainedWithTheFix() {
        SQLException inUse = new SQLException("Database may be already in use: \"/var/lib/allsum/allsum-jobs.mv.db\"",
                "90020", DatabaseInUseFailureAnalyzer.H2_DATABASE_ALREADY_OPEN);

        FailureAnalysis analysis = analyzer.analyze(new IllegalStateException("context failed",
                new RuntimeException("flyway", inUse)));

        assertThat(analysis.getDescription()).contains("in use by another process").contains("/var/lib/allsum");
        assertThat(analysis.getAction()).contains("ALLSUM_DATA_DIR");
    }

    @Test
    void otherDatabaseErrorsAreLeftToSpring() {
        assertThat(analyzer.analyze(new SQLException("connection refused", "08001", 0))).isNull();
    }
}
