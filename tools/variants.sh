#!/bin/sh
# A lab's variants as its runner lists them (RUNNER --list), one
# "INDEX<tab>NAME" line each: the solution's table is the one place that
# names them, and tools/counters.sh reads it here.
#   tools/variants.sh RUNNER
# Exit codes: 0 listed; 1 the runner failed or listed none; 2 bad usage.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u
[ $# -eq 1 ] || { echo "usage: tools/variants.sh RUNNER" >&2; exit 2; }
list=$("$1" --list) || exit 1
variants=$(echo "$list" | awk '/^[0-9]+ / && $2 ~ /^[A-Za-z0-9_-]+$/ {print $1 "\t" $2}')
[ -n "$variants" ] || { echo "$1 --list names no variants" >&2; exit 1; }
echo "$variants"
