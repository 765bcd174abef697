#!/usr/bin/env bash
# sample.sh PID OUT : every 0.2 s, threads / RSS anon / file of PID
pid=$1; out=$2; : > "$out"
while kill -0 "$pid" 2>/dev/null; do
  t=$(awk '/^Threads:/{print $2}' /proc/$pid/status 2>/dev/null)
  a=$(awk '/^RssAnon:/{print $2}' /proc/$pid/status 2>/dev/null)
  f=$(awk '/^RssFile:/{print $2}' /proc/$pid/status 2>/dev/null)
  r=$(awk '/^VmRSS:/{print $2}' /proc/$pid/status 2>/dev/null)
  echo "$(date +%s.%N | cut -c1-14) $t $r $a $f" >> "$out"
  sleep 0.2
done
