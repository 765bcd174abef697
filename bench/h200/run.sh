#!/usr/bin/env bash
# Everything measured on the GPU host, in as few device calls as possible. Run from the repo root there:
#   bash bench/h200/run.sh PART...      parts: env nccl1 launcher1 cold library library1 library_user validate ab_rdv ab_start ab_cpu2 cpu2 ab_validate ring ringab rdv rdvfresh rdvfirst warm1 multi nb2 small2 small2s small1 burst1 abort2 flags large2 gputests pin1
# GRAPH=N adds nccl-tests' CUDA-graph mode (-G N) series to small2 and small1, native and backend.
# NATIVE_DIR=folder builds the native program from there instead of bench/native (a copy that travels with a run).
# Per-size medians and ratios of a part's output: python3 bench/h200/medians.py $OUT/small2.txt
# Needs .carry/allsum-linux-x86_64.tar.xz (packaging/dist/build.sh; DIST=path overrides) and, for ring only, .carry/torch_anchor.py
# (the PyTorch TCPStore/Gloo reference script the team compares against, copied there by hand; it is not part of
# this repository). Output goes to stdout and $OUT/<part>.txt.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/allsum-out}; mkdir -p "$OUT"
repo=$(pwd)
base=/tmp/allsum-dist
[ -x $base/allsum-linux-x86_64/bin/allsum ] || { mkdir -p $base && tar -C $base -xJf ${DIST:-.carry/allsum-linux-x86_64.tar.xz}; }
# DIST_PATCH=folder laid out like the dist (lib/, conf/, bin/): copied over it, e.g. a rebuilt worker jar without
# re-packing the whole dist.
[ -n "${DIST_PATCH:-}" ] && [ ! -e $base/.patched ] && cp -r "$DIST_PATCH"/. $base/allsum-linux-x86_64/ && touch $base/.patched
export ALLSUM_HOME=$base/allsum-linux-x86_64
export PATH=$ALLSUM_HOME/bin:$PATH
# JDK AOT caches, made on this host by a training run of the dist (unmeasured) when the tarball was built without them
# (DIST_AOT=off keeps it small enough to carry).
[ -f $ALLSUM_HOME/lib/worker.aot ] || [ ! -x $ALLSUM_HOME/bin/allsum-aot-train ] || allsum-aot-train >&2
# Java and native must bind the same libnccl: python's wheel (2.28.9) first for both.
NCCL_DIR=$(python3 -c 'import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],"lib"))' 2>/dev/null)
export ALLSUM_NCCL_LIB_DIR=$NCCL_DIR LD_LIBRARY_PATH=$NCCL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
JAVA=$ALLSUM_HOME/runtime/bin/java
worker_cp() { local cp="" j; while read -r j; do cp="${cp:+$cp:}$ALLSUM_HOME/lib/$j"; done < "$ALLSUM_HOME/lib/worker.classpath"; echo "$cp"; }
# The benchmarks: the dist's bench jar (lib/bench.classpath); allsum_bench runs bench-rendezvous with allsum's flags.
source "$repo/bench/classpath.sh"
allsum_bench() { $JAVA @$ALLSUM_HOME/conf/launcher.jvmargs ${ALLSUM_JAVA_OPTS:-} -cp "$(bench_cp)" io.allsum.bench.BenchCommand "$@"; }
# The bench jar's NCCL enqueue probe with the GPU libraries and JVM flags bin/allsum-selfcheck gives the backend;
# PIN="taskset -c ..." runs it pinned.
nccl_probe() (
  source "$ALLSUM_HOME/bin/allsum-common.sh"; allsum_find_gpu_libs; allsum_jvm_flags worker nccl
  exec ${PIN:-} "$JAVA" "${ALLSUM_JVM_FLAGS[@]}" -cp "$(bench_cp)" io.allsum.comm.nccl.NcclEnqueueProbe "$@"
)
native_build() { [ -x /tmp/allreduce_bench ] || bash ${NATIVE_DIR:-bench/native}/build.sh /tmp/allreduce_bench >/dev/null; }
native() { native_build; /tmp/allreduce_bench "$@"; }
quiet() { "$@" > /dev/null; }
bytes_of() { local v=${1%[KkMmGg]}; case $1 in *[Kk]) echo $((v << 10));; *[Mm]) echo $((v << 20));; *[Gg]) echo $((v << 30));; *) echo "$1";; esac; }
secs() { local s; s=$(date +%s%N); "$@"; local rc=$?; echo "# wall $(( ($(date +%s%N) - s) / 1000000 )) ms, exit $rc"; }

part_env() {
  date -u; uname -sr; nproc; nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvidia-smi topo -m 2>/dev/null | head -6
  nvcc --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'
  echo "libnccl (python wheel): $(ls $NCCL_DIR/libnccl.so* 2>/dev/null)"; ldconfig -p | grep -E 'libnccl|libcudart' | head -4
  $JAVA -version 2>&1 | head -2
  du -sh $ALLSUM_HOME; ls -la .carry/
}

part_nccl1() { # one GPU: native blocking, Java backend, native non-blocking (same sweep, same library)
  export CUDA_VISIBLE_DEVICES=0
  echo "## native, blocking communicator"; secs native -b 8 -e 1G -f 2 -n 20 -w 5
  echo "## allsum NCCL backend (NcclSelfCheck: every op x dtype, then the sweep)"; secs allsum-selfcheck -b 8 -e 1G -f 2 -n 20 -w 5
  echo "## native, non-blocking communicator (as the Java backend builds it)"; secs native -b 8 -e 1G -f 2 -n 20 -w 5 --nonblocking 1
}

part_launcher1() { # one GPU through the whole product: server + 1 NCCL worker + job, 8 B .. 1 GiB
  export CUDA_VISIBLE_DEVICES=0
  secs allsum --backend nccl --ranks 1 -b 8 -e 1G -f 2 -n 20 -w 5 --json "$OUT/launcher1.json"
}

# Milliseconds from the command's start to its first output line containing PATTERN ("first all-sum done"), then the
# whole command's wall time (which adds the shutdown: stopping JVMs, destroy_process_group, interpreter exit).
first_done() { # PATTERN command...
  local pat="$1" s; shift; s=$(date +%s%N)
  "$@" 2>&1 | while IFS= read -r line; do
    case "$line" in *"$pat"*) echo "# first all-sum done $(( ($(date +%s%N) - s) / 1000000 )) ms";; esac
  done
  echo "# wall $(( ($(date +%s%N) - s) / 1000000 )) ms, exit ${PIPESTATUS[0]}"
}

