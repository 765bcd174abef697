cd /work/main; export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
run() { name=$1; shift; echo "=== $name: $*"; env "$@" bench/rendezvous/run.sh --ranks 16384 --rounds 1 --warmup 1 --procs 8 --view rank --join-wait 120 --round-timeout 300 2>&1 | grep -E "^ +[0-9]+ +[0-9]+ |RSS" ; }
run A SETTLE=45 SERVER_JAVA_OPTS="-Xmx384m"
run B SETTLE=45 SERVER_JAVA_OPTS="-Xmx384m -XX:MinHeapSize=32m -XX:-G1PeriodicGCInvokesConcurrent"
