package io.allsum.model.format;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ByteSizeTest {

    @ParameterizedTest
    @CsvSource({"8, 8", "0, 0", "1K, 1024", "1k, 1024", "64M, 67108864", "1G, 1073741824", "2T, 2199023255552",
            "4KiB, 4096", "4KB, 4096", "16B, 16", "1 M, 1048576"})
    void parsesNcclTestsSizesWithBinarySuffixes(String text, long bytes) {
        assertThat(ByteSize.parse(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "-1", "1X", "1.5M", "M", "99999999999999999999"})
    void rejectsWhatIsNotASize(String text) {
        assertThatThrownBy(() -> ByteSize.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'");
    }

    @Test
    void rejectsSizesThatOverflowALong() {
        assertThatThrownBy(() -> ByteSize.parse("9000000000T")).hasMessageContaining("too large");
    }

    @Test
    void formatsSizesForPeople() {
        assertThat(ByteSize.format(8)).isEqualTo("8 B");
        assertThat(ByteSize.format(1024)).isEqualTo("1 KiB");
        assertThat(ByteSize.format(64L << 20)).isEqualTo("64 MiB");
        assertThat(ByteSize.format(1536)).isEqualTo("1.5 KiB");
    }
}
