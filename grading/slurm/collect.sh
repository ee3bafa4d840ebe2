#!/bin/sh
# Collects a Slurm-graded class (grading/slurm/submit.sh): writes
# OUT_DIR/class.csv, names every task without a result, with its log, and
# counts and names the students ungraded (no GPU was usable on their node).
#   grading/slurm/collect.sh OUT_DIR
# Exit codes: 0 every student graded, 1 some have no result (or the job still
# runs), 2 bad usage, 3 every student has a result but some are ungraded.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u
tree=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: grading/slurm/collect.sh OUT_DIR" >&2; exit 2; }
out=$1
[ -f "$out/submissions.txt" ] || { echo "collect.sh: no $out/submissions.txt" >&2; exit 2; }
job=$(cat "$out/slurm/job-id" 2>/dev/null)
running=""
if [ -n "$job" ] && command -v squeue >/dev/null 2>&1; then
  running=$(squeue -h -j "$job" -o %i 2>/dev/null | head -1)
  [ -z "$running" ] || echo "collect.sh: job $job is still running: collecting what is done" >&2
fi
"$tree/grading/grade-class" --collect "$out"
collected=$?
[ $collected -ne 1 ] || echo "collect.sh: the tasks' Slurm logs: $out/slurm/${job:-<job>}_<task>.out" >&2
if [ -n "$running" ]; then
  exit 1
fi
exit $collected