part_cold() { # command to first all-sum done, 1 rank: allsum vs PyTorch, interleaved
  export CUDA_VISIBLE_DEVICES=0
  # One unmeasured run: the first run of a fresh host pays for reading the dist from disk, as torch's first import does.
  quiet allsum --backend nccl --ranks 1 -b 4 -e 4 -n 1 -w 0 -q; python3 bench/h200/torch_cold_start.py > /dev/null
  for i in 1 2 3; do
    # allsum prints "job ... succeeded (N s)" on stderr when the job (one 4-byte all-sum) is done on every rank.
    echo "## allsum cold start $i"; first_done "succeeded (" allsum --backend nccl --ranks 1 -b 4 -e 4 -n 1 -w 0
    # torch_cold_start.py prints TORCH_COLD right after its first all_reduce is synchronized.
    echo "## torch cold start $i"; first_done "TORCH_COLD" python3 bench/h200/torch_cold_start.py
  done
}

# One library rank (bench-library: Allsum.init() and a sweep) with the GPU libraries and the JVM flags LIB_FLAGS picks
# (bench/library/lib-flags.sh; AOT caches in $OUT), joining the server on port 18190 as ALLSUM_* say:
#   lib_rank RANK WORLD BACKEND GROUP bench-library-args...
source "$repo/bench/library/lib-flags.sh"
lib_rank() (
  local rank=$1 world=$2 backend=$3 group=$4; shift 4
  lib_jvm_flags "$rank" "$backend" "$OUT" || exit; allsum_find_gpu_libs
  ALLSUM_SERVER=http://127.0.0.1:18190 ALLSUM_GROUP=$group ALLSUM_RANK=$rank ALLSUM_WORLD_SIZE=$world \
    ALLSUM_BACKEND=$backend exec timeout 150 "$JAVA" "${ALLSUM_JVM_FLAGS[@]}" -cp "$(bench_cp)" io.allsum.bench.BenchCommand \
    bench-library "$@"
)

part_library() { # issue 42: the library's all-reduce against the job path (NCCL 1 GPU, ring 4 ranks), alternating; its
  # start (init() to the first all-reduce done, server already up) against torch's init_process_group + first all_reduce
  export CUDA_VISIBLE_DEVICES=0
  rdv_server 18190 "$OUT/library-server.log" || return
  local rep r i pids
  for rep in $(seq ${REPS:-3}); do
    echo "## job path, nccl 1 rank, rep $rep"; allsum --backend nccl --ranks 1 -b 8 -e 1G -f 2 -n 50 -w 5 -q
    echo "## library, nccl 1 rank, rep $rep"; lib_rank 0 1 nccl "lib-nccl-$rep" -b 8 -e 1G -f 2 -n 50 -w 5
    echo "## job path, ring 4 ranks, rep $rep"
    allsum --backend ring --ranks 4 --process-per-rank -b 8 -e 64M -f 2 -n 50 -w 5 -q
    echo "## library, ring 4 ranks, rep $rep"; pids=()
    for r in 0 1 2 3; do
      lib_rank $r 4 ring "lib-ring-$rep" -b 8 -e 64M -f 2 -n 50 -w 5 > "$OUT/lib-ring-$r.txt" 2>&1 & pids+=($!)
    done
    wait "${pids[@]}"; grep -v 'INFO\|^[A-Z][a-z][a-z] [0-9]' "$OUT/lib-ring-0.txt"
  done
  for i in 1 2 3; do
    echo "## library start $i (server up)"; lib_rank 0 1 nccl "lib-start-$i" -b 4 -e 4 -n 1 -w 0 --warm-calls 0 | grep LIBRARY_START
    echo "## torch start $i"; python3 bench/h200/torch_cold_start.py
  done
  kill $rdv_pid; wait $rdv_pid 2>/dev/null
}

part_library1() { # issue 42, NCCL on one GPU in steady state: job path, library, library --direct (the backend's
  # communicator), alternating REPS (3) times, ITERS (500) calls a size after WARMUP (50), 8 B .. 64 MiB. LIB_VARIANTS
  # (default: worker) adds a library series per LIB_FLAGS value; aot records its cache in one unmeasured run first.
  export CUDA_VISIBLE_DEVICES=0
  rdv_server 18190 "$OUT/library1-server.log" || return
  local rep v n=${ITERS:-500} w=${WARMUP:-50}
  for v in ${LIB_VARIANTS:-worker}; do
    [ "$v" = aot ] && LIB_FLAGS=aot lib_rank 0 1 nccl "lib1-record" -b 8 -e 64M -f 2 -n $n -w $w > /dev/null 2>&1
  done
  for rep in $(seq ${REPS:-3}); do
    echo "## job path, nccl 1 rank, rep $rep"; allsum --backend nccl --ranks 1 -b 8 -e 64M -f 2 -n $n -w $w -q
    for v in ${LIB_VARIANTS:-worker}; do
      echo "## library ($v JVM flags), nccl 1 rank, rep $rep"; LIB_FLAGS=$v lib_rank 0 1 nccl "lib1-$v-$rep" -b 8 -e 64M -f 2 -n $n -w $w
    done
    echo "## library --direct, nccl 1 rank, rep $rep"; lib_rank 0 1 nccl "lib1d-$rep" -b 8 -e 64M -f 2 -n $n -w $w --direct
  done
  kill $rdv_pid; wait $rdv_pid 2>/dev/null
}

part_library_user() { # issue 42, what a program's own thread feels on one GPU: the library's all-reduce called from
  # its thread (blocking; enqueued on its CUDA stream), wall clock, beside torch.distributed's all_reduce the same two
  # ways, alternating REPS (3) times, ITERS (500) calls a size after WARMUP (50), 8 B .. 64 MiB
  export CUDA_VISIBLE_DEVICES=0
  rdv_server 18190 "$OUT/library-user-server.log" || return
  local rep n=${ITERS:-500} w=${WARMUP:-50}
  for rep in $(seq ${REPS:-3}); do
    echo "## library, caller's thread, blocking, rep $rep"; lib_rank 0 1 nccl "libu-b-$rep" -b 8 -e 64M -f 2 -n $n -w $w --caller blocking
    echo "## library, caller's thread, stream, rep $rep"; lib_rank 0 1 nccl "libu-s-$rep" -b 8 -e 64M -f 2 -n $n -w $w --caller stream
    python3 bench/h200/torch_allreduce_loop.py $n $w $((64 << 20)) | sed "s/^## \\(.*\\)/## \\1, rep $rep/"
  done
  kill $rdv_pid; wait $rdv_pid 2>/dev/null
}

