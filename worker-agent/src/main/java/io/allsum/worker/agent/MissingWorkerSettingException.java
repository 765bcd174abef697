package io.allsum.worker.agent;

import java.util.List;

/** The worker cannot know who it is: rank or world size came from nowhere. Names the variables to set. */
public class MissingWorkerSettingException extends IllegalStateException {

    public MissingWorkerSettingException(List<String> missing) {
        super("allsum worker cannot start: set " + String.join(" and ", missing)
                + ", or pass --allsum.worker.rank / --allsum.worker.world-size");
    }
}
