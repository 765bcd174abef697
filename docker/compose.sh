#!/usr/bin/env bash
# docker/compose.yaml through whichever compose CLI this machine has: the `docker compose` plugin, else the standalone
# `docker-compose` (Debian's docker.io has no plugin; its docker-compose 1.29 reads the same file).
#   docker/compose.sh --profile cpu up -d          (any compose arguments; -f docker/compose.yaml is added)
set -euo pipefail
file="$(cd "$(dirname "$0")" && pwd)/compose.yaml"
if docker compose version >/dev/null 2>&1; then
  exec docker compose -f "$file" "$@"
elif command -v docker-compose >/dev/null; then
  exec docker-compose -f "$file" "$@"
fi
echo "compose.sh: no compose CLI: install the docker compose plugin or docker-compose" >&2
exit 127