part_ring() { # CPU: allsum ring vs Gloo, same host, same run
  echo "## allsum ring, loopback probe"; $JAVA -cp "$(bench_cp)" io.allsum.bench.ring.RingBenchmark --probe -b 1M -e ${RINGB:-64M} -f 4
  for n in 2 4 8; do
    echo "## allsum ring $n processes"; $JAVA -Xmx4g -cp "$(bench_cp)" io.allsum.bench.ring.RingBenchmark --launch $n -b 1M -e ${RINGB:-64M} -f 4
    echo "## allsum ring $n processes, TCP only"; $JAVA -Xmx4g -cp "$(bench_cp)" io.allsum.bench.ring.RingBenchmark --launch $n -b 1M -e ${RINGB:-64M} -f 4 --tcp
  done
  echo "## gloo (torch_anchor.py gloo)"; python3 .carry/torch_anchor.py gloo
}

part_ringab() { # CPU: the ring benchmark of an older build (RING_OLD_JAR: its worker-agent + shared-model classes, first
  # on the dist's classpath) against this dist's, alternating, REPS times each, at 2 and 4 processes (the 1 MiB question)
  local old=${RING_OLD_JAR:-.carry/old-ring.jar} cls=${RING_OLD_CLASS:-io.allsum.worker.comm.ring.RingBenchmark} rep n
  for rep in $(seq ${REPS:-3}); do for n in 2 4; do
    echo "## old ($old) ring $n processes, rep $rep"; $JAVA -Xmx4g -cp "$old:$(worker_cp)" $cls --launch $n -b 1M -e ${RINGB:-64M} -f 4 2>&1 | grep -v "^#\|INFO\|AM io"
    echo "## new ring $n processes, rep $rep"; $JAVA -Xmx4g -cp "$(bench_cp)" io.allsum.bench.ring.RingBenchmark --launch $n -b 1M -e ${RINGB:-64M} -f 4 2>&1 | grep -v "^#\|INFO\|AM io"
    echo "## new ring $n processes without the sweep warm-up, rep $rep"; $JAVA -Xmx4g -cp "$(bench_cp)" io.allsum.bench.ring.RingBenchmark --launch $n -b 1M -e ${RINGB:-64M} -f 4 --warmup-bytes 0 2>&1 | grep -v "^#\|INFO\|AM io"
  done; done
}

# Starts the dist's server on port $1 with RDV_SERVER_OPTS, output to $2, the rest as its arguments; waits until it is
# healthy. Sets rdv_pid (the launcher script's pid, to kill) and rdv_jpid (the JVM's, for /proc).
# "@conf/x.jvmargs" in RDV_SERVER_OPTS names the dist's flags file (the JVM reads @files from the working directory,
# the repo root here, so such a server never started); a server that is not up in 120 s ends the part with its log.
rdv_server() {
  local port=$1 log=$2 opts=${RDV_SERVER_OPTS:-${ALLSUM_JAVA_OPTS:-}}; shift 2
  local home=${RDV_SERVER_HOME:-$ALLSUM_HOME}
  ALLSUM_JAVA_OPTS="${opts//@conf\//@$home/conf/}" $home/bin/allsum-server --server.port=$port "$@" > "$log" 2>&1 &
  rdv_pid=$!
  for _ in $(seq 240); do curl -fsS http://127.0.0.1:$port/actuator/health >/dev/null 2>&1 && break; sleep 0.5; done
  rdv_jpid=$(pgrep -f "server.port=$port" | head -1)
  if [ -z "$rdv_jpid" ]; then echo "# the server on port $port did not start; its log:"; tail -n 20 "$log"; return 1; fi
}

part_rdv() { # rendezvous, 64..16384 ranks: allsum (compact answers) vs PyTorch TCPStore, same host, same run (issue 15)
  # Both sides spread their waiting ranks over RDV_PROCS client processes; 16,384 ranks are as many connections.
  ulimit -n "$(ulimit -Hn)"
  local ranks=${RDV_RANKS:-64,256,1024,4096,16384} procs=${RDV_PROCS:-16} rounds=${RDV_ROUNDS:-5} port=${RDV_PORT:-18080}
  export ALLSUM_TOKEN=bench$RANDOM$RANDOM
  # RDV_SERVER_OPTS: the server's extra JVM flags (e.g. a heap limit) for this part only; RDV_BENCH_OPTS: more
  # bench-rendezvous options (e.g. --clients per-rank).
  rdv_server $port /tmp/rdv-server.log || return 1; local pid=$rdv_pid jpid=$rdv_jpid
  echo "## allsum bench-rendezvous: view=rank, $procs client processes; server pid $jpid, RSS idle $(grep VmRSS /proc/$jpid/status | tr -s ' ')"
  # A long-running server is warm: unmeasured rounds first, unless RDV_WARM_SERVER=0 (then the small sizes measure a
  # freshly started server's JIT, not its steady state).
  [ "${RDV_WARM_SERVER:-1}" = 0 ] || quiet allsum_bench bench-rendezvous --server http://127.0.0.1:$port --token "$ALLSUM_TOKEN" \
    --ranks 1024,64,256,64 --rounds 10 --procs $procs 2>/dev/null
  allsum_bench bench-rendezvous --server http://127.0.0.1:$port --token "$ALLSUM_TOKEN" --ranks $ranks --rounds $rounds \
    --procs $procs --view rank --join-wait 120 --round-timeout 600 --server-pid "$jpid" ${RDV_BENCH_OPTS:-}
  echo "# server $(grep VmHWM /proc/$jpid/status | tr -s ' ') (peak); waiting ${RDV_SETTLE:-30} s"
  sleep ${RDV_SETTLE:-30}; echo "# server $(grep VmRSS /proc/$jpid/status | tr -s ' ') ${RDV_SETTLE:-30} s after the last round"
  kill $pid; wait $pid 2>/dev/null
  [ "${RDV_TCPSTORE:-1}" = 0 ] && return
  echo "## TCPStore (bench/rendezvous/tcpstore_bench.py), $procs client processes"
  ${PYTHON:-python3} bench/rendezvous/tcpstore_bench.py --ranks $ranks --procs $procs --rounds $rounds
}

