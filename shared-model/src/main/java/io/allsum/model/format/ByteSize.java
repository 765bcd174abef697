package io.allsum.model.format;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte counts as nccl-tests accepts them for -b and -e: a number with an optional K, M, G or T suffix, each
 * a power of 1024 ("64M" is 67108864). "KB", "KiB" and a trailing "B" are accepted too.
 */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(?:i?b)?", Pattern.CASE_INSENSITIVE);

    private ByteSize() {
    }

    /** @throws IllegalArgumentException naming the text when it is no size or too large */
    public static long parse(String text) {
        Matcher m = SIZE.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size (expected e.g. 8, 1K, 64M, 1G)");
        }
        int shift = switch (m.group(2).toUpperCase(Locale.ROOT)) {
            case "K" -> 10;
            case "M" -> 20;
            case "G" -> 30;
            case "T" -> 40;
            default -> 0;
        };
        try {
            long value = Long.parseLong(m.group(1));
            if (value > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return value << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large a size");
        }
    }

    /** Human-readable size for progress lines: "8 B", "1 KiB", "1.5 MiB". */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return value == Math.rint(value)
                ? String.format(Locale.ROOT, "%d %s", (long) value, units[unit])
                : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
