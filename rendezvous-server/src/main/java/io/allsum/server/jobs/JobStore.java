package io.allsum.server.jobs;

import io.allsum.model.ProtocolJson;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.validate.ValidationResult;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * The job history in a JDBC database (schema: {@code db/migration}, applied by Flyway at startup). Every job is
 * written when submitted, when dispatched and when it ends; what only matters while it runs (which ranks received
 * it, the reports of a running job) stays in memory. Portable SQL only, so H2 and PostgreSQL run the same text.
 * <p>
 * One server per database: the sequence and the startup recovery assume no other server writes the same jobs.
 */
@Repository
class JobStore {

    private static final JsonMapper JSON = ProtocolJson.mapper();
    private static final TypeReference<List<Integer>> RANKS = new TypeReference<>() {
    };
    private static final TypeReference<List<SizeResult>> RESULTS = new TypeReference<>() {
    };
    private static final List<String> UNFINISHED = List.of(JobState.QUEUED.wireName(), JobState.RUNNING.wireName());
    private static final String COLUMNS = "job_id, group_name, seq, state, spec, generation, submitted_at,"
            + " dispatched_at, finished_at, dispatch_latency_micros, reported_ranks, failure_reason, results, validation";

    private static final String PROBE_GROUP = "/write-probe";

    private final JdbcClient jdbc;

    JobStore(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** The highest seq ever given in the group; 0 for a group never seen. */
    long lastSeq(String group) {
        Long saved = jdbc.sql("SELECT last_seq FROM job_group WHERE group_name = ?").param(group)
                .query(Long.class).optional().orElse(null);
        if (saved != null) {
            return saved;
        }
        // Belt and braces, should the sequence row be missing while jobs are not.
        return jdbc.sql("SELECT COALESCE(MAX(seq), 0) FROM job WHERE group_name = ?").param(group)
                .query(Long.class).single();
    }

    /** Stores a newly submitted job and advances the group's sequence to its seq. */
    void insert(JobRecord job) {
        int updated = jdbc.sql("UPDATE job_group SET last_seq = ? WHERE group_name = ?")
                .param(job.seq).param(job.group).update();
        if (updated == 0) {
            jdbc.sql("INSERT INTO job_group (group_name, last_seq) VALUES (?, ?)").param(job.group).param(job.seq).update();
        }
        jdbc.sql("INSERT INTO job (job_id, group_name, seq, state, spec, submitted_at) VALUES (?, ?, ?, ?, ?, ?)")
                .param(job.jobId).param(job.group).param(job.seq).param(job.state.wireName())
                .param(JSON.writeValueAsString(job.spec)).param(time(job.submittedAt))
                .update();
    }

    /** Records that the job went to its generation (what a restart needs to say where it was running). */
    void saveDispatch(JobRecord job) {
        jdbc.sql("UPDATE job SET state = ?, generation = ?, world_size = ?, dispatched_at = ? WHERE job_id = ?")
                .param(job.state.wireName()).param(typed(Types.BIGINT, job.generation)).param(job.worldSize)
                .param(typed(Types.TIMESTAMP_WITH_TIMEZONE, time(job.dispatchedAt)))
                .param(job.jobId)
                .update();
    }

    /** Writes everything the job's view shows; called once it ended. */
    void saveFinal(JobRecord job) {
        Job view = job.view();
        jdbc.sql("UPDATE job SET state = ?, generation = ?, world_size = ?, dispatched_at = ?, finished_at = ?,"
                        + " dispatch_latency_micros = ?, reported_ranks = ?, failure_reason = ?, results = ?,"
                        + " validation = ? WHERE job_id = ?")
                .param(view.state().wireName()).param(typed(Types.BIGINT, view.generation())).param(job.worldSize)
                .param(typed(Types.TIMESTAMP_WITH_TIMEZONE, time(view.dispatchedAt())))
                .param(typed(Types.TIMESTAMP_WITH_TIMEZONE, time(view.finishedAt())))
                .param(typed(Types.DOUBLE, view.dispatchLatencyMicros()))
                .param(JSON.writeValueAsString(view.reportedRanks()))
                .param(typed(Types.VARCHAR, view.failureReason()))
                .param(JSON.writeValueAsString(view.results()))
                .param(typed(Types.VARCHAR, view.validation() == null ? null
                        : JSON.writeValueAsString(view.validation())))
                .param(view.jobId())
                .update();
    }

    Optional<Job> find(String group, String jobId) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM job WHERE job_id = ? AND group_name = ?")
                .param(jobId).param(group).query(JobStore::job).optional();
    }

