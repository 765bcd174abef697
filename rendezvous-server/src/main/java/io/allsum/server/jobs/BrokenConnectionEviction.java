package io.allsum.server.jobs;

import com.zaxxer.hikari.SQLExceptionOverride;

import java.sql.SQLException;
import java.util.Set;

/**
 * Tells the connection pool to drop a connection whose embedded H2 database closed itself (after a failed write,
 * such as a full disk, H2 closes the database and every open connection answers "database closed" for good).
 * Dropped, the next connection opens the file again, so that the store recovers once writes succeed. Other
 * databases' errors keep the pool's own rules. Set by {@code spring.datasource.hikari.exception-override-class-name}.
 */
public class BrokenConnectionEviction implements SQLExceptionOverride {

    /** H2's general error (a failed store write), IO errors, closed database, database at shutdown. */
    private static final Set<Integer> H2_BROKEN = Set.of(50000, 90028, 90031, 90098, 90121);

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        return H2_BROKEN.contains(e.getErrorCode()) ? Override.MUST_EVICT : Override.CONTINUE_EVICT;
    }
}
