package io.allsum.model.rendezvous;

/**
 * Body of {@code POST /rendezvous/{group}/failures}: a member reports that {@code failedRank} (possibly itself)
 * failed in {@code generation}. The generation fails; survivors re-join generation + 1.
 */
public record FailureReport(Integer reporterRank, String instanceId, Long generation, Integer failedRank,
                            String reason) {
}