part_rdvfresh() { # issue 15: the first rendezvous of freshly started processes, RDV_PROCS (63) of them, new every round
  # (each rank's join its JVM's first, as when workers start), allsum in the variants of RDVF_OPTS, and
  # TCPStore with fresh processes; interleaved repetitions, one server for all of allsum's runs
  ulimit -n "$(ulimit -Hn)"
  local ranks=${RDV_RANKS:-64} procs=${RDV_PROCS:-63} rounds=${RDV_ROUNDS:-5} port=${RDV_PORT:-18081} rep w
  export ALLSUM_TOKEN=bench$RANDOM$RANDOM
  rdv_server $port /tmp/rdvf-server.log || return 1; local pid=$rdv_pid
  # A long-running server is warm: rounds with kept client processes first, unmeasured (the clients are what is cold).
  quiet allsum_bench bench-rendezvous --server http://127.0.0.1:$port --token "$ALLSUM_TOKEN" --ranks 1024,64,256,64 --rounds 10 \
    --procs 16 --clients allsum 2>/dev/null
  # RDVF_HOLD: seconds the parked joins wait before the last rank posts (the TCPStore reference waits 0.2 s before it
  # publishes).
  for rep in $(seq ${REPS:-2}); do
    echo "## rep $rep: allsum bench-rendezvous --fresh --clients allsum, $procs processes, hold ${RDVF_HOLD:-0} s"
    allsum_bench bench-rendezvous --server http://127.0.0.1:$port --token "$ALLSUM_TOKEN" --ranks $ranks --rounds $rounds \
      --procs $procs --fresh --clients allsum --join-wait 120 --round-timeout 600 --hold ${RDVF_HOLD:-0} ${RDV_BENCH_OPTS:-}
    [ "${RDV_TCPSTORE:-1}" = 0 ] && continue
    echo "## rep $rep: TCPStore (bench/rendezvous/tcpstore_bench.py --fresh), $procs processes"
    ${PYTHON:-python3} bench/rendezvous/tcpstore_bench.py --ranks $ranks --procs $procs --rounds $rounds --fresh
  done
  kill $pid; wait $pid 2>/dev/null
}

part_rdvfirst() { # a freshly started server's first rendezvous, one new server per repetition
  # Per repetition: a new server; once it is up and RDVW_IDLE s (5) idle, the bench
  # measures from its first round (--warmup 0). RDVW_FRESH=1: new client processes every round (--fresh --clients
  # allsum, one rank per process with RDV_PROCS=63; RDVW_CLIENTS picks another --clients), as a
  # cluster's first workers; else kept ones (the JDK client).
  ulimit -n "$(ulimit -Hn)"
  local ranks=${RDV_RANKS:-64,256,1024} procs=${RDV_PROCS:-16} rounds=${RDV_ROUNDS:-5} port=${RDV_PORT:-18082} rep
  local fresh=""; [ "${RDVW_FRESH:-0}" = 1 ] && fresh="--fresh --clients ${RDVW_CLIENTS:-allsum}"
  export ALLSUM_TOKEN=bench$RANDOM$RANDOM
  for rep in $(seq ${REPS:-2}); do
    rdv_server $port /tmp/rdvw-server.log || return 1; local pid=$rdv_pid jpid=$rdv_jpid
    sleep ${RDVW_IDLE:-5}
    echo "## rep $rep: RSS $(grep VmRSS /proc/$jpid/status | tr -s ' ')"
    allsum_bench bench-rendezvous --server http://127.0.0.1:$port --token "$ALLSUM_TOKEN" --ranks $ranks --rounds $rounds \
      --warmup 0 --procs $procs --view rank --join-wait 120 --round-timeout 600 --server-pid "$jpid" $fresh ${RDV_BENCH_OPTS:-}
    # RDVW_SETTLE: seconds idle after the last round before the server's RSS is read again (0: not read)
    if [ "${RDVW_SETTLE:-0}" != 0 ]; then
      echo "# server $(grep VmHWM /proc/$jpid/status | tr -s ' ') (peak); waiting $RDVW_SETTLE s"
      sleep $RDVW_SETTLE; echo "# server $(grep VmRSS /proc/$jpid/status | tr -s ' ') $RDVW_SETTLE s after the last round"
    fi
    kill $pid; wait $pid 2>/dev/null
  done
  [ "${RDV_TCPSTORE:-1}" = 0 ] && return
  echo "## TCPStore (bench/rendezvous/tcpstore_bench.py ${fresh:+--fresh}), $procs client processes"
  ${PYTHON:-python3} bench/rendezvous/tcpstore_bench.py --ranks $ranks --procs $procs --rounds $rounds ${fresh:+--fresh}
}

part_warm1() { # issue 13: does a longer warm-up decide a 1-GPU sweep's state, or the one-shot job path's first sizes?
  # native and the one-shot job path, 8 B .. 4 KiB, with -w 50 and -w 20000 (about 0.1 s of calls per size)
  export CUDA_VISIBLE_DEVICES=0; local it=${ITERS:-500} rep w
  native_build
  for rep in $(seq ${REPS:-6}); do for w in 50 20000; do
    echo "## rep $rep: native -w $w"; secs native -b 8 -e 4K -f 2 -n $it -w $w
    echo "## rep $rep: job path -w $w"; secs allsum --backend nccl --ranks 1 -b 8 -e 4K -f 2 -n $it -w $w --timeout 300
  done; done
  unset CUDA_VISIBLE_DEVICES
}

