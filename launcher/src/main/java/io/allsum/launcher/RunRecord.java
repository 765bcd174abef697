package io.allsum.launcher;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.rendezvous.GroupStatus;

import java.util.List;
import java.util.Map;

/**
 * What --json writes, on success and on failure alike: where and how the run went, the rows as the table shows
 * them (with each rank's time), the job as the server finished it and the group it ran on. Never the token. Fields
 * the run did not get to are null (e.g. {@code job} when the server never came up).
 *
 * @param schemaVersion           bumped when a field changes meaning or goes away (adding fields does not)
 * @param mode                    "local" (the launcher started server and workers) or "remote" (--server)
 * @param exitCode                the command's exit code: 0 success, 1 failed job or cluster, 2 wrong options
 * @param error                   the one-line error the command printed, null on success
 * @param timeStatistic           what {@code sizes[].timeMicros} is: rank0, avg (default), min or max (-a)
 * @param averageBusBandwidthGBps the mean of the rows' busbw, as the table's footer ("Avg bus bandwidth")
 * @param sizes                   one row per size; {@code rankTimesMicros} is each rank's own average time
 * @param environment             host, os, cpus, gpus, and {@code versions} (java, cuda, nccl; null where absent)
 * @param phasesSeconds           seconds from the launcher's start to serverHealthy, groupComplete, jobSubmitted,
 *                                jobRunning, jobDone (only those reached)
 */
public record RunRecord(int schemaVersion, String allsumVersion, String mode, String server, String group,
                        String backend, Integer worldSize, List<String> arguments, int exitCode, String error,
                        String timeStatistic, Double averageBusBandwidthGBps, List<SizeResult> sizes,
                        Map<String, Object> environment, Map<String, Double> phasesSeconds, GroupStatus groupStatus,
                        Job job) {

    public static final int SCHEMA_VERSION = 2;
}
