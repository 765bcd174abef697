#!/usr/bin/env bash
# Builds the native all-reduce baseline against the host's CUDA and NCCL: ./build.sh [output]
# NCCL_HOME may point at an NCCL install (include/ + lib/); otherwise the CUDA toolkit's and python's nvidia-nccl are tried.
set -euo pipefail
cd "$(dirname "$0")"
out="${1:-allreduce_bench}"
flags=()
for dir in "${NCCL_HOME:-}" /usr/local/cuda $(python3 -c 'import nvidia.nccl,os;print(os.path.dirname(nvidia.nccl.__file__)+"/nccl")' 2>/dev/null || true) \
           $(python3 -c 'import nvidia.nccl,os;print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || true); do
  [ -n "$dir" ] && [ -f "$dir/include/nccl.h" ] && flags+=("-I$dir/include" "-L$dir/lib" "-Xlinker" "-rpath=$dir/lib")
done
nvcc -O2 -o "$out" allreduce_bench.cu "${flags[@]}" -lnccl -lcudart
echo "built $(pwd)/$out"
