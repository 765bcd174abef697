package io.allsum.launcher;

import picocli.CommandLine;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** picocli converter for durations: {@code 30} (seconds), {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,9})(ms|s|m|h)?");

    @Override
    public Duration convert(String value) {
        Matcher m = SIMPLE.matcher(value.strip().toLowerCase(Locale.ROOT));
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2) == null ? "s" : m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofSeconds(n);
            };
        }
        try {
            return Duration.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration (e.g. 30s, 2m, 500ms)");
        }
    }

    /** As a user would write it: {@code 30 s}, {@code 2 min}, {@code 500 ms}. */
    static String describe(Duration d) {
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + " ms";
        }
        long s = d.toSeconds();
        return s % 60 == 0 && s > 0 ? s / 60 + " min" : s + " s";
    }
}
