package io.allsum.server.jobs;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.server.rendezvous.GroupDirectory;
import org.springframework.context.ApplicationEventPublisher;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A group directory the tests drive by hand: they form generations, fail them and remove groups, and the matching
 * events go out through Spring's publisher just as the real registry sends them.
 */
public class FakeGroupDirectory implements GroupDirectory {

    private record Generation(long number, GenerationState state, int worldSize, Map<Integer, String> instances) {
        Generation with(GenerationState newState) {
            return new Generation(number, newState, worldSize, instances);
        }
    }

    private final ApplicationEventPublisher events;
    private final Map<String, Generation> groups = new ConcurrentHashMap<>();

    public FakeGroupDirectory(ApplicationEventPublisher events) {
        this.events = events;
    }

    /** Generation 1 of a new group, still joining (no event yet). */
    public void joining(String group, int worldSize) {
        groups.put(group, new Generation(1, GenerationState.JOINING, worldSize, instances(group, 1, worldSize)));
    }

    /** The group's current generation completes. */
    public void complete(String group) {
        Generation g = groups.computeIfPresent(group, (k, v) -> v.with(GenerationState.COMPLETE));
        events.publishEvent(new GenerationCompleted(group, g.number(), g.worldSize(), Backend.RING));
    }

    /** A new group whose generation 1 is complete. */
    public void form(String group, int worldSize) {
        joining(group, worldSize);
        complete(group);
    }

    public void fail(String group, String reason) {
        Generation g = groups.computeIfPresent(group, (k, v) -> v.with(GenerationState.FAILED));
        events.publishEvent(new GenerationFailed(group, g.number(), reason));
    }

    /** The survivors and restarted ranks re-joined: generation + 1 is complete, with new instance ids. */
    public void nextGeneration(String group) {
        Generation g = groups.computeIfPresent(group, (k, v) -> new Generation(v.number() + 1, GenerationState.JOINING,
                v.worldSize(), instances(group, v.number() + 1, v.worldSize())));
        complete(group);
    }

    public void remove(String group, String reason) {
        groups.remove(group);
        events.publishEvent(new GroupRemoved(group, reason));
    }

    public long generation(String group) {
        return groups.get(group).number();
    }

    public String instanceId(String group, int rank) {
        return groups.get(group).instances().get(rank);
    }

    @Override
    public Optional<CurrentGeneration> current(String group) {
        return Optional.ofNullable(groups.get(group))
                .map(g -> new CurrentGeneration(group, g.number(), g.state(), g.worldSize(), Backend.RING));
    }

    @Override
    public boolean isMember(String group, int rank, String instanceId) {
        Generation g = groups.get(group);
        return g != null && (g.state() == GenerationState.COMPLETE || g.state() == GenerationState.JOINING)
                && instanceId.equals(g.instances().get(rank));
    }

    private static Map<Integer, String> instances(String group, long generation, int worldSize) {
        return IntStream.range(0, worldSize).boxed()
                .collect(Collectors.toUnmodifiableMap(r -> r, r -> group + "-g" + generation + "-r" + r));
    }
}