part_multi() { # every GPU (BACKEND=ring and N=.. try it without GPUs): sweep to 8 GiB vs native, every op x dtype, and a worker killed mid-job
  local n=${N:-$(nvidia-smi -L | wc -l)} be=${BACKEND:-nccl}
  echo "## allsum launcher, $n $be ranks, all-sum 8 B .. ${MAXB:-8G}"
  secs allsum --backend $be --ranks $n -b 8 -e ${MAXB:-8G} -f 2 -n 20 -w 5 --timeout 900 --json "$OUT/multi-sweep.json"
  if [ "$be" = nccl ]; then
  echo "## native, one process per GPU (id through a file)"
  native_build; rm -f /tmp/ncclid; local pids=()
  for r in $(seq 0 $((n - 1))); do native -b 8 -e ${MAXB:-8G} -f 2 -n 20 -w 5 --rank $r --nranks $n --id-file /tmp/ncclid > /tmp/native-$r.txt 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait $p; done; cat /tmp/native-0.txt; tail -2 /tmp/native-1.txt
  fi

  echo "## a standing cluster: server + $n workers"
  export ALLSUM_TOKEN=multi$RANDOM$RANDOM; local url=http://127.0.0.1:18090
  allsum-server --server.port=18090 > /tmp/m-server.log 2>&1 &
  start_worker() { ALLSUM_SERVER=$url ALLSUM_GROUP=g ALLSUM_RANK=$1 ALLSUM_WORLD_SIZE=$n ALLSUM_BACKEND=$be ALLSUM_DEVICE=$1 \
      ALLSUM_TOKEN=$ALLSUM_TOKEN allsum-worker --server.port=0 > /tmp/m-worker-$1-$2.log 2>&1 & echo $! > /tmp/m-worker-$1.pid; }
  for r in $(seq 0 $((n - 1))); do start_worker $r 1; done
  status() { curl -fsS -H "Authorization: Bearer $ALLSUM_TOKEN" $url/rendezvous/g; }
  for _ in $(seq 240); do status 2>/dev/null | grep -q '"state":"complete"' && break; sleep 0.5; done; status; echo
  local t=(--server $url --group g --token "$ALLSUM_TOKEN" -q)
  echo "## every op x dtype on $n GPUs (0 B .. 64 MiB x4, verified), through the REST API"
  python3 bench/h200/matrix.py $url g "$ALLSUM_TOKEN" 0 ${MATRIXB:-67108864} 4
  echo "## kill rank 1 mid-job"
  allsum "${t[@]}" -b ${KILLB:-1G} -e ${MAXB:-8G} -f 2 -n 1000 -w 5 --timeout 90 > /tmp/m-kill.out 2> /tmp/m-kill.err & local lp=$!
  sleep ${KILL_AFTER:-12}; local victim; victim=$(cat /tmp/m-worker-1.pid); echo "killing worker rank 1 (pid $victim) at $(date +%T.%N)"
  kill -9 $victim; pkill -9 -P $victim 2>/dev/null
  local k0; k0=$(date +%s%N); wait $lp; local rc=$?; echo "launcher exit $rc $(( ($(date +%s%N) - k0) / 1000000 )) ms after the kill"; cat /tmp/m-kill.err
  status; echo
  echo "## restart rank 1: the group re-forms as the next generation"
  start_worker 1 2
  for _ in $(seq 240); do status 2>/dev/null | grep -q '"generation":2,"state":"complete"' && break; sleep 0.5; done; status; echo
  secs allsum "${t[@]}" -b 8 -e 64M -f 8
  echo "## worker logs (tail)"; for f in /tmp/m-worker-*.log; do echo "--- $f"; grep -E 'ERROR|WARN|generation|abort|failed' $f | tail -8; done
  pkill -f allsum-worker; pkill -f 'server.port=18090'; sleep 2
}

part_nb2() { # two GPUs: native blocking vs non-blocking communicator, small sizes (is the async launch path the cost?)
  local n=${N:-$(nvidia-smi -L | wc -l)}
  for nb in 0 1; do
    native_build; echo "## native, $n processes, --nonblocking $nb"; rm -f /tmp/ncclid; local pids=()
    for r in $(seq 0 $((n - 1))); do native -b 8 -e 1M -f 8 -n 50 -w 10 --nonblocking $nb --rank $r --nranks $n --id-file /tmp/ncclid > /tmp/nb-$r.txt 2>&1 & pids+=($!); done
    for p in "${pids[@]}"; do wait $p; done; cat /tmp/nb-0.txt
  done
}

# One process per GPU, id through a file: native_n NRANKS ARGS... (rank 0's table on stdout, the others' tail)
native_n() {
  native_build # once, before the ranks start (two ranks building at once raced: one ran a half-written binary)
  local n=$1; shift; rm -f /tmp/ncclid; local pids=() r
  for r in $(seq 0 $((n - 1))); do native "$@" --rank $r --nranks $n --id-file /tmp/ncclid > /tmp/native-$r.txt 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait $p; done; cat /tmp/native-0.txt; for r in $(seq 1 $((n - 1))); do tail -2 /tmp/native-$r.txt; done
}
# One JVM per GPU, the NCCL id through a file: per_gpu COMMAND NRANKS ARGS... (rank 0's output, the others' tail)
per_gpu() {
  local cmd=$1 n=$2; shift 2; rm -f /tmp/jncclid; local pids=() r
  for r in $(seq 0 $((n - 1))); do $cmd -d $r "$@" --rank $r --nranks $n --id-file /tmp/jncclid > /tmp/$cmd-$r.txt 2>&1 & pids+=($!); done
  for p in "${pids[@]}"; do wait $p; done; cat /tmp/$cmd-0.txt; for r in $(seq 1 $((n - 1))); do tail -3 /tmp/$cmd-$r.txt; done
}
# The Java backend alone, one JVM per GPU: selfcheck_n NRANKS ARGS...
selfcheck_n() { per_gpu allsum-selfcheck "$@"; }

# small2/small1 time each size over 500 iterations: with 50, single ~10 us cells moved by 20-50 % between runs, in
# native and Java alike (docs/benchmarks/multi-gpu.md). Process start and NCCL set-up dominate a run.
part_small2() { # issue 13, every GPU in one call: native blocking / non-blocking, the backend alone, the job path
  local n=${N:-$(nvidia-smi -L | wc -l)} it=${ITERS:-500} w=${WARMUP:-50} e=${MAXB:-1G} rep
  echo "## overhead probe, $n JVMs (8 B, host ns per call of each enqueue path)"; per_gpu nccl_probe $n | grep -E '^#   [a-z]|^# probe'
  for rep in $(seq ${REPS:-3}); do # interleaved repetitions: each table's per-size median is compared
    echo "## rep $rep: native, $n processes, blocking communicator"; secs native_n $n -b 8 -e $e -f 2 -n $it -w $w
    echo "## rep $rep: allsum NCCL backend alone (NcclSelfCheck), $n JVMs"; secs selfcheck_n $n -b 8 -e $e -f 2 -n $it -w $w
    echo "## rep $rep: allsum job path: bin/allsum --backend nccl --ranks $n"
    secs allsum --backend nccl --ranks $n -b 8 -e $e -f 2 -n $it -w $w --timeout 600 --json /tmp/small2-job-$rep.json
    if [ -n "${GRAPH:-}" ]; then
      echo "## rep $rep: native, $n processes, CUDA graph -G $GRAPH"; secs native_n $n -b 8 -e $e -f 2 -n $it -w $w -G $GRAPH
      echo "## rep $rep: allsum NCCL backend alone, $n JVMs, CUDA graph -G $GRAPH"; secs selfcheck_n $n -b 8 -e $e -f 2 -n $it -w $w --no-check -G $GRAPH
    fi
  done
  echo "## native, $n processes, non-blocking communicator"; secs native_n $n -b 8 -e $e -f 2 -n $it -w $w --nonblocking 1
  echo "## first calls with NCCL_RUNTIME_CONNECT=0 (connections at init) vs the default above"
  NCCL_RUNTIME_CONNECT=0 selfcheck_n $n -b 8 -e 64M -f 8 -n $it -w $w | grep -E '^# (allsum|first|NCCL_RUNTIME)'
}

