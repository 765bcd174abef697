#!/usr/bin/env bash
# Call 6 (session 8): issue 13, is the slow state (8.5-9 us against 6 us per small all-sum, host-bound) a property of
# the vCPU a process runs on? The vCPUs' topology as the guest sees it, then native 1-GPU all-sums (8 B .. 64 B, 2,000
# timed calls each) pinned to one vCPU at a time (taskset -c K, every vCPU), two passes; then 2 GPUs with each rank
# pinned to one vCPU, for a few pairs, twice.
set -u
export DIST=.carry-s8/allsum-linux-x86_64.tar.xz
bash bench/h200/run.sh env > $OUT/env.txt 2>&1
{ lscpu | head -30; for c in /sys/devices/system/cpu/cpu[0-9]*; do echo "$(basename $c) core $(cat $c/topology/core_id 2>/dev/null) siblings $(cat $c/topology/thread_siblings_list 2>/dev/null) package $(cat $c/topology/physical_package_id 2>/dev/null)"; done; } > $OUT/topology.txt 2>&1
NCCL_DIR=$(python3 -c 'import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],"lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=$NCCL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bash bench/native/build.sh /tmp/allreduce_bench > /dev/null
{ for pass in 1 2; do for k in $(seq 0 $(( $(nproc) - 1 ))); do
    t=$(CUDA_VISIBLE_DEVICES=0 taskset -c $k /tmp/allreduce_bench -b 8 -e 64 -f 2 -n 2000 -w 200 2>&1 | awk '/^ +[0-9]+ +[0-9]+ +float/ { printf "%s ", $6 }')
    echo "pass $pass cpu $k: $t"
  done; done
  echo "## unpinned, 8 runs"; for i in 1 2 3 4 5 6 7 8; do echo "unpinned $i: $(CUDA_VISIBLE_DEVICES=0 /tmp/allreduce_bench -b 8 -e 64 -f 2 -n 2000 -w 200 2>&1 | awk '/^ +[0-9]+ +[0-9]+ +float/ { printf "%s ", $6 }')"; done
} > $OUT/pin-sweep.txt 2>&1; cat $OUT/pin-sweep.txt
{ for pass in 1 2; do for pair in "0 1" "2 3" "4 20" "8 24" "15 16" "30 31"; do
    set -- $pair; rm -f /tmp/ncclid
    taskset -c $1 /tmp/allreduce_bench -b 8 -e 64 -f 2 -n 2000 -w 200 --rank 0 --nranks 2 --id-file /tmp/ncclid > /tmp/p0.txt 2>&1 &
    taskset -c $2 /tmp/allreduce_bench -b 8 -e 64 -f 2 -n 2000 -w 200 --rank 1 --nranks 2 --id-file /tmp/ncclid > /tmp/p1.txt 2>&1; wait
    echo "pass $pass cpus $1,$2: $(awk '/^ +[0-9]+ +[0-9]+ +float/ { printf "%s ", $6 }' /tmp/p0.txt)"
  done; done; } > $OUT/pin-pairs.txt 2>&1; cat $OUT/pin-pairs.txt
