package io.allsum.worker.jobs;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JobCursorTest {

    @Test
    void cursorFollowsTheServersSeqEvenBackwards() {
        JobCursor cursor = new JobCursor();
        assertThat(cursor.after()).isZero();

        cursor.received(7);
        cursor.received(8);
        assertThat(cursor.after()).isEqualTo(8);

        // A server that lost its history hands its own first job to a cursor beyond it.
        cursor.received(1);
        assertThat(cursor.after()).isEqualTo(1);

        cursor.reset();
        assertThat(cursor.after()).isZero();
    }
}