part_small2s() { # issue 13 as small2, with the job path through a standing cluster: a server and one worker per GPU
  # started once and left warm (as docker compose runs them), each job submitted by `allsum --server` (and with REST=1
  # also by bench/h200/rest_sweep.py, no launcher JVM); native and the backend alone interleaved as in small2
  local n=${N:-$(nvidia-smi -L | wc -l)} it=${ITERS:-500} w=${WARMUP:-50} e=${MAXB:-1G} rep r
  export ALLSUM_TOKEN=standing$RANDOM$RANDOM; local url=http://127.0.0.1:18091
  allsum-server --server.port=18091 > /tmp/s-server.log 2>&1 &
  for r in $(seq 0 $((n - 1))); do ALLSUM_SERVER=$url ALLSUM_GROUP=s ALLSUM_RANK=$r ALLSUM_WORLD_SIZE=$n ALLSUM_BACKEND=nccl \
    ALLSUM_DEVICE=$r allsum-worker --server.port=0 > /tmp/s-worker-$r.log 2>&1 & done
  for _ in $(seq 240); do curl -fsS -H "Authorization: Bearer $ALLSUM_TOKEN" $url/rendezvous/s 2>/dev/null | grep -q '"state":"complete"' && break; sleep 0.5; done
  for rep in $(seq ${REPS:-3}); do
    echo "## rep $rep: native, $n processes, blocking communicator"; secs native_n $n -b 8 -e $e -f 2 -n $it -w $w
    echo "## rep $rep: allsum NCCL backend alone (NcclSelfCheck), $n JVMs"; secs selfcheck_n $n -b 8 -e $e -f 2 -n $it -w $w
    echo "## rep $rep: allsum job path, standing cluster: bin/allsum --server"
    secs allsum --server $url --group s --token "$ALLSUM_TOKEN" -b 8 -e $e -f 2 -n $it -w $w --timeout 600 --json /tmp/small2s-job-$rep.json
    if [ -n "${REST:-}" ]; then # REST=1: the same job over the REST API, no launcher JVM next to the ranks
      echo "## rep $rep: allsum job path, standing cluster, REST API"
      secs python3 bench/h200/rest_sweep.py $url s "$ALLSUM_TOKEN" 8 "$(bytes_of $e)" $it $w
    fi
  done
  pkill -f 'server.port=18091'; pkill -f allsum-worker; sleep 1
}

part_small1() { # issue 13 on one GPU: native blocking, the backend alone, the job path, interleaved repetitions
  local it=${ITERS:-500} w=${WARMUP:-50} e=${MAXB:-1G} rep
  export CUDA_VISIBLE_DEVICES=0
  echo "## overhead probe, 1 JVM"; nccl_probe | grep -E '^#   [a-z]|^# probe'
  for rep in $(seq ${REPS:-3}); do
    echo "## rep $rep: native, blocking communicator"; secs native -b 8 -e $e -f 2 -n $it -w $w
    echo "## rep $rep: allsum NCCL backend alone (NcclSelfCheck)"; secs allsum-selfcheck -b 8 -e $e -f 2 -n $it -w $w $([ $rep -gt 1 ] && echo --no-check)
    echo "## rep $rep: allsum job path: bin/allsum --backend nccl --ranks 1"
    secs allsum --backend nccl --ranks 1 -b 8 -e $e -f 2 -n $it -w $w --timeout 600 --json /tmp/small1-job-$rep.json
    if [ -n "${GRAPH:-}" ]; then
      echo "## rep $rep: native, CUDA graph -G $GRAPH"; secs native -b 8 -e $e -f 2 -n $it -w $w -G $GRAPH
      echo "## rep $rep: allsum NCCL backend alone, CUDA graph -G $GRAPH"; secs allsum-selfcheck -b 8 -e $e -f 2 -n $it -w $w --no-check -G $GRAPH
    fi
  done
  unset CUDA_VISIBLE_DEVICES
}

part_abort2() { # issue 13: a peer killed (-9) or stopped (SIGSTOP) mid-collective; the survivor must abort within --timeout
  local to=${ABORT_TIMEOUT:-5}
  for sig in KILL STOP; do
    echo "## abort test: SIG$sig rank 1 mid-collective, operation deadline $to s"
    rm -f /tmp/jncclid; local p0 p1
    allsum-selfcheck -d 0 -b 8 -e 8 -n 1 -w 0 --rank 0 --nranks 2 --id-file /tmp/jncclid --timeout $to --abort-test > /tmp/abort-0.txt 2>&1 & p0=$!
    allsum-selfcheck -d 1 -b 8 -e 8 -n 1 -w 0 --rank 1 --nranks 2 --id-file /tmp/jncclid --timeout $to --abort-test > /tmp/abort-1.txt 2>&1 & p1=$!
    for _ in $(seq 600); do grep -q 'abort-test rank 1: running' /tmp/abort-1.txt 2>/dev/null && break; sleep 0.1; done
    sleep 2
    local jp; jp=$(pgrep -P $p1 java || echo $p1)
    echo "sending SIG$sig to rank 1 (pid $jp) at $(date +%T.%N)"; local k0; k0=$(date +%s%N)
    kill -$sig $jp
    local deadline=$(( $(date +%s) + to + 60 ))
    while kill -0 $p0 2>/dev/null && [ $(date +%s) -lt $deadline ]; do sleep 0.05; done
    if kill -0 $p0 2>/dev/null; then echo "rank 0 STILL RUNNING $((to + 60)) s after SIG$sig"; kill -9 $p0; fi
    wait $p0; local rc=$?
    echo "rank 0 exited $rc, $(( ($(date +%s%N) - k0) / 1000000 )) ms after SIG$sig"
    grep -E 'abort-test|Exception|failed on rank' /tmp/abort-0.txt | tail -4
    kill -CONT $jp 2>/dev/null; kill -9 $jp 2>/dev/null; wait $p1 2>/dev/null
  done
}

