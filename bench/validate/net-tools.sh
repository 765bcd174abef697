#!/usr/bin/env bash
# A self-contained ip, tc and iptables (legacy) for a host that has none, such as the GPU host: the binaries of this
# machine with their libraries and dynamic loader, run through that loader so that nothing else sees the libraries.
#   bash bench/validate/net-tools.sh .carry/net    then, there:  PATH=$PWD/.carry/net/bin:$PATH python3 fault_matrix.py
set -euo pipefail
out=${1:?usage: net-tools.sh FOLDER}
rm -rf "$out"; mkdir -p "$out/bin" "$out/real" "$out/lib"
loader=/lib64/ld-linux-x86-64.so.2
cp -L "$loader" "$out/lib/"
for tool in ip tc xtables-legacy-multi; do
  src=$(readlink -f "$(command -v $tool || echo /usr/sbin/$tool)")
  cp "$src" "$out/real/$tool"
  ldd "$src" | awk '$3 ~ /^\// {print $3}' | xargs -r cp -L -t "$out/lib/"
done
cp -r /usr/lib/x86_64-linux-gnu/xtables "$out/xtables"
wrap() { # name, real binary
  cat > "$out/bin/$1" <<W
#!/bin/sh
d=\$(dirname "\$(readlink -f "\$0")")/..
XTABLES_LIBDIR=\$d/xtables exec "\$d/lib/$(basename $loader)" --library-path "\$d/lib" --argv0 $1 "\$d/real/$2" "\$@"
W
  chmod +x "$out/bin/$1"
}
wrap ip ip; wrap tc tc; wrap iptables xtables-legacy-multi
du -sh "$out"
