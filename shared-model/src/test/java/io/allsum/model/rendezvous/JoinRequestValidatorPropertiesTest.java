package io.allsum.model.rendezvous;

import io.allsum.model.problem.Violation;

import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.allsum.testing.SeededProperty.forAll;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Validator rules over generated requests (see io.allsum.testing.SeededProperty for seeds and tries), plus the boundary values
 * as explicit examples so that they run on every build whatever the seed.
 */
class JoinRequestValidatorPropertiesTest {

    private static final int MAX_WORLD_SIZE = 4096;
    private static final String GROUP_CHARS = "abcXYZ019._-";
    private static final List<String> IPV6_ADDRESSES = List.of("::1", "fe80::1", "2001:db8::8a2e:370:7334", "::",
            "::ffff:192.0.2.1", "2001:db8:0:0:1:0:0:1");
    private static final List<String> VALID_HOSTS = List.of("localhost", "127.0.0.1", "node-7.cluster.local", "[::1]",
            "[fe80::1]", "gpu01");
    private static final List<String> MALFORMED_ENDPOINTS = List.of("::1:8080", "[::1]", "[not-ipv6]:80",
            "host name:80", ":80", "host", "host:0", "host:65536", "host:999999");
    private static final char[] BAD_GROUP_CHARS = {'/', ' ', '?', '#', '%', ':', '*', 'é', '\n'};

    private final JoinRequestValidator validator = new JoinRequestValidator(MAX_WORLD_SIZE);

    private record WithInt(JoinRequest request, int value) {
    }

    private record WithString(JoinRequest request, String value) {
    }

    private record InstanceAndIdLength(String instanceId, int idLength) {
    }

    // --- generated inputs ---

    @Test
    void wellFormedRequestsHaveNoViolations() {
        forAll(JoinRequestValidatorPropertiesTest::validRequest, this::assertValid);
    }

    @Test
    void rankAtOrAboveWorldSizeIsRejectedNamingRank() {
        forAll(r -> new WithInt(validRequest(r), intBetween(r, 0, 100)),
                c -> assertRankRejected(c.request(), c.request().worldSize() + c.value()));
    }

    @Test
    void negativeRankIsRejectedNamingRank() {
        forAll(r -> new WithInt(validRequest(r), intBetween(r, Integer.MIN_VALUE, -1)),
                c -> assertRankRejected(c.request(), c.value()));
    }

    @Test
    void worldSizeOutsideOneToMaximumIsRejected() {
        forAll(r -> new WithInt(validRequest(r), badWorldSize(r)),
                c -> assertOnlyWorldSizeRejected(c.request(), c.value()));
    }

    @Test
    void groupNamesOutsideThePatternAreRejected() {
        forAll(r -> new WithString(validRequest(r), badGroupName(r)),
                c -> assertOnlyGroupRejected(c.request(), c.value()));
    }

    @Test
    void uniqueIdOfAnyOtherLengthIsRejectedWithoutEchoingIt() {
        forAll(r -> {
            int length = intBetween(r, 0, 299); // 0..300 without 128, the one valid length
            return new InstanceAndIdLength(validInstanceId(r), length >= 128 ? length + 1 : length);
        }, c -> assertUniqueIdOfLengthRejected(c.instanceId(), c.idLength()));
    }

    @Test
    void uniqueIdFromAnyRankButZeroIsRejected() {
        forAll(r -> {
            int worldSize = intBetween(r, 2, 64);
            return new JoinRequest("g", intBetween(r, 1, worldSize - 1), worldSize, "w", Backend.NCCL, uniqueId(r),
                    null, null, null);
        }, request -> assertUniqueIdFromNonZeroRankRejected(request.rank(), request.worldSize(), request.uniqueId()));
    }

    @Test
    void rankZeroWithNcclMustBringTheId() {
        forAll(JoinRequestValidatorPropertiesTest::validInstanceId, this::assertNcclRankZeroWithoutIdRejected);
    }

