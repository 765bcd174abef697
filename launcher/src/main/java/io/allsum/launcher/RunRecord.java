package io.allsum.launcher;

import io.allsum.model.jobs.Job;
import io.allsum.model.rendezvous.GroupStatus;

import java.util.List;
import java.util.Map;

/**
 * What --json writes: the job as the server finished it, the group it ran on, and where and how it ran. Never the
 * token.
 *
 * @param mode          "local" (the launcher started server and workers) or "remote" (--server)
 * @param phasesSeconds seconds from the launcher's start to: serverHealthy, groupComplete, jobSubmitted, jobDone
 */
public record RunRecord(String allsumVersion, String mode, String server, String group, String backend,
                        int worldSize, List<String> arguments, Map<String, Object> environment,
                        Map<String, Double> phasesSeconds, GroupStatus groupStatus, Job job) {
}
