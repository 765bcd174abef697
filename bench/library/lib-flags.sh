# Sourced by bench/h200/run.sh and ring-ranks.sh. lib_jvm_flags RANK BACKEND CACHE_DIR sets ALLSUM_JVM_FLAGS for one
# bench-library rank, by LIB_FLAGS:
#   worker (default): the worker's JVM flags (conf/worker.jvmargs, and worker-nccl.jvmargs for nccl);
#   plain: a user program's JVM (the JDK's JIT thresholds), with the settings JavaCPP needs;
#   aot: the worker's flags and a JDK AOT cache of the program itself, CACHE_DIR/lib-BACKEND-RANK.aot, recorded by
#        that rank's first run (which then pays the recording), as the job path's workers map theirs.
lib_jvm_flags() {
  local rank=$1 backend=$2 cache="$3/lib-$2-$1.aot"
  source "$ALLSUM_HOME/bin/allsum-common.sh"; allsum_jvm_flags worker "$backend"
  case ${LIB_FLAGS:-worker} in
    worker) ;;
    plain) ALLSUM_JVM_FLAGS=(--enable-native-access=ALL-UNNAMED -Dorg.bytedeco.javacpp.maxPhysicalBytes=0 -XX:+UseSerialGC) ;;
    aot) if [ -f "$cache" ]; then ALLSUM_JVM_FLAGS+=("-XX:AOTCache=$cache" -Xlog:aot*=off)
         else ALLSUM_JVM_FLAGS+=("-XX:AOTCacheOutput=$cache"); fi ;;
    *) echo "LIB_FLAGS=$LIB_FLAGS: one of worker, plain, aot" >&2; return 2 ;;
  esac
}
