#!/bin/sh
# A stand-in for compute-sanitizer, for pp-gauntlet's host tests:
#   fake-sanitizer.sh --tool TOOL --error-exitcode CODE [--padding N] PROGRAM ARGUMENT...
# runs PROGRAM and ends as compute-sanitizer does: its summary line last
# (racecheck's own form for racecheck), one error reported (exit CODE) where
# the arguments hold --sanitizer-finds. --sanitizer-dies: it ends with 1 and no
# summary, as a sanitizer that fails part-way would.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
echo "fake-sanitizer: $*"
[ "$1" = --tool ] && [ "$3" = --error-exitcode ] || { echo "fake-sanitizer: bad arguments"; exit 9; }
tool=$2 code=$4
shift 4
[ "$1" = --padding ] && shift 2
"$@"
status=$?
for argument in "$@"; do
  case $argument in
    --sanitizer-dies) echo "========= Internal error"; exit 1 ;;
    --sanitizer-finds) echo "========= Invalid __global__ read of size 4 bytes"; status=$code ;;
  esac
done
if [ "$tool" = racecheck ]; then
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else
  echo "========= ERROR SUMMARY: 0 errors"
fi
exit $status
