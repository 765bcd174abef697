package io.allsum.server.rendezvous.web;

import java.util.Enumeration;
import java.util.Locale;

/** Reads {@code Accept-Encoding} (RFC 9110, section 12.5.3) for the one question the server asks: gzip or not. */
final class AcceptEncoding {

    private AcceptEncoding() {
    }

    /**
     * True when the header lines list {@code gzip} (or {@code x-gzip}) with a non-zero weight, or {@code *} with a
     * non-zero weight and no explicit refusal of gzip. No header means identity.
     */
    static boolean allowsGzip(Enumeration<String> headerLines) {
        if (headerLines == null) {
            return false;
        }
        Boolean explicit = null;
        boolean wildcard = false;
        while (headerLines.hasMoreElements()) {
            for (String item : headerLines.nextElement().split(",")) {
                String[] parts = item.split(";");
                String coding = parts[0].strip().toLowerCase(Locale.ROOT);
                boolean accepted = weight(parts) > 0;
                if (coding.equals("gzip") || coding.equals("x-gzip")) {
                    explicit = explicit == null ? accepted : explicit || accepted;
                } else if (coding.equals("*")) {
                    wildcard = accepted;
                }
            }
        }
        return explicit != null ? explicit : wildcard;
    }

    /** The {@code q} parameter, 1 when absent; an unreadable weight counts as 0 (refused). */
    private static double weight(String[] parts) {
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip();
            if (parameter.length() > 2 && (parameter.charAt(0) == 'q' || parameter.charAt(0) == 'Q')
                    && parameter.charAt(1) == '=') {
                try {
                    return Double.parseDouble(parameter.substring(2).strip());
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 1;
    }
}
