package io.allsum.model.jobs;

import io.allsum.model.validate.RankValidation;
import io.allsum.model.WholeNumbers;
import tools.jackson.databind.annotation.JsonDeserialize;

import java.util.List;

/**
 * Body of {@code POST /rendezvous/{group}/jobs/{jobId}/reports}: one rank's outcome. {@code error} is set (and
 * {@code succeeded} false) when the rank could not finish, e.g. a peer died or a deadline passed. A report with
 * {@code partial} true is progress: what the rank has measured so far, replaced by its next report; the final
 * report (partial null or false) ends the rank's part. {@code validation} carries a validation job's figures.
 */
public record RankReport(@JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer rank, String instanceId,
                         @JsonDeserialize(using = WholeNumbers.LongOnly.class) Long generation, Boolean succeeded,
                         String error, List<RankSizeResult> results, Boolean partial, RankValidation validation) {

    /** A final report of a sweep. */
    public RankReport(Integer rank, String instanceId, Long generation, Boolean succeeded, String error,
                      List<RankSizeResult> results) {
        this(rank, instanceId, generation, succeeded, error, results, null, null);
    }

    public boolean isPartial() {
        return Boolean.TRUE.equals(partial);
    }
}