part_flags() { # what conf/worker-nccl.jvmargs buys NCCL workers: the dist as built against a copy without that file
  # (so worker.jvmargs alone: C2 delayed ten-fold); backend alone and job path, 2 GPUs then 1 GPU, interleaved
  local it=${ITERS:-50} w=${WARMUP:-10} e=${MAXB:-1M} rep v n alt=/tmp/allsum-dist-no-nccl-flags
  [ -d $alt ] || { cp -a $base $alt; rm -f $alt/allsum-linux-x86_64/conf/worker-nccl.jvmargs; }
  for n in ${FLAGS_N:-2 1}; do for rep in $(seq ${REPS:-2}); do for v in worker+nccl worker-only; do (
    [ $v = worker-only ] && export ALLSUM_HOME=$alt/allsum-linux-x86_64 PATH=$alt/allsum-linux-x86_64/bin:$PATH
    [ $n = 1 ] && export CUDA_VISIBLE_DEVICES=0
    echo "## $n GPU(s), rep $rep, worker flags $v: $(ls $ALLSUM_HOME/conf/ | grep worker | tr '\n' ' ')"
    echo "## backend alone"; selfcheck_n $n -b 8 -e $e -f 2 -n $it -w $w --no-check 2>&1 | grep -E '^ +[0-9]|^# (allsum|SELF)'
    echo "## job path"; allsum --backend nccl --ranks $n -b 8 -e $e -f 2 -n $it -w $w --timeout 300 2>&1 | grep -E '^ +[0-9]'
  ); done; done; done
}

part_large2() { # every GPU, 64 MiB .. 1 GiB: native blocking, backend alone, job path (large messages stay >= 0.99x)
  local n=${N:-$(nvidia-smi -L | wc -l)}
  echo "## native, $n processes, blocking communicator"; secs native_n $n -b 64M -e 1G -f 2 -n 20 -w 5
  echo "## allsum NCCL backend alone, $n JVMs"; secs selfcheck_n $n -b 64M -e 1G -f 2 -n 20 -w 5 --no-check
  echo "## allsum job path"; secs allsum --backend nccl --ranks $n -b 64M -e 1G -f 2 -n 20 -w 5 --timeout 600
}

part_gputests() { # the GPU unit tests (they skip where there is no GPU, as in CI), with the distribution's Java
  local j=${JUNIT_DIR:-junit} cp
  cp="$(worker_cp):$j/test-classes:$j/runner:$(ls $j/*.jar | tr '\n' ':')"
  $JAVA --enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.maxPhysicalBytes=0 -cp "$cp" GpuTestRunner \
    ${GPU_TESTS:-io.allsum.comm.nccl.NcclCommunicatorGpuTest io.allsum.comm.nccl.NcclDeadlineGpuTest io.allsum.DeviceMemoryGpuTest}
}

part_validate() { # allsum validate on the ring backend, VALIDATE_RANKS (4 8 16) local ranks, REPS (2) times, each line
  # stamped with ms since the command started; then each run's pair phase as the job reports it (pairsSeconds: the
  # slowest rank's clock), and the NCCL backend on one GPU, where a world of 1 is refused
  local rep n
  for rep in $(seq ${REPS:-2}); do for n in ${VALIDATE_RANKS:-4 8 16}; do
    echo "## rep $rep: allsum validate --ranks $n --backend ring"
    stamped allsum validate --ranks $n --backend ring --json $OUT/validate-$n-$rep.json
  done; done
  echo "## pair phase per run (from --json): ranks rep pairs pairsSeconds verdict"
  python3 - "$OUT" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "validate-*.json")), key=lambda f: [int(x) for x in f[:-5].split("-")[-2:]]):
    d = json.load(open(f)); n, rep = f[:-5].split("-")[-2:]
    print(n, rep, len(d.get("pairs") or []), d.get("pairsSeconds"), d.get("verdict"))
PY
  echo "## one GPU: allsum validate --ranks 1 --backend nccl"
  CUDA_VISIBLE_DEVICES=0 stamped allsum validate --ranks 1 --backend nccl
}
stamped() {
  local s; s=$(date +%s%N)
  "$@" 2>&1 | while IFS= read -r l; do printf '%7d ms  %s\n' $(( ($(date +%s%N) - s) / 1000000 )) "$l"; done
  echo "# exit ${PIPESTATUS[0]}"
}

part_burst1() { # issue 13: does a burst of JVM start-ups just before a sweep put it in the host's slow state?
  # Native 1-GPU sweeps of the launch-bound sizes, interleaved: after 5 s idle; right after a one-shot CPU job (ring
  # backend, 2 ranks: the launcher, server and worker JVMs starting, as before a one-shot `allsum` sweep); and while
  # 12 busy loops run on the other cores. Read with states.py: does each series land fast as often as the quiet one?
  export CUDA_VISIBLE_DEVICES=0; local it=${ITERS:-500} w=${WARMUP:-50} rep b p
  native_build
  for rep in $(seq ${REPS:-10}); do
    sleep 5; echo "## rep $rep: native after 5 s idle"; secs native -b 8 -e 4K -f 2 -n $it -w $w
    quiet allsum --backend ring --ranks 2 -b 8 -e 8 -n 1 -w 0 --timeout 120
    echo "## rep $rep: native right after a one-shot ring job"; secs native -b 8 -e 4K -f 2 -n $it -w $w
    sleep 5; local pids=(); for b in $(seq 12); do (end=$((SECONDS + 4)); while [ $SECONDS -lt $end ]; do :; done) & pids+=($!); done
    echo "## rep $rep: native next to 12 busy loops"; secs native -b 8 -e 4K -f 2 -n $it -w $w
    for p in "${pids[@]}"; do wait $p; done
  done
  unset CUDA_VISIBLE_DEVICES
}

part_pin1() { # one GPU, host time per call: unpinned vs pinned to 4 cores, native and the JVM probe
  export CUDA_VISIBLE_DEVICES=0; local pin rep
  native_build
  for rep in 1 2; do for pin in "" "taskset -c 8-11"; do
    echo "## rep $rep: native ${pin:-unpinned}"; $pin /tmp/allreduce_bench -b 8 -e 1M -f 4 -n 50 -w 10 | grep -E '^ +[0-9]'
    echo "## rep $rep: JVM probe ${pin:-unpinned}"; PIN="$pin" nccl_probe | grep -E '^#   [a-z]'
    $pin allsum-selfcheck --no-check -b 8 -e 1M -f 4 -n 50 -w 10 | grep -E '^ +[0-9]'
  done; done
  unset CUDA_VISIBLE_DEVICES
}

