# Sourced by the bench scripts. bench_cp prints the class path of the bench jar (module bench/, allsum-bench): the
# distribution's lib/bench.classpath when ALLSUM_HOME names a distribution that carries it, else the repository's
# bench/target (./mvnw -q -DskipTests package -pl bench -am builds it and writes target/classpath.txt).
bench_cp() {
  local cp="" jar root
  if [ -n "${ALLSUM_HOME:-}" ] && [ -f "$ALLSUM_HOME/lib/bench.classpath" ]; then
    while read -r jar; do cp="${cp:+$cp:}$ALLSUM_HOME/lib/$jar"; done < "$ALLSUM_HOME/lib/bench.classpath"
    echo "$cp"
    return
  fi
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if [ ! -f "$root/bench/target/allsum-bench.jar" ] || [ ! -f "$root/bench/target/classpath.txt" ]; then
    echo "bench: bench/target/allsum-bench.jar is missing: ./mvnw -q -DskipTests package -pl bench -am" >&2
    return 1
  fi
  echo "$root/bench/target/allsum-bench.jar:$(cat "$root/bench/target/classpath.txt")"
}
