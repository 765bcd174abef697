#!/usr/bin/env bash
cd /tmp/mem
port=18700
for rep in 1 2; do
 for cfg in base arena2 xmx192 cc2 serial; do
  port=$((port+1)); tag=m-$cfg-$rep
  case $cfg in
   base) ENVS= ROUNDS=2 PORT=$port ./burst.sh $tag > $tag.out 2>&1 ;;
   arena2) ENVS=MALLOC_ARENA_MAX=2 ROUNDS=2 PORT=$port ./burst.sh $tag > $tag.out 2>&1 ;;
   xmx192) ENVS= ROUNDS=2 PORT=$port ./burst.sh $tag -Xmx192m > $tag.out 2>&1 ;;
   cc2) ENVS= ROUNDS=2 PORT=$port ./burst.sh $tag -XX:CICompilerCount=2 > $tag.out 2>&1 ;;
   serial) ENVS= ROUNDS=2 PORT=$port ./burst.sh $tag -XX:+UseSerialGC > $tag.out 2>&1 ;;
  esac
  echo "$tag $(grep -oE 'VmHWM: [0-9]+' $tag.out | tail -1) $(grep -E '^ +16384' $tag.out | awk '{print "med",$3,"max",$4,"peakcol",$9}') $(grep peak $tag.out | tail -1) 30s=$(grep -oE '30s: VmRSS: +[0-9]+' $tag.out | grep -oE '[0-9]+$')"
 done
done