    /** The group's jobs, oldest (lowest seq) first. */
    List<Job> list(String group) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM job WHERE group_name = ? ORDER BY seq")
                .param(group).query(JobStore::job).list();
    }

    /** Every group with a job sequence kept (jobs stored now or earlier), by name. */
    List<String> groupNames() {
        return jdbc.sql("SELECT group_name FROM job_group ORDER BY group_name").query(String.class).list();
    }

    /** Whether any job of the group was ever stored (and its sequence kept). */
    boolean knows(String group) {
        return jdbc.sql("SELECT COUNT(*) FROM job_group WHERE group_name = ?").param(group)
                .query(Long.class).single() > 0;
    }

    /**
     * Deletes the group's oldest finished jobs until at most {@code keep} jobs remain (unfinished jobs are never
     * deleted, so more may remain); returns how many went.
     */
    int trim(String group, int keep) {
        long count = jdbc.sql("SELECT COUNT(*) FROM job WHERE group_name = ?").param(group).query(Long.class).single();
        if (count <= keep) {
            return 0;
        }
        List<String> oldest = jdbc.sql("SELECT job_id FROM job WHERE group_name = ? AND state NOT IN (?, ?)"
                        + " ORDER BY seq FETCH FIRST " + (count - keep) + " ROWS ONLY")
                .param(group).param(UNFINISHED.get(0)).param(UNFINISHED.get(1))
                .query(String.class).list();
        int deleted = 0;
        for (String jobId : oldest) {
            deleted += jdbc.sql("DELETE FROM job WHERE job_id = ?").param(jobId).update();
        }
        return deleted;
    }

    /** Groups holding more than {@code keep} jobs. */
    List<String> groupsOver(int keep) {
        return jdbc.sql("SELECT group_name FROM job GROUP BY group_name HAVING COUNT(*) > ?").param(keep)
                .query(String.class).list();
    }

    /** Deletes finished jobs that ended before {@code cutoff}; returns how many. */
    int deleteFinishedBefore(Instant cutoff) {
        return jdbc.sql("DELETE FROM job WHERE finished_at < ? AND state NOT IN (?, ?)")
                .param(time(cutoff)).param(UNFINISHED.get(0)).param(UNFINISHED.get(1)).update();
    }

    /**
     * At startup: nothing can still be queued or running, since this server has handed nothing out yet. Jobs the
     * previous server left so are marked INTERRUPTED with the reason; returns how many.
     */
    int interruptUnfinished(Instant now) {
        int running = jdbc.sql("UPDATE job SET state = ?, finished_at = ?, failure_reason = ? WHERE state = ?")
                .param(JobState.INTERRUPTED.wireName()).param(time(now))
                .param("server restarted while the job was running; its ranks' reports were lost with it")
                .param(JobState.RUNNING.wireName())
                .update();
        int queued = jdbc.sql("UPDATE job SET state = ?, finished_at = ?, failure_reason = ? WHERE state = ?")
                .param(JobState.INTERRUPTED.wireName()).param(time(now))
                .param("server restarted while the job was queued; no rank ran it, submit it again")
                .param(JobState.QUEUED.wireName())
                .update();
        return running + queued;
    }

    /**
     * Writes and deletes a sequence row that no group can own (outside {@code Protocol.GROUP_NAME}); in one
     * transaction it leaves nothing behind. Throws while the database cannot write.
     */
    void probeWrite() {
        jdbc.sql("INSERT INTO job_group (group_name, last_seq) VALUES (?, 0)").param(PROBE_GROUP).update();
        jdbc.sql("DELETE FROM job_group WHERE group_name = ?").param(PROBE_GROUP).update();
    }

    private static Job job(ResultSet rs, int row) throws SQLException {
        Long generation = rs.getObject("generation", Long.class);
        Double latency = rs.getObject("dispatch_latency_micros", Double.class);
        String ranks = rs.getString("reported_ranks");
        String results = rs.getString("results");
        String validation = rs.getString("validation");
        return new Job(rs.getString("job_id"), rs.getString("group_name"), rs.getLong("seq"), generation,
                JSON.readValue(rs.getString("spec"), JobSpec.class), JobState.fromWire(rs.getString("state")),
                instant(rs, "submitted_at"), instant(rs, "dispatched_at"), instant(rs, "finished_at"), latency,
                ranks == null ? List.of() : JSON.readValue(ranks, RANKS),
                rs.getString("failure_reason"),
                results == null ? List.of() : JSON.readValue(results, RESULTS),
                validation == null ? null : JSON.readValue(validation, ValidationResult.class));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** A nullable value with its SQL type, so that a null binds on every driver. */
    private static SqlParameterValue typed(int sqlType, Object value) {
        return new SqlParameterValue(sqlType, value);
    }

    private static OffsetDateTime time(Instant instant) {
        return instant == null ? null : instant.atOffset(ZoneOffset.UTC);
    }
}
