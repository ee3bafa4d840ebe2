#!/bin/sh
# Collects a Slurm-graded class (grading/slurm/submit.sh): writes
# OUT_DIR/class.csv and names every task without a result, with its log.
#   grading/slurm/collect.sh OUT_DIR
# Exit codes: 0 every student has a result, 1 some have none (or the job
# still runs), 2 bad usage.
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
[ $collected -eq 0 ] || echo "collect.sh: the tasks' Slurm logs: $out/slurm/${job:-<job>}_<task>.out" >&2
[ $collected -eq 0 ] && [ -z "$running" ]
