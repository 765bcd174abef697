#!/usr/bin/env bash
# Caller-thread A/B on one GPU: this dist (new comm jar) against the same dist with main's comm jar (old).
set -uo pipefail
O=${OUT:-/tmp/ab-out}; mkdir -p $O/new $O/old
export ALLSUM_AOT=off   # both sides without the JDK AOT cache (one trained for one comm jar is refused by the other)
rm -rf /tmp/allsum-new /tmp/allsum-old; mkdir -p /tmp/allsum-new
tar -C /tmp/allsum-new -xJf .carry/allsum-linux-x86_64.tar.xz
touch /tmp/allsum-new/allsum-linux-x86_64/lib/worker.aot   # skip run.sh's training run; unused with ALLSUM_AOT=off
cp -a /tmp/allsum-new /tmp/allsum-old
cp .carry/old-comm/allsum-comm-0.1.0-SNAPSHOT.jar /tmp/allsum-old/allsum-linux-x86_64/lib/
sha1sum /tmp/allsum-{new,old}/allsum-linux-x86_64/lib/allsum-comm-0.1.0-SNAPSHOT.jar | tee $O/jars.txt
ln -sfn /tmp/allsum-new /tmp/allsum-dist
{ nvidia-smi -L; date -u; } > $O/env.txt 2>&1
OUT=$O/new bash bench/h200/run.sh env >> $O/env.txt 2>&1
JUNIT_DIR=.carry/junit GPU_TESTS="io.allsum.comm.nccl.GpuThreadTest io.allsum.comm.nccl.NcclCommunicatorGpuTest io.allsum.comm.nccl.NcclDeadlineGpuTest io.allsum.DeviceMemoryGpuTest" \
  OUT=$O/new timeout 240 bash bench/h200/run.sh gputests > $O/gputests.txt 2>&1
echo "gputests rc=$?" >> $O/gputests.txt; tail -5 $O/gputests.txt
(
  export ALLSUM_HOME=/tmp/allsum-new/allsum-linux-x86_64 PATH=/tmp/allsum-new/allsum-linux-x86_64/bin:$PATH CUDA_VISIBLE_DEVICES=0
  d=$(python3 -c 'import nvidia.nccl,os;print(os.path.join(list(nvidia.nccl.__path__)[0],"lib"))')
  export ALLSUM_NCCL_LIB_DIR=$d LD_LIBRARY_PATH=$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "## allsum-selfcheck -b 8 -e 64M -f 4 -n 20 -w 5"; timeout 120 allsum-selfcheck -b 8 -e 64M -f 4 -n 20 -w 5; echo "rc=$?"
  echo "## allsum --backend nccl --ranks 1 -b 8 -e 64M -f 4 -n 20 -w 5"; timeout 120 allsum --backend nccl --ranks 1 -b 8 -e 64M -f 4 -n 20 -w 5; echo "rc=$?"
) > $O/selfcheck-launcher.txt 2>&1; tail -3 $O/selfcheck-launcher.txt
for r in ${ROUNDS:-1 2 3}; do for v in old new; do
  ln -sfn /tmp/allsum-$v /tmp/allsum-dist; echo "######## $v comm jar, round $r"
  OUT=$O/$v REPS=1 timeout 150 bash bench/h200/run.sh library_user 2>&1
done; done > $O/library-user-ab.txt
ln -sfn /tmp/allsum-new /tmp/allsum-dist
grep -c '^## ' $O/library-user-ab.txt
