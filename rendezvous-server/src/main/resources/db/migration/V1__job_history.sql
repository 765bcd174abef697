-- Job history (docs/jobs.md). Portable SQL: runs on the embedded H2 file database and on PostgreSQL.

-- The highest seq ever given in a group, kept apart from the jobs so that numbering continues after retention
-- deleted every job of a group (workers' cursors stay meaningful).
CREATE TABLE job_group (
    group_name VARCHAR(64) NOT NULL PRIMARY KEY,
    last_seq   BIGINT      NOT NULL
);

CREATE TABLE job (
    job_id                  VARCHAR(64)              NOT NULL PRIMARY KEY,
    group_name              VARCHAR(64)              NOT NULL,
    seq                     BIGINT                   NOT NULL,
    state                   VARCHAR(16)              NOT NULL,
    spec                    TEXT                     NOT NULL, -- JobSpec as JSON, defaults applied
    generation              BIGINT,
    world_size              INTEGER,
    submitted_at            TIMESTAMP WITH TIME ZONE NOT NULL,
    dispatched_at           TIMESTAMP WITH TIME ZONE,
    finished_at             TIMESTAMP WITH TIME ZONE,
    dispatch_latency_micros DOUBLE PRECISION,
    reported_ranks          TEXT,                              -- JSON array of ranks
    failure_reason          TEXT,
    results                 TEXT,                              -- JSON array of SizeResult
    CONSTRAINT job_group_seq UNIQUE (group_name, seq)
);

CREATE INDEX job_state ON job (state);
CREATE INDEX job_finished_at ON job (finished_at);
