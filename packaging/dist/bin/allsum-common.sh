# Shared by the bin/ scripts (sourced, not run): ALLSUM_HOME, the bundled runtime, the JVM flags, and a classpath
# from lib/<app>.classpath.
ALLSUM_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export ALLSUM_HOME
JAVA="$ALLSUM_HOME/runtime/bin/java"
[ -x "$JAVA" ] || JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
# The JVM flags of each program live in conf/<app>.jvmargs (copied from the repository's packaging/jvm/, the one
# place they are kept; java @file syntax): conf/<app>.jvmargs, then conf/<app>-<variant>.jvmargs (a worker of the NCCL
# backend reads worker-nccl.jvmargs), then those ALLSUM_JVM_CONF names (space-separated, without .jvmargs: the allsum
# command sets it for the server and workers of a local run). ALLSUM_JAVA_OPTS adds flags of your own.
allsum_jvm_flags() { # app [variant] -> ALLSUM_JVM_FLAGS
  ALLSUM_JVM_FLAGS=()
  local conf
  for conf in "$1" ${2:+"$1-$2"} ${ALLSUM_JVM_CONF:-}; do
    [ -f "$ALLSUM_HOME/conf/$conf.jvmargs" ] && ALLSUM_JVM_FLAGS+=("@$ALLSUM_HOME/conf/$conf.jvmargs")
  done
  # shellcheck disable=SC2206
  ALLSUM_JVM_FLAGS+=(${ALLSUM_JAVA_OPTS:-})
}

allsum_run() { # app args...
  local app="$1"; shift
  local cp="" jar
  [ -f "$ALLSUM_HOME/lib/$app.classpath" ] || { echo "allsum: $app is not part of this distribution" >&2; exit 1; }
  while read -r jar; do cp="${cp:+$cp:}$ALLSUM_HOME/lib/$jar"; done < "$ALLSUM_HOME/lib/$app.classpath"
  allsum_jvm_flags "$app" "$(allsum_jvm_variant "$app")"
  # The JDK's AOT cache (JEP 483/514/515), lib/<app>.aot, made by packaging/dist/build.sh's training run with this
  # runtime and these jars. One that no longer matches them (a jar replaced, another runtime) is ignored by the JVM;
  # -Xlog:aot*=off keeps that silent. ALLSUM_AOT=off runs without it; ALLSUM_AOT_RECORD=DIR records one (build.sh).
  if [ -n "${ALLSUM_AOT_RECORD:-}" ]; then
    ALLSUM_JVM_FLAGS+=("-XX:AOTCacheOutput=$ALLSUM_AOT_RECORD/$app.$$.aot")
  elif [ "${ALLSUM_AOT:-}" != off ] && [ -f "$ALLSUM_HOME/lib/$app.aot" ]; then
    ALLSUM_JVM_FLAGS+=("-XX:AOTCache=$ALLSUM_HOME/lib/$app.aot" "-Xlog:aot*=off")
  fi
  exec "$JAVA" "${ALLSUM_JVM_FLAGS[@]}" -cp "$cp" "$(cat "$ALLSUM_HOME/lib/$app.main")" "$@"
}

# NCCL workers get conf/worker-nccl.jvmargs on top of conf/worker.jvmargs: ALLSUM_BACKEND=nccl, or auto (the
# default) on a host with an NVIDIA GPU, where the worker picks NCCL when it loads.
allsum_jvm_variant() { # app -> variant or nothing
  [ "$1" = worker ] || return 0
  case "${ALLSUM_BACKEND:-auto}" in
    nccl) echo nccl ;;
    auto) [ -e /dev/nvidiactl ] && echo nccl ;;
  esac
  return 0
}

# Puts the directories holding the host's libcudart.so.13 and libnccl.so.2 on LD_LIBRARY_PATH (ldconfig's cache,
# the CUDA toolkit, the distro path, and python's nvidia-nccl wheel, which is often newer than the system one).
allsum_find_gpu_libs() {
  local dirs=() lib dir py pynccl=""
  for lib in libcudart.so.13 libnccl.so.2; do
    # awk reads to the end: leaving at the first match would kill ldconfig with SIGPIPE, and pipefail would
    # then end the script with 141 (seen now and then under load)
    dir="$(ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l && !found { sub(/.*=> /, ""); print; found = 1 }')"
    [ -n "$dir" ] && dirs+=("$(dirname "$dir")")
  done
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    [ -d "$dir" ] && dirs+=("$dir")
  done
  for py in python3 python; do
    dir="$("$py" -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)" || true
    [ -n "$dir" ] && [ -e "$dir/libnccl.so.2" ] && { pynccl="$dir"; break; }
  done
  for py in python3 python; do
    dir="$("$py" -c 'import nvidia.cuda_runtime, os; print(os.path.join(list(nvidia.cuda_runtime.__path__)[0], "lib"))' 2>/dev/null)" || true
    [ -n "$dir" ] && [ -e "$dir/libcudart.so.13" ] && { dirs+=("$dir"); break; }
  done
  # python's NCCL goes before an inherited LD_LIBRARY_PATH (images often carry an older system libnccl there);
  # ALLSUM_NCCL_LIB_DIR, when set, goes first of all.
  local path="${LD_LIBRARY_PATH:-}" front="${ALLSUM_NCCL_LIB_DIR:-}${pynccl:+${ALLSUM_NCCL_LIB_DIR:+:}$pynccl}"
  for dir in "${dirs[@]}"; do
    case ":$path:" in *":$dir:"*) ;; *) path="${path:+$path:}$dir" ;; esac
  done
  [ -n "$front" ] && path="$front:$path"
  export LD_LIBRARY_PATH="$path"
}
