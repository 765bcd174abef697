package io.allsum.model.rendezvous;

import io.allsum.model.problem.Violation;

import io.allsum.model.Backend;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;

import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JoinRequestValidatorPropertiesTest {

    private static final int MAX_WORLD_SIZE = 4096;
    private final JoinRequestValidator validator = new JoinRequestValidator(MAX_WORLD_SIZE);

    @Property
    void wellFormedRequestsHaveNoViolations(@ForAll("validRequests") JoinRequest request) {
        assertThat(validator.validate(request)).isEmpty();
    }

    @Property
    void rankAtOrAboveWorldSizeIsRejectedNamingRank(@ForAll("validRequests") JoinRequest valid,
                                                     @ForAll @IntRange(min = 0, max = 100) int excess) {
        JoinRequest request = withRank(valid, valid.worldSize() + excess);
        assertThat(fields(validator.validate(request))).contains("rank");
    }

    @Property
    void negativeRankIsRejectedNamingRank(@ForAll("validRequests") JoinRequest valid,
                                          @ForAll @IntRange(min = Integer.MIN_VALUE, max = -1) int rank) {
        assertThat(fields(validator.validate(withRank(valid, rank)))).contains("rank");
    }

    @Property
    void worldSizeOutsideOneToMaximumIsRejected(@ForAll("validRequests") JoinRequest valid,
                                                @ForAll("badWorldSizes") int worldSize) {
        JoinRequest request = new JoinRequest(valid.group(), 0, worldSize, valid.instanceId(), Backend.RING, null,
                "127.0.0.1:9000", null, null);
        assertThat(fields(validator.validate(request))).containsExactly("worldSize");
    }

    @Property
    void groupNamesOutsideThePatternAreRejected(@ForAll("validRequests") JoinRequest valid,
                                                @ForAll("badGroupNames") String group) {
        JoinRequest request = new JoinRequest(group, valid.rank(), valid.worldSize(), valid.instanceId(),
                valid.backend(), valid.uniqueId(), valid.endpoint(), valid.host(), valid.device());
        assertThat(fields(validator.validate(request))).containsExactly("group");
    }

    @Property
    void uniqueIdOfAnyOtherLengthIsRejectedWithoutEchoingIt(@ForAll("validInstanceIds") String instanceId,
                                                            @ForAll @IntRange(min = 0, max = 300) int length) {
        if (length == 128) {
            return;
        }
        String id = Base64.getEncoder().encodeToString(new byte[length]);
        JoinRequest request = new JoinRequest("g", 0, 2, instanceId, Backend.NCCL, id, null, null, null);
        List<Violation> violations = validator.validate(request);
        assertThat(fields(violations)).containsExactly("uniqueId");
        if (!id.isEmpty()) {
            assertThat(violations.toString()).doesNotContain(id);
        }
    }

    @Property
    void uniqueIdFromAnyRankButZeroIsRejected(@ForAll("uniqueIds") String id,
                                              @ForAll @IntRange(min = 2, max = 64) int worldSize,
                                              @ForAll @IntRange(min = 1, max = 63) int rank) {
        if (rank >= worldSize) {
            return;
        }
        JoinRequest request = new JoinRequest("g", rank, worldSize, "w-" + rank, Backend.NCCL, id, null, null, null);
        List<Violation> violations = validator.validate(request);
        assertThat(fields(violations)).containsExactly("uniqueId");
        assertThat(violations.toString()).doesNotContain(id).contains("rank " + rank);
    }

    @Property
    void rankZeroWithNcclMustBringTheId(@ForAll("validInstanceIds") String instanceId) {
        JoinRequest request = new JoinRequest("g", 0, 4, instanceId, Backend.NCCL, null, null, null, null);
        assertThat(fields(validator.validate(request))).containsExactly("uniqueId");
    }

    @Property
    void ringMembersMustBringAValidEndpoint(@ForAll("badEndpoints") String endpoint) {
        JoinRequest request = new JoinRequest("g", 1, 4, "w1", Backend.RING, null, endpoint, null, null);
        assertThat(fields(validator.validate(request))).containsExactly("endpoint");
    }

    @Property
    void bracketedIpv6EndpointsAreAccepted(@ForAll("ipv6Endpoints") String endpoint) {
        assertThat(JoinRequestValidator.isValidEndpoint(endpoint)).as(endpoint).isTrue();
    }

    @Property
    void instanceIdLongerThan128IsRejected(@ForAll @StringLength(min = 129, max = 400) String instanceId) {
        JoinRequest request = new JoinRequest("g", 1, 4, instanceId, Backend.RING, null, "h:1", null, null);
        assertThat(fields(validator.validate(request))).contains("instanceId");
    }

    @Example
    void missingFieldsAreEachNamed() {
        JoinRequest empty = new JoinRequest(null, null, null, null, null, null, null, null, null);
        assertThat(fields(validator.validate(empty)))
                .containsExactly("group", "worldSize", "rank", "instanceId", "backend");
    }

    @Provide
    Arbitrary<JoinRequest> validRequests() {
        Arbitrary<String> groups = validGroupNames();
        Arbitrary<Integer> worldSizes = Arbitraries.integers().between(1, MAX_WORLD_SIZE);
        Arbitrary<Backend> backends = Arbitraries.of(Backend.class);
        return Combinators.combine(groups, worldSizes, backends, validInstanceIds(), uniqueIds(), validEndpoints(),
                        Arbitraries.integers().between(0, MAX_WORLD_SIZE - 1))
                .as((group, worldSize, backend, instanceId, uniqueId, endpoint, rankSeed) -> {
                    int rank = rankSeed % worldSize;
                    String id = backend == Backend.NCCL && rank == 0 ? uniqueId : null;
                    String ep = backend == Backend.RING ? endpoint : null;
                    return new JoinRequest(group, rank, worldSize, instanceId, backend, id, ep, "host-" + rank,
                            null);
                });
    }

    @Provide
    Arbitrary<String> validInstanceIds() {
        return Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(128);
    }

    @Provide
    Arbitrary<String> uniqueIds() {
        return Arbitraries.bytes().array(byte[].class).ofSize(128).map(Base64.getEncoder()::encodeToString);
    }

    @Provide
    Arbitrary<Integer> badWorldSizes() {
        return Arbitraries.oneOf(Arbitraries.integers().between(Integer.MIN_VALUE, 0),
                Arbitraries.integers().between(MAX_WORLD_SIZE + 1, Integer.MAX_VALUE));
    }

    @Provide
    Arbitrary<String> badGroupNames() {
        Arbitrary<String> tooLong = Arbitraries.strings().alpha().ofMinLength(65).ofMaxLength(100);
        Arbitrary<String> badChar = Combinators.combine(validGroupNames(), Arbitraries.of('/', ' ', '?', '#', '%', ':',
                '*', 'é', '\n')).as((name, c) -> name + c);
        return Arbitraries.oneOf(tooLong, badChar, Arbitraries.of("", ".", ".."));
    }

    @Provide
    Arbitrary<String> badEndpoints() {
        Arbitrary<Integer> badPorts = Arbitraries.oneOf(Arbitraries.just(0),
                Arbitraries.integers().between(65536, 999_999));
        return Arbitraries.oneOf(
                badPorts.map(p -> "host:" + p),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20),
                Arbitraries.just("::1:8080"),
                Arbitraries.just("[::1]"),
                Arbitraries.just("[not-ipv6]:80"),
                Arbitraries.just("host name:80"),
                Arbitraries.just(":80"));
    }

    @Provide
    Arbitrary<String> ipv6Endpoints() {
        Arbitrary<String> address = Arbitraries.of("::1", "fe80::1", "2001:db8::8a2e:370:7334", "::",
                "::ffff:192.0.2.1", "2001:db8:0:0:1:0:0:1");
        return Combinators.combine(address, Arbitraries.integers().between(1, 65535))
                .as((a, p) -> "[" + a + "]:" + p);
    }

    private Arbitrary<String> validGroupNames() {
        // "." and ".." are path segments, not group names.
        return Arbitraries.strings().withChars("abcXYZ019._-").ofMinLength(1).ofMaxLength(64)
                .filter(name -> !name.equals(".") && !name.equals(".."));
    }

    private Arbitrary<String> validEndpoints() {
        Arbitrary<String> hosts = Arbitraries.of("localhost", "127.0.0.1", "node-7.cluster.local", "[::1]",
                "[fe80::1]", "gpu01");
        return Combinators.combine(hosts, Arbitraries.integers().between(1, 65535)).as((h, p) -> h + ":" + p);
    }

    private static JoinRequest withRank(JoinRequest r, int rank) {
        return new JoinRequest(r.group(), rank, r.worldSize(), r.instanceId(), Backend.RING, null, "h:1", r.host(),
                r.device());
    }

    private static List<String> fields(List<Violation> violations) {
        return violations.stream().map(Violation::field).toList();
    }
}
