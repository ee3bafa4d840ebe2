#!/bin/sh
# Lab 03's large sizes, each variant alone, timed (to drop on merge).
for size in 2^32+3 2^32+3/1; do
  for v in 0 1 2 3 4 5; do
    t0=$(date +%s%N)
    build/check/bin/03-scan --grade --size "$size" --variant $v --or-skip --dataset int-exclusive > /tmp/large03.log 2>&1
    rc=$?
    echo "$size v$v rc $rc $(( ($(date +%s%N) - t0) / 1000000 )) ms $(grep -c PASS /tmp/large03.log) pass"
  done
done
