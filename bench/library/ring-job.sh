# Sourced by ring-ab.sh, ring-job-flags.sh and ring-train-ab.sh: the job path's side of their comparisons, 4 ring
# processes from 8 B to 1 MiB, timed as the library's ranks are (the slowest rank, -a 3).
#   ring_job_sweep HOME ITERS WARMUP      (the dist at HOME; extra environment from the caller)
ring_job_sweep() {
  ALLSUM_HOME=$1 "$1/bin/allsum" --backend ring --ranks 4 --process-per-rank -b 8 -e 1M -f 2 -n "$2" -w "$3" -a 3 -q
}
