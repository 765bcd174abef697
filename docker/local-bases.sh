#!/usr/bin/env bash
# FOR TESTS AND CI ONLY. No image registry is reachable on the project's build machines, so the public base image
# that docker/server.Dockerfile and the CPU worker name (debian:bookworm-slim) is made here from Debian's own
# packages: debootstrap a minimal bookworm, trim it the way the official -slim image is trimmed, and `docker import`
# it under that tag. On a machine that can pull, do not run this: docker pulls the real image.
#   docker/local-bases.sh            (idempotent: does nothing when the tag exists; needs root, debootstrap, dockerd)
set -euo pipefail
tag="${1:-debian:bookworm-slim}"
# One run at a time, holding this lock: .ci/run starts this beside the build, and the container tests wait on it.
lock="${ALLSUM_BASES_LOCK:-/tmp/allsum-local-bases.lock}"
exec 9>"$lock"
flock 9
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "local-bases: $tag already present"
  exit 0
fi
command -v debootstrap >/dev/null || { echo "local-bases: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
rootfs="$(mktemp -d /tmp/allsum-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT
suite=bookworm
# The Debian mirror this machine's apt already uses for $suite: one-line entries ("deb [opts] URI suite comp...") in
# sources.list and *.list, deb822 stanzas (Types/URIs/Suites/Enabled) in *.sources. DEBIAN_MIRROR overrides it.
apt_mirror() {
  local files=() f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && files+=("$f"); done
  if [ ${#files[@]} -gt 0 ]; then
    sed -E 's/#.*//; s/\[[^]]*\]//' "${files[@]}" | awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }'
  fi
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v s="$suite" '
      function flush() { if (deb && on && has) { print uri; found = 1; exit } deb = 0; on = 1; has = 0; uri = "" }
      BEGIN { on = 1 }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { key = tolower($1); sub(/:$/, "", key) }
      key == "types"   { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      key == "uris"    { uri = $2 }
      key == "suites"  { for (i = 2; i <= NF; i++) if ($i == s) has = 1 }
      key == "enabled" { on = (tolower($2) != "no") }
      END { if (!found) flush() }' "$f"
  done
}
mirror="${DEBIAN_MIRROR:-$(apt_mirror | head -1)}"
[ -n "$mirror" ] || { echo "local-bases: no Debian mirror for $suite in /etc/apt/sources.list or /etc/apt/sources.list.d/ (set DEBIAN_MIRROR=URI)" >&2; exit 2; }
echo "local-bases: debootstrap $suite from $mirror (about 30 s)"
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 \
  || { tail -20 "$rootfs.log" >&2; exit 1; }
rm -f "$rootfs.log"
# What the official slim image drops: package lists and caches, documentation, man pages, locales.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* \
       "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*
tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - "$tag" >/dev/null
echo "local-bases: made $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.1f MB", $1/1e6}'))"
