#!/usr/bin/env bash
# GPU workers in containers on the H200 host, which has no container engine and no network (so no image can be
# pulled, and the worker image plus an engine, about 79 MB + 40 MB compressed, do not fit one 64 MiB call).
# runc (Debian's binary, carried in .carry-containers/) runs each worker the way docker/compose.yaml's gpu2 profile
# does with the NVIDIA container toolkit:
#   - its own mount, PID and UTS namespaces; the host's network and IPC namespaces (network_mode: host, ipc: host);
#   - only its own GPU's device node /dev/nvidiaN (plus nvidiactl and nvidia-uvm), allowed in the device cgroup,
#     so the container sees one GPU as device 0 (device_ids: ["N"]);
#   - a root file system made of the host's Ubuntu 24.04 userland read-only (the same distribution as
#     nvidia/cuda:13.0.1-runtime-ubuntu24.04, with the host's CUDA 13 runtime, NCCL and driver libraries, which is
#     what the toolkit would inject) and the allsum distribution at /opt/allsum, as in the image;
#   - uid 10001, NCCL_HOSTID shared, NCCL_NVLS_ENABLE=0, the image's environment.
# The server and the sweep run on the host from the same distribution. Usage (repo root, on the GPU host):
#   bash bench/h200/containers.sh        output: stdout and $OUT/containers.txt
set -uo pipefail
OUT=${OUT:-/tmp/allsum-out}; mkdir -p "$OUT"; exec > >(tee "$OUT/containers.txt") 2>&1
carry=.carry-containers
work=/tmp/allsum-containers; rm -rf "$work"; mkdir -p "$work"
tar -C "$work" -xJf "$carry/allsum-linux-x86_64.tar.xz"; dist="$work/allsum-linux-x86_64"
runc="$carry/runc"; chmod +x "$runc"
echo "## runc: $("$runc" --version | head -1)"; nvidia-smi -L
TOKEN=containers-$RANDOM$RANDOM; PORT=18080; WORLD=${WORLD:-2}
# GPUS=own: each container gets only its GPU's node and uses device 0 (compose's device_ids: ["i"]).
# GPUS=all: every container gets every GPU's node and uses device i (device_ids: [all of them], ALLSUM_DEVICE=i).
GPUS=${GPUS:-own}; SWEEP_MAX=${SWEEP_MAX:-256M}; echo "## GPUS=$GPUS ${EXTRA_ENV:+extra env: $EXTRA_ENV}"
export NCCL_NVLS_ENABLE=0
ALLSUM_TOKEN=$TOKEN "$dist/bin/allsum-server" --server.port=$PORT > "$work/server.log" 2>&1 </dev/null &
server=$!

uvm_major=$(awk '$2 == "nvidia-uvm" {print $1}' /proc/devices)
make_bundle() { # rank -> bundle dir with config.json
  local r=$1 b="$work/rank$r"; mkdir -p "$b/rootfs"
  (cd "$b" && "$OLDPWD/$runc" spec)
  python3 - "$b/config.json" "$r" "$dist" "$TOKEN" "$PORT" "$WORLD" "$uvm_major" "$GPUS" "${EXTRA_ENV:-}" <<'PY'
import json, os, sys
path, r, dist, token, port, world, uvm, gpus, extra = sys.argv[1:]; r = int(r)
c = json.load(open(path))
c["root"] = {"path": "rootfs", "readonly": True}
p = c["process"]
p["terminal"] = False
p["user"] = {"uid": 10001, "gid": 10001}
p["args"] = ["/opt/allsum/bin/allsum-worker"]
p["cwd"] = "/dev/shm"
p.pop("rlimits", None)  # inherit the host's limits (raising NOFILE above them is refused: EPERM)
p["env"] = ["PATH=/opt/allsum/bin:/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/dev/shm",
            f"ALLSUM_SERVER=http://127.0.0.1:{port}", "ALLSUM_GROUP=cluster", f"ALLSUM_TOKEN={token}",
            f"ALLSUM_RANK={r}", f"ALLSUM_WORLD_SIZE={world}", f"ALLSUM_DEVICE={r if gpus == 'all' else 0}", "ALLSUM_BACKEND=nccl",
            f"SERVER_PORT={8181 + r}", "NCCL_HOSTID=allsum-compose", "NCCL_NVLS_ENABLE=0", "NCCL_DEBUG=INFO",
            "NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET",
            "ALLSUM_JAVA_OPTS=-XX:MaxRAMPercentage=50 -XX:+ExitOnOutOfMemoryError -Xss512k -Djava.io.tmpdir=/dev/shm"]
p["env"] += [e for e in extra.split() if "=" in e]
# host network and IPC: drop those namespaces
c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] in ("pid", "mount", "uts")]
c["hostname"] = f"gpu2-rank{r}"
binds = [(d, d) for d in ("/usr", "/etc", "/var/lib") if os.path.isdir(d)]
for d in ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
    if os.path.islink(d):
        continue  # usrmerge: a link the rootfs gets below
    if os.path.isdir(d):
        binds.append((d, d))
