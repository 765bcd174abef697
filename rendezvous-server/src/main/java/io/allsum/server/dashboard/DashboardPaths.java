package io.allsum.server.dashboard;

import java.util.Set;

/**
 * Where the dashboard lives. The page and its script and style are public static content (they hold no data and no
 * secret), so that a browser can load the log-in form; every data call goes to the token-protected JSON APIs.
 */
public final class DashboardPaths {

    public static final String ROOT = "/dashboard";
    public static final String API = ROOT + "/api";
    public static final String GROUPS = API + "/groups";

    /**
     * The only paths served without a token: an exact list, so that nothing else under /dashboard opens up; "/" is a
     * redirect to the page.
     */
    private static final Set<String> PUBLIC = Set.of("/", ROOT, ROOT + "/", ROOT + "/index.html", ROOT + "/app.js",
            ROOT + "/app.css", ROOT + "/favicon.svg");

    private DashboardPaths() {
    }

    /** Whether {@code path} (the container's decoded, normalised servlet path) is one of the page's static files. */
    public static boolean isPublic(String path) {
        return PUBLIC.contains(path);
    }
}
