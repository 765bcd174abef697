package io.allsum.client;

import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AnswerWarmUpTest {

    @Test
    void coversEveryAnswerThatALongPollWaitsForWithA200() {
        assertThat(AnswerWarmUp.types()).containsExactlyInAnyOrder(RankView.class, GroupView.class, JobAssignment.class);
    }

    @Test
    void everySampleSetsEveryFieldSoThatEveryNestedReaderIsBuilt() throws Exception {
        for (Class<?> type : AnswerWarmUp.types()) {
            Object read = AllsumJson.mapper().readValue(AnswerWarmUp.sample(type), type);
            assertThat(nullFields(read, type.getSimpleName())).as(type.getSimpleName()).isEmpty();
        }
    }

    @Test
    void everySampleIsWhatTheWireCarries() {
        var json = AllsumJson.mapper();
        for (Class<?> type : AnswerWarmUp.types()) {
            Object read = json.readValue(AnswerWarmUp.sample(type), type);
            // Written back, the same JSON: no field name or enum's wire name in a sample is one the reader ignores.
            assertThat(json.readTree(json.writeValueAsBytes(read))).as(type.getSimpleName())
                    .isEqualTo(json.readTree(AnswerWarmUp.sample(type)));
        }
    }

    @Test
    void givesEachTypesSampleOnceAndNothingForATypeWithoutOne() {
        AnswerWarmUp warmUp = new AnswerWarmUp(true);
        assertThat(warmUp.claim(RankView.class)).asString().isEqualTo(AnswerWarmUp.sample(RankView.class));
        assertThat(warmUp.claim(RankView.class)).isNull();
        assertThat(warmUp.claim(String.class)).isNull();
    }

    @Test
    void switchedOffGivesNothing() {
        assertThat(new AnswerWarmUp(false).claim(RankView.class)).isNull();
    }

    /** Paths of the null record components under {@code value}, nested records and collections included. */
    private static List<String> nullFields(Object value, String path) throws Exception {
        List<String> nulls = new ArrayList<>();
        if (value == null) {
            nulls.add(path);
        } else if (value instanceof Collection<?> items) {
            if (items.isEmpty()) {
                nulls.add(path + " (empty)");
            }
            for (Object item : items) {
                nulls.addAll(nullFields(item, path + "[]"));
            }
        } else if (value.getClass().isRecord()) {
            for (RecordComponent c : value.getClass().getRecordComponents()) {
                nulls.addAll(nullFields(c.getAccessor().invoke(value), path + "." + c.getName()));
            }
        }
        return nulls;
    }
}
