# allsum/rendezvous-server: the rendezvous server and job API on port 8080.
# Built from the self-contained distribution (a jlink'd Java 25 runtime and the app's jars, made on the host by
# docker/build-images.sh), so the JVM flags live in one place (packaging/jvm, the dist's conf/) for bare metal and images.
#   docker/build-images.sh          (or: docker build -f docker/server.Dockerfile dist/allsum-linux-x86_64)
# BASE_IMAGE is any glibc Linux with bash; the default is what users pull. Tests and CI here, with no registry,
# import a locally made image under the same tag (docker/local-bases.sh).
ARG BASE_IMAGE=debian:bookworm-slim

# Stage 1: only the runtime, the scripts and the jars on the server's class path.
FROM ${BASE_IMAGE} AS dist
# Marks this stage's untagged image for docker/build-images.sh's prune.
LABEL io.allsum.build-images=""
COPY . /dist
RUN set -eu; mkdir -p /opt/allsum/lib; \
    cp -a /dist/runtime /dist/bin /dist/conf /opt/allsum/; \
    cp /dist/lib/server.classpath /dist/lib/server.main /opt/allsum/lib/; \
    if [ -f /dist/lib/server.aot ]; then cp -p /dist/lib/server.aot /opt/allsum/lib/; fi; \
    while read -r jar; do cp -p "/dist/lib/$jar" /opt/allsum/lib/; done < /dist/lib/server.classpath; \
    rm -f /opt/allsum/bin/allsum-worker /opt/allsum/bin/allsum-selfcheck /opt/allsum/bin/allsum

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0-SNAPSHOT
ARG REVISION=unknown
LABEL org.opencontainers.image.title="allsum rendezvous server" \
      org.opencontainers.image.description="Hands NCCL unique ids to GPU workers over HTTP; generations, heartbeats, jobs API" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/allsum/allsum" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 allsum && useradd --system --uid 10001 --gid allsum --home-dir /var/lib/allsum \
      --create-home --shell /usr/sbin/nologin allsum
COPY --from=dist /opt/allsum /opt/allsum
# The heap follows the container's memory limit; the data directory is a volume (job history).
ENV PATH=/opt/allsum/bin:$PATH \
    SERVER_PORT=8080 \
    ALLSUM_DATA_DIR=/var/lib/allsum \
    ALLSUM_JAVA_OPTS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -Xss512k"
USER allsum
WORKDIR /var/lib/allsum
VOLUME /var/lib/allsum
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=4s --start-period=120s --retries=3 CMD ["allsum-health"]
ENTRYPOINT ["allsum-server"]
