package io.allsum.server.rendezvous;

import org.springframework.context.event.EventListener;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the directory's events, to check they are published. */
public class EventLog {

    private final List<Object> events = new CopyOnWriteArrayList<>();

    @EventListener
    void on(GroupDirectory.GenerationCompleted event) {
        events.add(event);
    }

    @EventListener
    void on(GroupDirectory.GenerationFailed event) {
        events.add(event);
    }

    @EventListener
    void on(GroupDirectory.GroupRemoved event) {
        events.add(event);
    }

    public List<GroupDirectory.GenerationCompleted> completed() {
        return of(GroupDirectory.GenerationCompleted.class);
    }

    public List<GroupDirectory.GenerationFailed> failed() {
        return of(GroupDirectory.GenerationFailed.class);
    }

    public List<GroupDirectory.GroupRemoved> removed() {
        return of(GroupDirectory.GroupRemoved.class);
    }

    private <T> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
