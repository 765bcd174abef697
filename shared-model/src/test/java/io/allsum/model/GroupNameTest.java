package io.allsum.model;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class GroupNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"train", "a.b", "...", ".hidden", "x..", "g-1_2"})
    void namesOfTheAllowedCharactersAreGroupNames(String name) {
        assertThat(Protocol.GROUP_NAME.matcher(name).matches()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {".", "..", "", "a/b", "a b"})
    void dotDotDotAndOtherPathTricksAreNot(String name) {
        assertThat(Protocol.GROUP_NAME.matcher(name).matches()).isFalse();
    }
}
