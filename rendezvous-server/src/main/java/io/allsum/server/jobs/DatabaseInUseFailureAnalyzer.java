package io.allsum.server.jobs;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import java.sql.SQLException;

/**
 * Turns H2's "Database may be already in use" at startup (another server holds the data directory's database file)
 * into one clear message instead of a page of nested bean-creation errors.
 */
class DatabaseInUseFailureAnalyzer extends AbstractFailureAnalyzer<SQLException> {

    /** H2's ErrorCode.DATABASE_ALREADY_OPEN_1. */
    static final int H2_DATABASE_ALREADY_OPEN = 90020;

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SQLException cause) {
        if (cause.getErrorCode() != H2_DATABASE_ALREADY_OPEN) {
            return null;
        }
        return new FailureAnalysis("The job history database is in use by another process: " + cause.getMessage(),
                "Run one rendezvous server per data directory: stop the other server, or give this one its own"
                        + " directory (ALLSUM_DATA_DIR or --allsum.data-dir).", cause);
    }
}
