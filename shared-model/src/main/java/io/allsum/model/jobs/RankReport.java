package io.allsum.model.jobs;

import tools.jackson.databind.annotation.JsonDeserialize;

import java.util.List;

/**
 * Body of {@code POST /rendezvous/{group}/jobs/{jobId}/reports}: one rank's outcome. {@code error} is set (and
 * {@code succeeded} false) when the rank could not finish, e.g. a peer died or a deadline passed.
 */
public record RankReport(@JsonDeserialize(using = WholeNumbers.IntOnly.class) Integer rank, String instanceId,
                         @JsonDeserialize(using = WholeNumbers.LongOnly.class) Long generation, Boolean succeeded,
                         String error, List<RankSizeResult> results) {
}
