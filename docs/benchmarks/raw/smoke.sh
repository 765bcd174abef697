#!/usr/bin/env bash
# NCCL backend + native baseline smoke test on one GPU (run from the repo root on the GPU host).
export NCCL_NVLS_ENABLE=0
set -x
cd .carry
{ nvidia-smi; nvcc --version; python3 -c 'import nvidia.nccl,os;print(list(nvidia.nccl.__path__))'; uname -a; } > "$OUT/versions.txt" 2>&1
tar xJf allsum-linux-x86_64.tar.xz
cp allsum-worker.jar allsum-linux-x86_64/lib/allsum-worker.jar; cp allsum-common.sh allsum-linux-x86_64/bin/
allsum-linux-x86_64/runtime/bin/java -version >> "$OUT/versions.txt" 2>&1
(cd native && ./build.sh && ldd allreduce_bench | grep -E 'nccl|cudart') > "$OUT/native-build.txt" 2>&1
t0=$(date +%s.%N)
native/allreduce_bench -b 8 -e 1G -f 2 -n 20 -w 5 > "$OUT/native.txt" 2>&1; echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,2))") s" >> "$OUT/native.txt"
t0=$(date +%s.%N)
timeout 200 allsum-linux-x86_64/bin/allsum-selfcheck -b 8 -e 1G -f 2 -n 20 -w 5 > "$OUT/selfcheck.txt" 2>&1; echo "exit $? wall $(python3 -c "import time;print(round(time.time()-$t0,2))") s" >> "$OUT/selfcheck.txt"
tail -n 3 "$OUT/native.txt" "$OUT/selfcheck.txt"
