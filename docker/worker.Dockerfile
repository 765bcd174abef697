# allsum/worker: one worker agent per GPU (NCCL when a GPU and libnccl are visible, the CPU ring otherwise), plus the
# `allsum` command (the launcher) for sweeps against a running cluster.
#   GPU image (default): BASE_IMAGE=nvidia/cuda:13.0.1-runtime-ubuntu24.04 ships libcudart.so.13 (13.0.88) and
#                        libnccl.so.2 (2.28.3+cuda13.0), found by the dist's scripts in /usr/local/cuda/lib64 and
#                        /usr/lib/x86_64-linux-gnu.
#   CPU image:           BASE_IMAGE=debian:bookworm-slim (ring backend only; what `--profile cpu` uses).
# Built by docker/build-images.sh from the self-contained distribution, like server.Dockerfile.
ARG BASE_IMAGE=nvidia/cuda:13.0.1-runtime-ubuntu24.04

FROM ${BASE_IMAGE} AS dist
# Marks this stage's untagged image for docker/build-images.sh's prune.
LABEL io.allsum.build-images=""
COPY . /dist
RUN set -eu; mkdir -p /opt/allsum/lib; \
    cp -a /dist/runtime /dist/bin /dist/conf /opt/allsum/; \
    for app in worker launcher; do \
      cp "/dist/lib/$app.classpath" "/dist/lib/$app.main" /opt/allsum/lib/; \
      if [ -f "/dist/lib/$app.aot" ]; then cp -p "/dist/lib/$app.aot" /opt/allsum/lib/; fi; \
      while read -r jar; do cp -np "/dist/lib/$jar" /opt/allsum/lib/; done < "/dist/lib/$app.classpath"; \
    done; \
    rm -f /opt/allsum/bin/allsum-server

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0-SNAPSHOT
ARG REVISION=unknown
LABEL org.opencontainers.image.title="allsum worker" \
      org.opencontainers.image.description="allsum worker agent (NCCL or CPU ring) and the allsum sweep command" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/allsum/allsum" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN (groupadd --system --gid 10001 allsum && useradd --system --uid 10001 --gid allsum --home-dir /home/allsum \
      --create-home --shell /usr/sbin/nologin allsum)
COPY --from=dist /opt/allsum /opt/allsum
# JVM flags (--enable-native-access, JavaCPP maxPhysicalBytes=0) come from the dist's conf/worker.jvmargs. Half the container's
# memory for the heap: the ring's buffers and CUDA's host allocations live outside it.
ENV PATH=/opt/allsum/bin:$PATH \
    SERVER_PORT=8081 \
    ALLSUM_JAVA_OPTS="-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError -Xss512k"
USER allsum
WORKDIR /home/allsum
# The ring backend listens on an ephemeral port that peers learn from the rendezvous (no fixed port to publish).
EXPOSE 8081
HEALTHCHECK --interval=5s --timeout=4s --start-period=120s --retries=3 CMD ["allsum-health"]
ENTRYPOINT ["allsum-worker"]
