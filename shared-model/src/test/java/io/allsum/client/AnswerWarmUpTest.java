package io.allsum.client;

import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AnswerWarmUpTest {

    @Test
    void coversEveryAnswerThatALongPollWaitsFor() {
        assertThat(AnswerWarmUp.types())
                .containsExactlyInAnyOrder(RankView.class, GroupView.class, JoinPending.class, JobAssignment.class);
    }

    @Test
    void everySampleSetsEveryFieldSoThatEveryNestedReaderIsBuilt() throws Exception {
        for (Class<?> type : AnswerWarmUp.types()) {
            assertThat(nullFields(AnswerWarmUp.sample(type), type.getSimpleName())).as(type.getSimpleName()).isEmpty();
        }
    }

    @Test
    void everySampleReadsBackEqualToItself() {
        var json = AllsumJson.mapper();
        for (Class<?> type : AnswerWarmUp.types()) {
            Object sample = AnswerWarmUp.sample(type);
            assertThat(json.readValue(json.writeValueAsBytes(sample), type)).as(type.getSimpleName()).isEqualTo(sample);
        }
    }

    @Test
    void givesEachTypesSampleOnceAndNothingForATypeWithoutOne() {
        AnswerWarmUp warmUp = new AnswerWarmUp(true);
        byte[] sample = warmUp.claim(AllsumJson.mapper(), RankView.class);
        assertThat(AllsumJson.mapper().readValue(sample, RankView.class)).isEqualTo(AnswerWarmUp.sample(RankView.class));
        assertThat(warmUp.claim(AllsumJson.mapper(), RankView.class)).isNull();
        assertThat(warmUp.claim(AllsumJson.mapper(), String.class)).isNull();
    }

    @Test
    void switchedOffGivesNothing() {
        assertThat(new AnswerWarmUp(false).claim(AllsumJson.mapper(), RankView.class)).isNull();
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
