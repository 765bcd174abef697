#!/usr/bin/env bash
# Makes the folder `bench/h200/run.sh gputests` runs the GPU tests from (JUNIT_DIR, default .carry/junit): the comm
# and worker-agent test classes, the JUnit and AssertJ jars they need, and GpuTestRunner compiled. The dist's jars
# give the rest of the class path on the GPU host. Run after `./mvnw install -DskipTests` (or any build of both).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.carry/junit}
java_home=${JAVA_HOME:-$(ls -d /usr/lib/jvm/*25* | head -1)}
rm -rf "$out" && mkdir -p "$out/test-classes" "$out/runner"
cp -r comm/target/test-classes/. worker-agent/target/test-classes/. "$out/test-classes/"
JAVA_HOME=$java_home ./mvnw -o -q -pl worker-agent dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$PWD/$out/cp.txt" >/dev/null
tr ':' '\n' < "$out/cp.txt" | grep -E '/(junit-|opentest4j|apiguardian|assertj-core|shared-model-.*-tests|allsum-comm-.*-tests)' \
  | while read -r jar; do cp "$jar" "$out/"; done
rm "$out/cp.txt"
# the launcher is surefire's, not a test dependency: the one of the same version as the platform engine
engine=$(ls "$out"/junit-platform-engine-*.jar); version=${engine##*junit-platform-engine-}; version=${version%.jar}
cp ~/.m2/repository/org/junit/platform/junit-platform-launcher/$version/junit-platform-launcher-$version.jar "$out/"
"$java_home/bin/javac" -d "$out/runner" -cp "$(ls "$out"/*.jar | tr '\n' ':')" bench/h200/GpuTestRunner.java
du -sh "$out"
