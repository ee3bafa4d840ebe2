#!/bin/sh
# broken-sanitizer.sh: a compute-sanitizer that cannot run on this machine
# (for pp-gauntlet's host tests).
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
echo "========= Error: Target application terminated before first instrumented API call"
exit 1
