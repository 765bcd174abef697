#!/usr/bin/env bash
# Builds the allsum images from this checkout:
#   allsum/rendezvous-server:latest   server      (BASE: debian:bookworm-slim)
#   allsum/worker:cpu                 ring worker + the allsum command (BASE: debian:bookworm-slim)
#   allsum/worker:cuda13              GPU worker + the allsum command (BASE: nvidia/cuda:13.0.1-runtime-ubuntu24.04)
# Usage: docker/build-images.sh [cpu|gpu|all]      (default all; cpu skips the CUDA image)
# Needs Java 25 (JAVA_HOME or /usr/lib/jvm/temurin-25-jdk-amd64) and docker. Builds the jars when missing.
# SERVER_BASE / CPU_BASE / GPU_BASE override the base images.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"
case "$what" in cpu|gpu|all) ;; *) echo "usage: docker/build-images.sh [cpu|gpu|all]" >&2; exit 2 ;; esac
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q '"25'; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
cd "$root"
docker info >/dev/null 2>&1 || { echo "build-images: no Docker engine answers (docker info fails): start one, or set DOCKER_HOST" >&2; exit 1; }
# Every base image first, in the local store or pulled: one that is neither stops the build with one line naming it
# (instead of the engine's DNS error after the other images).
need_base() { # image variable hint
  docker image inspect "$1" >/dev/null 2>&1 && return 0
  local err
  err="$(docker pull -q "$1" 2>&1 >/dev/null)" && return 0
  echo "build-images: needs the base image $1 (not in the local image store; docker pull: $(printf '%s' "$err" | tail -1)): load it (docker load -i FILE) or set $2$3" >&2
  exit 1
}
server_base="${SERVER_BASE:-debian:bookworm-slim}" cpu_base="${CPU_BASE:-debian:bookworm-slim}"
gpu_base="${GPU_BASE:-nvidia/cuda:13.0.1-runtime-ubuntu24.04}"
need_base "$server_base" SERVER_BASE
if [ "$what" != gpu ]; then need_base "$cpu_base" CPU_BASE; fi
if [ "$what" != cpu ]; then
  need_base "$gpu_base" GPU_BASE " to an image with CUDA 13 and NCCL 2.28, or build the CPU images only: docker/build-images.sh cpu"
fi
for jar in rendezvous-server/target/rendezvous-server.jar worker-agent/target/worker-agent.jar \
           launcher/target/allsum-launcher.jar; do
  if [ ! -f "$jar" ]; then echo "build-images: building the jars (./mvnw -q -DskipTests package)"; ./mvnw -B -q -DskipTests package; break; fi
done
# Without the dist's JDK AOT caches by default: they are 60-80 MB per image (server 154.8 -> 242 MB), for a
# start-up saving that matters to one-shot local runs rather than to long-lived containers. DIST_AOT=on adds them
# (the Dockerfiles copy lib/<app>.aot when present).
DIST_AOT="${DIST_AOT:-off}" DIST_LAYOUT=dir packaging/dist/build.sh
context="$root/dist/allsum-linux-x86_64"
version="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' pom.xml | sed -n 2p)"
revision="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
# Each build leaves its dist stage, and the image a tag moved away from, untagged: both carry the label below and are
# pruned after the build (an image that a container still uses stays).
label=io.allsum.build-images
build() { # tag dockerfile base
  echo "build-images: $1 (base $3)"
  local err
  # The client's own notices (the legacy builder's deprecation) go to stderr: shown only when the build fails.
  if ! err="$(docker build -q -t "$1" -f "docker/$2" --label "$label" --build-arg "BASE_IMAGE=$3" \
      --build-arg "VERSION=$version" --build-arg "REVISION=$revision" "$context" 2>&1 >/dev/null)"; then
    printf '%s\n' "$err" >&2
    echo "build-images: building $1 failed" >&2
    exit 1
  fi
  docker image prune -f --filter "label=$label" >/dev/null
  docker image inspect -f "build-images: $1 {{.Size}}" "$1" | awk '{printf "%s %s %.1f MB\n", $1, $2, $3/1e6}'
}
build allsum/rendezvous-server:latest server.Dockerfile "$server_base"
if [ "$what" != gpu ]; then build allsum/worker:cpu worker.Dockerfile "$cpu_base"; fi
if [ "$what" != cpu ]; then build allsum/worker:cuda13 worker.Dockerfile "$gpu_base"; fi
