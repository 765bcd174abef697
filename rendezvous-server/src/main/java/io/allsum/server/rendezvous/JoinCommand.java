package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import io.allsum.model.rendezvous.UniqueId;
import io.allsum.server.problem.ProblemException;

/**
 * A join request validated once at the edge: non-null fields, the unique id decoded once (by the validator's
 * check). Everything past the join handler takes this, never the raw {@link JoinRequest}. Its {@code toString} is
 * safe to log ({@link UniqueId} is redacted).
 *
 * @param uniqueId       rank 0's id with nccl; null otherwise
 * @param lastGeneration the generation this instance last belonged to; 0 when none (a fresh process)
 */
public record JoinCommand(String group, int rank, int worldSize, String instanceId, Backend backend, UniqueId uniqueId,
              String endpoint, String host, String device, long lastGeneration) {

    /** @throws ProblemException 400 naming every violation */
    public static JoinCommand from(JoinRequest request, JoinRequestValidator validator) {
        JoinRequestValidator.Checked checked = validator.check(request);
        if (!checked.isValid()) {
            throw ProblemException.invalid(checked.violations());
        }
        return new JoinCommand(request.group(), request.rank(), request.worldSize(), request.instanceId(),
                request.backend(), checked.uniqueId(),
                request.endpoint(), request.host(), request.device(),
                request.lastGeneration() == null ? 0 : request.lastGeneration());
    }
}