    @Test
    void ringMembersMustBringAValidEndpoint() {
        forAll(JoinRequestValidatorPropertiesTest::badEndpoint, this::assertOnlyEndpointRejected);
    }

    @Test
    void bracketedIpv6EndpointsAreAccepted() {
        forAll(r -> "[" + pick(r, IPV6_ADDRESSES) + "]:" + intBetween(r, 1, 65535),
                endpoint -> assertThat(JoinRequestValidator.isValidEndpoint(endpoint)).as(endpoint).isTrue());
    }

    @Test
    void instanceIdLongerThan128IsRejected() {
        forAll(r -> anyChars(r, intBetween(r, 129, 400)), this::assertInstanceIdRejected);
    }

    // --- the boundaries, as explicit examples ---

    @Test
    void missingFieldsAreEachNamed() {
        JoinRequest empty = new JoinRequest(null, null, null, null, null, null, null, null, null);
        assertThat(fields(validator.validate(empty)))
                .containsExactly("group", "worldSize", "rank", "instanceId", "backend");
    }

    @Test
    void requestsAtEveryUpperBoundAreValid() {
        String group = "a".repeat(64);
        String instanceId = "~".repeat(128);
        assertValid(new JoinRequest(group, 0, 1, instanceId, Backend.NCCL, uniqueId(new SplittableRandom(1)), null,
                null, null));
        assertValid(new JoinRequest(group, MAX_WORLD_SIZE - 1, MAX_WORLD_SIZE, "!", Backend.RING, null,
                "node-7.cluster.local:65535", null, null));
        assertValid(new JoinRequest("-", 0, 1, "w", Backend.RING, null, "[::1]:1", null, null));
    }

    @ParameterizedTest(name = "worldSize {0}, rank {1}")
    @MethodSource("rankBoundaries")
    void rankBoundariesAreRejectedNamingRank(int worldSize, int rank) {
        assertRankRejected(new JoinRequest("g", 0, worldSize, "w", Backend.RING, null, "h:1", null, null), rank);
    }

    static Stream<Arguments> rankBoundaries() {
        return Stream.of(Arguments.of(1, 1), Arguments.of(MAX_WORLD_SIZE, MAX_WORLD_SIZE),
                Arguments.of(MAX_WORLD_SIZE, Integer.MAX_VALUE), Arguments.of(1, -1),
                Arguments.of(MAX_WORLD_SIZE, Integer.MIN_VALUE));
    }

