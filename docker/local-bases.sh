#!/usr/bin/env bash
# FOR TESTS AND CI ONLY. No image registry is reachable on the project's build machines, so the public base image
# that docker/server.Dockerfile and the CPU worker name (debian:bookworm-slim) is made here from Debian's own
# packages: debootstrap a minimal bookworm, trim it the way the official -slim image is trimmed, and `docker import`
# it under that tag. On a machine that can pull, do not run this: docker pulls the real image.
#   docker/local-bases.sh            (idempotent: does nothing when the tag exists; needs root, debootstrap, dockerd)
set -euo pipefail
tag="${1:-debian:bookworm-slim}"
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "local-bases: $tag already present"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "local-bases: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
rootfs="$(mktemp -d /tmp/allsum-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
echo "local-bases: debootstrap bookworm from $mirror (about 30 s)"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 \
  || { tail -20 "$rootfs.log" >&2; exit 1; }
rm -f "$rootfs.log"
# What the official slim image drops: package lists and caches, documentation, man pages, locales.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
       "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*
tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - "$tag" >/dev/null
echo "local-bases: made $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.1f MB", $1/1e6}'))"
