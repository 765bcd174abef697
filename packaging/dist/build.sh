#!/usr/bin/env bash
# Builds dist/allsum-linux-x86_64.tar.xz: a jlink'd Java 25 runtime, one de-duplicated lib/ of dependency jars, thin
# app jars (server, worker, launcher if built), the bench jar if built, and bin/ scripts. Run after `./mvnw -DskipTests package`:
#   packaging/dist/build.sh          (XZ_LEVEL=3 for a quick, larger build)
# Jars are repacked uncompressed (zip -0) and the runtime is linked with --compress zip-0 so that xz sees raw bytes.
# DIST_LAYOUT=dir (used by docker/build-images.sh) leaves an unpacked tree in dist/allsum-linux-x86_64/ instead: jars as
# built and a compressed runtime without native debug symbols nor AWT's native libraries (java.beans needs only the
# java.desktop classes), since a container image layer is stored unpacked.
set -euo pipefail
layout="${DIST_LAYOUT:-tar}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$JAVA_HOME/bin/jlink" ] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
name=allsum-linux-x86_64
work="$root/dist/work"
stage="$work/$name"
rm -rf "$work" && mkdir -p "$stage/lib" "$stage/bin"

declare -A apps=(
  [server]="$root/rendezvous-server/target/rendezvous-server.jar"
  [worker]="$root/worker-agent/target/worker-agent.jar"
  [launcher]="$root/launcher/target/allsum-launcher.jar"
)
for app in server worker; do
  [ -f "${apps[$app]}" ] || { echo "missing ${apps[$app]}: run ./mvnw -DskipTests package first" >&2; exit 1; }
done

repack_stored() { # jar -> same jar, entries stored uncompressed
  local jar="$1" tmp; tmp="$(mktemp -d)"
  (cd "$tmp" && unzip -q -o "$jar" && rm -f "$jar" && zip -q -0 -X -r "$jar" .)
  rm -rf "$tmp"
}

for app in server worker launcher; do
  jar="${apps[$app]}"
  if [ ! -f "$jar" ]; then echo "skipping $app: $jar not built"; continue; fi
  start_class="$(unzip -p "$jar" META-INF/MANIFEST.MF | sed -n 's/^Start-Class: *//p' | tr -d '\r')"
  # A Boot fat jar is BOOT-INF/classes (the app) + BOOT-INF/lib/*.jar (dependencies): split it by hand, which also
  # works for jars without Boot's jarmode tools.
  out="$work/extract-$app"
  mkdir -p "$out" && (cd "$out" && unzip -q "$jar" 'BOOT-INF/*')
  # Boot's repackager moves the app's own META-INF resources (spring.factories, ...) to the jar's root; put them back
  # with the classes, leaving out the manifest, Maven metadata and the Boot loader's nested-jar file system.
  (cd "$out/BOOT-INF/classes" && unzip -q -o "$jar" 'META-INF/*' -x 'META-INF/MANIFEST.MF' 'META-INF/maven/*' \
      'META-INF/services/java.nio.file.spi.FileSystemProvider' 2>/dev/null || true)
  : > "$stage/lib/$app.classpath"
  for dep in "$out"/BOOT-INF/lib/*.jar; do
    base="$(basename "$dep")"
    if [ ! -f "$stage/lib/$base" ]; then
      cp "$dep" "$stage/lib/$base"
      [ "$layout" = dir ] || repack_stored "$stage/lib/$base"
    fi
    echo "$base" >> "$stage/lib/$app.classpath"
  done
  thin="allsum-$app.jar"
  (cd "$out/BOOT-INF/classes" && zip -q "$([ "$layout" = dir ] && echo -6 || echo -0)" -X -r "$stage/lib/$thin" .)
  echo "$thin" >> "$stage/lib/$app.classpath"
  echo "$start_class" > "$stage/lib/$app.main"
done

# The team's benchmarks (module bench/, run by bench/h200/run.sh on the GPU host): lib/allsum-bench.jar, first on its
# own lib/bench.classpath with the launcher's and the worker's jars after it; on no program's class path. The tar only:
# container images (DIST_LAYOUT=dir) carry the product alone.
bench_jar="$root/bench/target/allsum-bench.jar"
if [ "$layout" = tar ] && [ -f "$bench_jar" ] && [ -f "$stage/lib/launcher.classpath" ]; then
  cp "$bench_jar" "$stage/lib/allsum-bench.jar" && repack_stored "$stage/lib/allsum-bench.jar"
  { echo allsum-bench.jar; cat "$stage/lib/launcher.classpath" "$stage/lib/worker.classpath"; } | awk '!seen[$0]++' \
    > "$stage/lib/bench.classpath"
else
  echo "skipping bench: $bench_jar not built (or DIST_LAYOUT=dir)"
fi

"$JAVA_HOME/bin/jlink" --add-modules java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,java.instrument,jdk.unsupported,jdk.crypto.ec,java.security.jgss,jdk.management,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --output "$stage/runtime" \
  $(if [ "$layout" = dir ]; then
      echo --compress zip-6 --strip-native-debug-symbols=exclude-debuginfo-files \
        '--exclude-files=**/lib/libawt*.so,**/lib/libfontmanager.so,**/lib/libfreetype.so,**/lib/liblcms.so,**/lib/libmlib_image.so,**/lib/libsplashscreen.so,**/lib/libjavajpeg.so,**/lib/libjsound.so'
    else echo --compress zip-0; fi)

cp "$root/packaging/dist/bin/"* "$stage/bin/"
# JVM flags: one file per program, the same files ./allsum uses in the repository.
mkdir -p "$stage/conf"
cp "$root/packaging/jvm/"*.jvmargs "$stage/conf/"
chmod +x "$stage/bin/"*
cp "$root/packaging/dist/README.txt" "$stage/" 2>/dev/null || true

# JDK AOT caches (lib/<app>.aot, docs/benchmarks/startup.md): bin/allsum-aot-train, a training run of this
# very distribution (its runtime, its jars, its flags). The JVM checks a cache against the runtime and each jar's size
# and time (tar and image layers keep both) and ignores one that does not match. They add about 30 MB to the .tar.xz:
# DIST_AOT=off builds without them (run bin/allsum-aot-train on the host instead); a failed training run leaves them
# out, never fails the build.
if [ "${DIST_AOT:-on}" != off ] && [ -f "$stage/lib/launcher.classpath" ]; then
  "$stage/bin/allsum-aot-train" || echo "dist without AOT caches" >&2
fi

mkdir -p "$root/dist"
if [ "$layout" = dir ]; then
  # jlink keeps libjvm.so's symbol table (5 MB); an image has no use for it (hs_err frames then show addresses).
  command -v strip >/dev/null && strip --strip-unneeded "$stage/runtime/lib/server/libjvm.so"
  rm -rf "${root:?}/dist/$name" && mv "$stage" "$root/dist/$name" && rm -rf "$work"
  echo "dist/$name: $(du -sm "$root/dist/$name" | cut -f1) MiB unpacked"
  exit 0
fi
tar -C "$work" --owner=0 --group=0 --sort=name -cf - "$name" | xz "-${XZ_LEVEL:-9}" -T0 > "$root/dist/$name.tar.xz"
rm -rf "$work"
size=$(stat -c %s "$root/dist/$name.tar.xz")
echo "dist/$name.tar.xz: $size bytes ($(( size / 1024 / 1024 )) MiB)"