    @ParameterizedTest(name = "worldSize {0}")
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, MAX_WORLD_SIZE + 1, Integer.MAX_VALUE})
    void worldSizeBoundariesAreRejected(int worldSize) {
        assertOnlyWorldSizeRejected(new JoinRequest("g", 0, 2, "w", Backend.RING, null, "h:1", null, null), worldSize);
    }

    @ParameterizedTest(name = "group \"{0}\"")
    @MethodSource("badGroupNameExamples")
    void groupNameBoundariesAreRejected(String group) {
        assertOnlyGroupRejected(new JoinRequest("g", 0, 2, "w", Backend.RING, null, "h:1", null, null), group);
    }

    static Stream<String> badGroupNameExamples() {
        Stream<String> withBadChar = new String(BAD_GROUP_CHARS).chars().mapToObj(c -> "g" + (char) c);
        // "." and ".." are path segments, not group names.
        return Stream.concat(Stream.of("", "a".repeat(65), ".", ".."), withBadChar);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {0, 1, 127, 129, 300})
    void uniqueIdLengthBoundariesAreRejected(int length) {
        assertUniqueIdOfLengthRejected("w0", length);
    }

    @ParameterizedTest(name = "rank {0} of {1}")
    @MethodSource("nonZeroRankBoundaries")
    void uniqueIdFromFirstAndLastNonZeroRankIsRejected(int rank, int worldSize) {
        assertUniqueIdFromNonZeroRankRejected(rank, worldSize, uniqueId(new SplittableRandom(rank)));
    }

    static Stream<Arguments> nonZeroRankBoundaries() {
        return Stream.of(Arguments.of(1, 2), Arguments.of(63, 64));
    }

    @ParameterizedTest(name = "instanceId \"{0}\"")
    @ValueSource(strings = {"!", "~", "w-0"})
    void rankZeroWithNcclMustBringTheIdWhateverTheInstance(String instanceId) {
        assertNcclRankZeroWithoutIdRejected(instanceId);
    }

    @ParameterizedTest(name = "endpoint \"{0}\"")
    @MethodSource("malformedEndpoints")
    void malformedEndpointsAreRejected(String endpoint) {
        assertOnlyEndpointRejected(endpoint);
    }

    static List<String> malformedEndpoints() {
        return MALFORMED_ENDPOINTS;
    }

    @ParameterizedTest(name = "endpoint \"{0}\"")
    @MethodSource("ipv6EndpointExamples")
    void everyIpv6AddressFormIsAcceptedAtBothPortBounds(String endpoint) {
        assertThat(JoinRequestValidator.isValidEndpoint(endpoint)).as(endpoint).isTrue();
    }

    static Stream<String> ipv6EndpointExamples() {
        return IPV6_ADDRESSES.stream().flatMap(a -> Stream.of("[" + a + "]:1", "[" + a + "]:65535"));
    }

    @ParameterizedTest(name = "{0} characters")
    @ValueSource(ints = {129, 400})
    void instanceIdLengthBoundariesAreRejected(int length) {
        assertInstanceIdRejected("x".repeat(length));
    }

    // --- the checks, shared by generated and explicit inputs ---

    private void assertValid(JoinRequest request) {
        assertThat(validator.validate(request)).isEmpty();
    }

    private void assertRankRejected(JoinRequest valid, int rank) {
        JoinRequest request = new JoinRequest(valid.group(), rank, valid.worldSize(), valid.instanceId(), Backend.RING,
                null, "h:1", valid.host(), valid.device());
        assertThat(fields(validator.validate(request))).contains("rank");
    }

    private void assertOnlyWorldSizeRejected(JoinRequest valid, int worldSize) {
        JoinRequest request = new JoinRequest(valid.group(), 0, worldSize, valid.instanceId(), Backend.RING, null,
                "127.0.0.1:9000", null, null);
        assertThat(fields(validator.validate(request))).containsExactly("worldSize");
    }

    private void assertOnlyGroupRejected(JoinRequest valid, String group) {
        JoinRequest request = new JoinRequest(group, valid.rank(), valid.worldSize(), valid.instanceId(),
                valid.backend(), valid.uniqueId(), valid.endpoint(), valid.host(), valid.device());
        assertThat(fields(validator.validate(request))).containsExactly("group");
    }

    private void assertUniqueIdOfLengthRejected(String instanceId, int length) {
        String id = Base64.getEncoder().encodeToString(new byte[length]);
        JoinRequest request = new JoinRequest("g", 0, 2, instanceId, Backend.NCCL, id, null, null, null);
        List<Violation> violations = validator.validate(request);
        assertThat(fields(violations)).containsExactly("uniqueId");
        if (!id.isEmpty()) {
            assertThat(violations.toString()).doesNotContain(id);
        }
    }

    private void assertUniqueIdFromNonZeroRankRejected(int rank, int worldSize, String id) {
        JoinRequest request = new JoinRequest("g", rank, worldSize, "w-" + rank, Backend.NCCL, id, null, null, null);
        List<Violation> violations = validator.validate(request);
        assertThat(fields(violations)).containsExactly("uniqueId");
        assertThat(violations.toString()).doesNotContain(id).contains("rank " + rank);
    }

    private void assertNcclRankZeroWithoutIdRejected(String instanceId) {
        JoinRequest request = new JoinRequest("g", 0, 4, instanceId, Backend.NCCL, null, null, null, null);
        assertThat(fields(validator.validate(request))).containsExactly("uniqueId");
    }

    private void assertOnlyEndpointRejected(String endpoint) {
        JoinRequest request = new JoinRequest("g", 1, 4, "w1", Backend.RING, null, endpoint, null, null);
        assertThat(fields(validator.validate(request))).as(endpoint).containsExactly("endpoint");
    }

    private void assertInstanceIdRejected(String instanceId) {
        JoinRequest request = new JoinRequest("g", 1, 4, instanceId, Backend.RING, null, "h:1", null, null);
        assertThat(fields(validator.validate(request))).contains("instanceId");
    }

    private static List<String> fields(List<Violation> violations) {
        return violations.stream().map(Violation::field).toList();
    }

    // --- generators ---

    private static JoinRequest validRequest(SplittableRandom r) {
        int worldSize = intBetween(r, 1, MAX_WORLD_SIZE);
        int rank = intBetween(r, 0, worldSize - 1);
        Backend backend = pick(r, List.of(Backend.values()));
        String id = backend == Backend.NCCL && rank == 0 ? uniqueId(r) : null;
        String endpoint = backend == Backend.RING ? pick(r, VALID_HOSTS) + ":" + intBetween(r, 1, 65535) : null;
        return new JoinRequest(validGroupName(r), rank, worldSize, validInstanceId(r),
                backend, id, endpoint, "host-" + rank, null);
    }

    private static String validInstanceId(SplittableRandom r) {
        int length = intBetween(r, 1, 128);
        StringBuilder s = new StringBuilder(length);
        IntStream.range(0, length).forEach(i -> s.append((char) intBetween(r, '!', '~')));
        return s.toString();
    }

    private static String uniqueId(SplittableRandom r) {
        byte[] bytes = new byte[128];
        r.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static int badWorldSize(SplittableRandom r) {
        return r.nextBoolean() ? intBetween(r, Integer.MIN_VALUE, 0) : intBetween(r, MAX_WORLD_SIZE + 1,
                Integer.MAX_VALUE);
    }

    /** Any name of the allowed characters but "." and "..", which are path segments. */
    private static String validGroupName(SplittableRandom r) {
        String name = charsFrom(r, GROUP_CHARS, intBetween(r, 1, 64));
        return name.equals(".") || name.equals("..") ? name + "g" : name;
    }

    private static String badGroupName(SplittableRandom r) {
        return switch (r.nextInt(3)) {
            case 0 -> charsFrom(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", intBetween(r, 65, 100));
            case 1 -> charsFrom(r, GROUP_CHARS, intBetween(r, 1, 64))
                    + BAD_GROUP_CHARS[r.nextInt(BAD_GROUP_CHARS.length)];
            default -> "";
        };
    }

    private static String badEndpoint(SplittableRandom r) {
        return switch (r.nextInt(3)) {
            case 0 -> "host:" + (r.nextBoolean() ? 0 : intBetween(r, 65536, 999_999));
            case 1 -> charsFrom(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", intBetween(r, 1, 20));
            default -> pick(r, MALFORMED_ENDPOINTS);
        };
    }

    /** Uniform in [min, max], but one draw in four is a bound: that is where validators break. */
    private static int intBetween(SplittableRandom r, int min, int max) {
        return switch (r.nextInt(8)) {
            case 0 -> min;
            case 1 -> max;
            default -> (int) r.nextLong(min, (long) max + 1);
        };
    }

    private static String charsFrom(SplittableRandom r, String alphabet, int length) {
        StringBuilder s = new StringBuilder(length);
        IntStream.range(0, length).forEach(i -> s.append(alphabet.charAt(r.nextInt(alphabet.length()))));
        return s.toString();
    }

    /** Any UTF-16 code units, control characters and lone surrogates included. */
    private static String anyChars(SplittableRandom r, int length) {
        StringBuilder s = new StringBuilder(length);
        IntStream.range(0, length).forEach(i -> s.append((char) r.nextInt(Character.MAX_VALUE + 1)));
        return s.toString();
    }

    private static <T> T pick(SplittableRandom r, List<T> choices) {
        return choices.get(r.nextInt(choices.size()));
    }
}
