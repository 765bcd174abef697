package io.allsum.server.dashboard;

import io.allsum.model.rendezvous.GroupStatus;

import java.util.List;

/**
 * Answer of {@code GET /dashboard/api/groups}: every group the server holds now, with its members, and the names of
 * groups known only from the job history (closed or evicted, or from an earlier server), whose jobs can still be read.
 */
public record DashboardGroups(String epoch, List<GroupStatus> groups, List<String> historyOnly) {
}
