#!/usr/bin/env bash
# The ring job path's small messages against its workers' JIT state, alternating REPS (3) times, ITERS (500) a size:
#   shipped (worker.jvmargs and the dist's AOT cache), tier4 (C2 at the JVM's thresholds, worker-nccl.jvmargs' flags,
#   through ALLSUM_JAVA_OPTS), noaot (ALLSUM_AOT=off). Each series under "## <variant>, rep N".
set -uo pipefail
: "${ALLSUM_HOME:?the dist, bin/allsum-aot-train run once}"
source "$(dirname "$0")/ring-job.sh"
tier4="-XX:Tier4InvocationThreshold=5000 -XX:Tier4MinInvocationThreshold=600 -XX:Tier4CompileThreshold=15000 -XX:Tier4BackEdgeThreshold=40000"
for rep in $(seq ${REPS:-3}); do
  for v in ${VARIANTS:-shipped tier4 noaot}; do
    case $v in shipped) env=() ;; tier4) env=("ALLSUM_JAVA_OPTS=$tier4") ;; noaot) env=(ALLSUM_AOT=off) ;; esac
    echo "## $v, rep $rep"
    (for e in "${env[@]}"; do export "$e"; done; ring_job_sweep "$ALLSUM_HOME" ${ITERS:-500} ${WARMUP:-50})
  done
done
