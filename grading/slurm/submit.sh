#!/bin/sh
# Grades a class on a Slurm cluster: one array task per submission
# (grade-array.sbatch), then grading/slurm/collect.sh OUT_DIR for class.csv.
#
#   grading/slurm/submit.sh SUBMISSIONS OUT_DIR [--partition P] [--gres SPEC |
#       --no-gres] [--time T] [--cpus N] [--max-parallel N] [--sbatch "OPTIONS"]
#       [-- grade-class options: --rubric FILE --labs "LAB ..." --tests "GLOB ..."
#        --timeout-scale X --budget S]
#
# SUBMISSIONS holds one folder or archive per student (grading/grade-class).
# Checks the grade-class options (a bad one: exit 2, nothing submitted),
# writes OUT_DIR/submissions.txt (task N grades line N + 1), submits the array
# with task logs in OUT_DIR/slurm/<job>_<task>.out, and prints the job id
# (also in OUT_DIR/slurm/job-id). --gres defaults to gpu:1, as in the script;
# --no-gres requests no GPU (a cluster without GPUs, or CI: the GPU tests skip).
set -u
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../.." && pwd)

usage() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
}

submissions="" out="" max_parallel=8 sbatch_options=""
while [ $# -gt 0 ]; do
  case $1 in
    --partition | --gres | --time | --cpus | --max-parallel | --sbatch)
      [ $# -ge 2 ] || usage
      case $1 in
        --partition) sbatch_options="$sbatch_options --partition=$2" ;;
        --gres) sbatch_options="$sbatch_options --gres=$2" ;;
        --time) sbatch_options="$sbatch_options --time=$2" ;;
        --cpus) sbatch_options="$sbatch_options --cpus-per-task=$2" ;;
        --max-parallel) max_parallel=$2 ;;
        --sbatch) sbatch_options="$sbatch_options $2" ;;
      esac
      shift 2 ;;
    --no-gres) sbatch_options="$sbatch_options --gres=none"; shift ;;
    --) shift; break ;;  # the rest: grade-class's options
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) echo "submit.sh: unknown option $1" >&2; usage ;;
    *)
      if [ -z "$submissions" ]; then submissions=$1
      elif [ -z "$out" ]; then out=$1
      else usage
      fi
      shift ;;
  esac
done
if [ -z "$submissions" ] || [ -z "$out" ]; then
  usage
fi
case $max_parallel in
  '' | *[!0-9]* | 0) echo "submit.sh: --max-parallel takes a positive whole number" >&2; exit 2 ;;
esac
command -v sbatch >/dev/null 2>&1 || { echo "submit.sh: no sbatch here" >&2; exit 1; }

"$tree/grading/grade-class" --list-only "$submissions" "$out" "$@" || exit $?
case $out in /*) ;; *) out=$PWD/$out ;; esac
count=$(wc -l < "$out/submissions.txt")
mkdir -p "$out/slurm"
# shellcheck disable=SC2086 # sbatch_options holds whole options
job=$(sbatch --parsable --array="0-$((count - 1))%$max_parallel" \
  --output="$out/slurm/%A_%a.out" $sbatch_options \
  "$here/grade-array.sbatch" "$tree" "$out" "$@") || exit 1
job=${job%%;*}
echo "$job" > "$out/slurm/job-id"
echo "submit.sh: job $job: $count tasks, at most $max_parallel at once; when done: grading/slurm/collect.sh $out" >&2
echo "$job"
