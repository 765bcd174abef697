package io.allsum.client;

import java.net.URI;

/** The one rule for an allsum server's URL, for the client and every command that takes one. */
public final class ServerUrl {

    private ServerUrl() {
    }

    /** Why {@code url} cannot name a server ({@code must be http(s)://host[:port], was '...'}), or null when it can. */
    public static String problem(URI url) {
        String scheme = url == null ? null : url.getScheme();
        boolean ok = scheme != null && (scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                && url.getHost() != null;
        return ok ? null : "must be http(s)://host[:port], was '" + url + "'";
    }
}
