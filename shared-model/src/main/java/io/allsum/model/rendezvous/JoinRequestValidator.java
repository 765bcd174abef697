package io.allsum.model.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.Protocol;
import io.allsum.model.problem.Violation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks a {@link JoinRequest} against protocol v1 (docs/protocol.md) and returns every violation, each naming its
 * field. Messages never repeat the unique id: it is a secret.
 */
public final class JoinRequestValidator {

    /**
     * The largest {@code lastGeneration}: far above any count a group reaches, and far enough below
     * {@code Long.MAX_VALUE} that the generations numbered above it never overflow.
     */
    public static final long MAX_LAST_GENERATION = 1L << 62;
    private static final int MAX_FREE_TEXT_LENGTH = 256;

    private final int maxWorldSize;

    public JoinRequestValidator(int maxWorldSize) {
        if (maxWorldSize < 1) {
            throw new IllegalArgumentException("maxWorldSize must be at least 1, got " + maxWorldSize);
        }
        this.maxWorldSize = maxWorldSize;
    }

    public static JoinRequestValidator withDefaults() {
        return new JoinRequestValidator(Protocol.DEFAULT_MAX_WORLD_SIZE);
    }

    public int maxWorldSize() {
        return maxWorldSize;
    }

    /** Every violation of {@code request}, in field order; empty when the request is valid. */
    public List<Violation> validate(JoinRequest request) {
        return check(request).violations();
    }

    /**
     * The request checked once: its violations, and its unique id decoded (null when absent or invalid), so that the
     * edge hands the decoded {@link UniqueId} inward instead of decoding it again.
     */
    public record Checked(List<Violation> violations, UniqueId uniqueId) {
        public boolean isValid() {
            return violations.isEmpty();
        }
    }

    public Checked check(JoinRequest request) {
        List<Violation> violations = new ArrayList<>();
        if (request == null) {
            violations.add(new Violation("body", "a JSON object is required"));
            return new Checked(violations, null);
        }
        checkGroup(request.group(), violations);
        boolean worldSizeValid = checkWorldSize(request.worldSize(), violations);
        checkRank(request.rank(), worldSizeValid ? request.worldSize() : null, violations);
        checkInstanceId(request.instanceId(), violations);
        if (request.backend() == null) {
            violations.add(new Violation("backend", "is required; expected one of [nccl, ring]"));
        }
        UniqueId uniqueId = checkUniqueId(request, violations);
        checkEndpoint(request, violations);
        checkFreeText("host", request.host(), violations);
        checkFreeText("device", request.device(), violations);
        if (request.lastGeneration() != null && request.lastGeneration() < 0) {
            violations.add(new Violation("lastGeneration", "must not be negative, got " + request.lastGeneration()));
        } else if (request.lastGeneration() != null && request.lastGeneration() > MAX_LAST_GENERATION) {
            violations.add(new Violation("lastGeneration", "must be at most " + MAX_LAST_GENERATION + ", got "
                    + request.lastGeneration()));
        }
        return new Checked(violations, uniqueId);
    }

    private static void checkGroup(String group, List<Violation> violations) {
        if (group == null) {
            violations.add(new Violation("group", "is required"));
        } else if (!Protocol.GROUP_NAME.matcher(group).matches()) {
            violations.add(new Violation("group", "must match " + Protocol.GROUP_NAME.pattern()));
        }
    }

    private boolean checkWorldSize(Integer worldSize, List<Violation> violations) {
        if (worldSize == null) {
            violations.add(new Violation("worldSize", "is required"));
            return false;
        }
        if (worldSize < 1 || worldSize > maxWorldSize) {
            violations.add(new Violation("worldSize", "must be between 1 and " + maxWorldSize + ", got " + worldSize));
            return false;
        }
        return true;
    }

    private static void checkRank(Integer rank, Integer worldSize, List<Violation> violations) {
        if (rank == null) {
            violations.add(new Violation("rank", "is required"));
        } else if (rank < 0) {
            violations.add(new Violation("rank", "must not be negative, got " + rank));
        } else if (worldSize != null && rank >= worldSize) {
            violations.add(new Violation("rank", "must be below worldSize " + worldSize + ", got " + rank));
        }
    }

    private static void checkInstanceId(String instanceId, List<Violation> violations) {
        if (instanceId == null) {
            violations.add(new Violation("instanceId", "is required"));
        } else if (instanceId.isEmpty() || instanceId.length() > Protocol.INSTANCE_ID_MAX_LENGTH) {
            violations.add(new Violation("instanceId",
                    "must be 1 to " + Protocol.INSTANCE_ID_MAX_LENGTH + " characters, got " + instanceId.length()));
        } else if (hasControlCharacter(instanceId)) {
            violations.add(new Violation("instanceId", "must not contain control characters"));
        }
    }

    private static UniqueId checkUniqueId(JoinRequest request, List<Violation> violations) {
        String uniqueId = request.uniqueId();
        boolean expected = request.backend() == Backend.NCCL && request.rank() != null && request.rank() == 0;
        if (uniqueId == null) {
            if (expected) {
                violations.add(new Violation("uniqueId",
                        "is required from rank 0 with the nccl backend (base64 of the 128-byte ncclUniqueId)"));
            }
            return null;
        }
        if (request.rank() != null && request.rank() != 0) {
            violations.add(new Violation("uniqueId", "must be absent from rank " + request.rank()
                    + "; only rank 0 brings the id"));
            return null;
        }
        Optional<UniqueId> decoded = UniqueId.tryParse(uniqueId);
        if (decoded.isEmpty()) {
            violations.add(new Violation("uniqueId", UniqueId.problemWith(uniqueId)));
        }
        return decoded.orElse(null);
    }

    private static void checkEndpoint(JoinRequest request, List<Violation> violations) {
        String endpoint = request.endpoint();
        if (endpoint == null) {
            if (request.backend() == Backend.RING) {
                violations.add(new Violation("endpoint", "is required with the ring backend (host:port)"));
            }
            return;
        }
        String problem = Endpoint.problem(endpoint);
        if (problem != null) {
            violations.add(new Violation("endpoint", problem));
        }
    }

    /** Whether {@code endpoint} is {@code host:port}, {@code ipv4:port} or {@code [ipv6]:port}. */
    public static boolean isValidEndpoint(String endpoint) {
        return endpoint != null && Endpoint.problem(endpoint) == null;
    }

    private static void checkFreeText(String field, String value, List<Violation> violations) {
        if (value == null) {
            return;
        }
        if (value.length() > MAX_FREE_TEXT_LENGTH) {
            violations.add(new Violation(field, "must be at most " + MAX_FREE_TEXT_LENGTH + " characters"));
        } else if (hasControlCharacter(value)) {
            violations.add(new Violation(field, "must not contain control characters"));
        }
    }

    private static boolean hasControlCharacter(String value) {
        return value.chars().anyMatch(Character::isISOControl);
    }
}