# AB_DIST=tarball: another build's dist (e.g. main before a change), unpacked to /tmp/allsum-ab, for the ab_* parts.
# It may leave out the runtime and the jars this dist has under the same names (to carry less): they are taken from here.
ab_home() {
  local d=/tmp/allsum-ab j
  [ -x $d/allsum-linux-x86_64/bin/allsum ] || { mkdir -p $d && tar -C $d -xJf "${AB_DIST:?AB_DIST names the other dist}"; }
  [ -e $d/allsum-linux-x86_64/runtime ] || ln -s $ALLSUM_HOME/runtime $d/allsum-linux-x86_64/runtime
  for j in $ALLSUM_HOME/lib/*.jar; do [ -e $d/allsum-linux-x86_64/lib/${j##*/} ] || cp $j $d/allsum-linux-x86_64/lib/; done
  [ -f $d/allsum-linux-x86_64/lib/worker.aot ] || ALLSUM_HOME=$d/allsum-linux-x86_64 $d/allsum-linux-x86_64/bin/allsum-aot-train >&2
  echo $d/allsum-linux-x86_64
}

part_ab_rdv() { # rendezvous with the server of AB_DIST and of this dist, alternating, the same bench clients; TCPStore once
  local other rep; other=$(ab_home)
  export RDV_RANKS=${RDV_RANKS:-1024,4096,16384}
  for rep in $(seq ${REPS:-2}); do
    for h in $other $ALLSUM_HOME; do
      echo "#### rep $rep: server of $( [ $h = $ALLSUM_HOME ] && echo this || echo AB_DIST) dist"
      RDV_SERVER_HOME=$h RDV_TCPSTORE=0 RDV_SETTLE=${RDV_SETTLE:-10} part_rdv
    done
  done
  [ "${RDV_TCPSTORE:-1}" = 0 ] || { echo "## TCPStore (bench/rendezvous/tcpstore_bench.py), ${RDV_PROCS:-16} client processes"
    ${PYTHON:-python3} bench/rendezvous/tcpstore_bench.py --ranks $RDV_RANKS --procs ${RDV_PROCS:-16} --rounds ${RDV_ROUNDS:-5}; }
}

part_ab_start() { # AB_DIST's and this dist's allsum, alternating: cold start to the first all-sum on one GPU
  local other i h; other=$(ab_home)
  export CUDA_VISIBLE_DEVICES=0
  for h in $other $ALLSUM_HOME; do quiet $h/bin/allsum --backend nccl --ranks 1 -b 4 -e 4 -n 1 -w 0 -q; done
  for i in 1 2 3; do for h in $other $ALLSUM_HOME; do
    echo "## cold start $i, $( [ $h = $ALLSUM_HOME ] && echo this || echo AB_DIST) dist"
    first_done "succeeded (" $h/bin/allsum --backend nccl --ranks 1 -b 4 -e 4 -n 1 -w 0
  done; echo "## torch cold start $i"; first_done "TORCH_COLD" python3 bench/h200/torch_cold_start.py; done
  unset CUDA_VISIBLE_DEVICES
}

part_ab_validate() { # allsum validate on the ring backend with AB_DIST's and this dist, alternating: VALIDATE_RANKS (8 12
  # 16) local ranks, REPS (3) times; then each run's pair phase and verdict from its --json file
  local other rep n h tag; other=$(ab_home)
  for rep in $(seq ${REPS:-3}); do for n in ${VALIDATE_RANKS:-8 12 16}; do for h in $other $ALLSUM_HOME; do
    tag=$( [ $h = $ALLSUM_HOME ] && echo this || echo ab)
    echo "## rep $rep: allsum validate --ranks $n --backend ring, $tag dist"
    secs quiet $h/bin/allsum validate --ranks $n --backend ring -q --json $OUT/validate-$tag-$n-$rep.json
  done; done; done
  echo "## per run (from --json): dist ranks rep pairsSeconds verdict suspects"
  python3 - "$OUT" <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "validate-*-*-*.json"))):
    d = json.load(open(f)); tag, n, rep = f[:-5].split("-")[-3:]
    print(tag, n, rep, d.get("pairsSeconds"), d.get("verdict"),
          "; ".join(s["kind"] + " " + str(s["rank"]) + ": " + s["reason"] for s in d.get("suspects") or []))
PY
}

part_ab_cpu2() { # the default CPU job (4 ring ranks, 8 B .. 64 MiB) on 2 pinned cores: AB_DIST's allsum, this one's,
  # and the same sweep with PyTorch Gloo (bench/startup/gloo_sweep.py), alternating
  local other i h; other=$(ab_home)
  for h in $other $ALLSUM_HOME; do quiet taskset -c 0,1 $h/bin/allsum --backend ring -q --ranks 2 -b 8 -e 1K; done
  for i in 1 2 3; do
    for h in $other $ALLSUM_HOME; do
      echo "## 2 cores, allsum default job $i, $( [ $h = $ALLSUM_HOME ] && echo this || echo AB_DIST) dist"
      secs quiet taskset -c 0,1 $h/bin/allsum --backend ring -q
    done
    echo "## 2 cores, gloo_sweep.py 4, $i"; secs quiet taskset -c 0,1 python3 bench/startup/gloo_sweep.py 4
  done
}

part_cpu2() { # the default CPU job on 2 pinned cores, this dist only, alternating REPS times (default 3): its default
  # (the CPU ranks in one worker JVM, same-host links over shared memory), ALLSUM_RING_SHARED_MEMORY=false (TCP),
  # --process-per-rank (a JVM per rank), and the same sweep with PyTorch Gloo (bench/startup/gloo_sweep.py)
  local i
  quiet taskset -c 0,1 allsum --backend ring -q --ranks 2 -b 8 -e 1K
  for i in $(seq 1 ${REPS:-3}); do
    echo "## 2 cores, allsum default job $i, default"; secs quiet taskset -c 0,1 allsum --backend ring -q
    echo "## 2 cores, allsum default job $i, ALLSUM_RING_SHARED_MEMORY=false"
    secs quiet env ALLSUM_RING_SHARED_MEMORY=false taskset -c 0,1 allsum --backend ring -q
    echo "## 2 cores, allsum default job $i, --process-per-rank"
    secs quiet taskset -c 0,1 allsum --backend ring -q --process-per-rank
    echo "## 2 cores, gloo_sweep.py 4, $i"; secs quiet taskset -c 0,1 python3 bench/startup/gloo_sweep.py 4
  done
}

for part in "$@"; do
  echo "######## $part"
  "part_$part" 2>&1 | tee "$OUT/$part.txt"
done