binds.append((dist, "/opt/allsum"))
mounts = c["mounts"]
for src, dst in binds:
    mounts.append({"destination": dst, "type": "bind", "source": src, "options": ["rbind", "ro"]})
mounts.append({"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777", "size=1g"]})  # (uid 10001 got EACCES here: the JVM uses /dev/shm)
mounts.append({"destination": "/dev/shm", "type": "bind", "source": "/dev/shm", "options": ["rbind", "rw"]})
mounts = [m for m in mounts if not (m["destination"] == "/dev/shm" and m["type"] == "tmpfs")]
own = range(int(world)) if gpus == "all" else [r]
devs = [(f"/dev/nvidia{g}", 195, g) for g in own] + [ ("/dev/nvidiactl", 195, 255), ("/dev/nvidia-uvm", int(uvm), 0),
        ("/dev/nvidia-uvm-tools", int(uvm), 1)]
c["linux"]["devices"] = [{"path": p_, "type": "c", "major": ma, "minor": mi, "fileMode": 0o666, "uid": 0, "gid": 0}
                         for p_, ma, mi in devs if os.path.exists(p_)]
c["linux"]["resources"]["devices"] = [{"allow": False, "access": "rwm"}] + [
    {"allow": True, "type": "c", "major": ma, "minor": mi, "access": "rwm"} for _, ma, mi in devs]
c["linux"]["maskedPaths"] = [m for m in c["linux"].get("maskedPaths", []) if "nvidia" not in m]
c["mounts"] = mounts
json.dump(c, open(path, "w"), indent=1)
PY
  # usrmerge links inside the rootfs, as in the image
  for d in bin sbin lib lib64 lib32 libx32; do [ -L "/$d" ] && ln -sfn "$(readlink "/$d")" "$b/rootfs/$d"; done
  mkdir -p "$b/rootfs/usr" "$b/rootfs/etc" "$b/rootfs/var/lib" "$b/rootfs/opt/allsum" "$b/rootfs/tmp" "$b/rootfs/proc" "$b/rootfs/dev" "$b/rootfs/sys"
}

for r in $(seq 0 $((WORLD - 1))); do make_bundle "$r"; done
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/actuator/health" >/dev/null && break; sleep 0.5; done
start=$(date +%s%N)
for r in $(seq 0 $((WORLD - 1))); do
  (cd "$work/rank$r" && timeout 200 "$OLDPWD/$runc" run "gpu2-rank$r" > "$work/worker$r.log" 2>&1) </dev/null >/dev/null 2>&1 &
done
ready=0
for _ in $(seq 1 150); do
  ready=0
  for r in $(seq 0 $((WORLD - 1))); do curl -sf "http://127.0.0.1:$((8181 + r))/actuator/health/readiness" >/dev/null && ready=$((ready + 1)); done
  [ $ready = "$WORLD" ] && break; sleep 0.5
  [ -z "$("$runc" list -q 2>/dev/null)" ] && { echo "# no container is running any more"; break; }
done
echo "## containers started -> $ready/$WORLD workers ready: $(( ($(date +%s%N) - start) / 1000000 )) ms"
"$runc" list
echo "## what each container sees"
for r in $(seq 0 $((WORLD - 1))); do
  echo "# rank $r: $("$runc" exec "gpu2-rank$r" sh -c 'id; ls /dev/nvidia*; nvidia-smi -L 2>&1 | head -3' | tr '\n' ' ')"
done
echo "## sweep from the host (8 B .. $SWEEP_MAX)"
timeout 90 "$dist/bin/allsum" --server "http://127.0.0.1:$PORT" --group cluster --token "$TOKEN" -b 8 -e "$SWEEP_MAX" -f 4 -n 10 -w 2
echo "# allsum exit $?"
echo "## NCCL transport lines (rank 0)"; grep -E "via P2P|via SHM|via NET|Channel 00|NCCL_HOSTID|comm .* rank" "$work/worker0.log" | head -20
echo "## worker 0 log tail"; tail -15 "$work/worker0.log"
for r in $(seq 0 $((WORLD - 1))); do "$runc" kill "gpu2-rank$r" KILL 2>/dev/null; done; sleep 1
for r in $(seq 0 $((WORLD - 1))); do "$runc" delete -f "gpu2-rank$r" 2>/dev/null; done
kill $server 2>/dev/null; sleep 1; kill -9 $server 2>/dev/null; echo "## done"
