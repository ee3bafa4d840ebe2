#!/bin/sh
# A stand-in for compute-sanitizer, for pp-gauntlet's host tests:
#   fake-sanitizer.sh --tool TOOL --error-exitcode CODE PROGRAM ARGUMENT...
# runs PROGRAM and prints its ERROR SUMMARY, reporting one error (exit CODE)
# where the arguments hold --sanitizer-finds. --sanitizer-dies: it ends with 1
# and no summary, as a sanitizer that fails part-way would.
[ "$1" = --tool ] && [ "$3" = --error-exitcode ] || { echo "fake-sanitizer: bad arguments: $*"; exit 9; }
code=$4
shift 4
"$@"
status=$?
for argument in "$@"; do
  case $argument in
    --sanitizer-dies) echo "========= Internal error"; exit 1 ;;
    --sanitizer-finds)
      echo "========= Invalid __global__ read of size 4 bytes"
      echo "========= ERROR SUMMARY: 1 error"
      exit "$code" ;;
  esac
done
echo "========= ERROR SUMMARY: 0 errors"
exit $status
