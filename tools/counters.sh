#!/bin/sh
# The hardware counters behind each step of a lab's ladder. Profiles every
# variant of LAB with Nsight Compute (ncu), one run of the lab's runner per
# variant at a moderate size, and writes
#   OUT_DIR/LAB-counters.md    a Markdown table, one row per variant, then one per kernel
#   OUT_DIR/LAB-counters.csv   the raw values behind it (ncu's units in the second row)
#   OUT_DIR/LAB-counters/      ncu's reports (.ncu-rep, for the Nsight Compute GUI), CSVs, logs
#
#   tools/counters.sh [--preset NAME | --bin DIR] [--size SIZE] LAB [OUT_DIR]
#
# Builds nothing: the runner is build/NAME/bin/LAB (preset default: check) or
# DIR/LAB; OUT_DIR defaults to build/counters (both under the source tree).
# SIZE defaults to the lab grader's choice (the runner's --list, "profile
# size:"): inputs far larger than L2, while ncu's replays of every kernel stay
# near a minute per lab.
# Only the variant's own kernels are profiled (the __global__ functions of the
# lab's .cu file), plus the harness's L2 flush kernel, which starts every
# timed repetition: the table counts the kernels after the last flush, the
# timed run, and leaves out the check run and the warm-up before it. A lab
# takes about a minute on an H100. Environment: NCU (default: ncu on PATH, else
# /usr/local/cuda/bin/ncu), PYTHON (default: python3; needs no packages).
# Exit codes: 0 written; 1 a variant could not be profiled (the table is
# written all the same) or ncu failed; 2 bad usage, or no runner built;
# 77 no ncu, no python3, no CUDA device, or no permission to read the GPU's counters.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: tools/counters.sh [--preset NAME | --bin DIR] [--size SIZE] LAB [OUT_DIR]" >&2
  [ $# -gt 0 ] && echo "error: $*" >&2
  exit 2
}

preset=check
bin=
size=
while [ $# -gt 0 ]; do
  case $1 in
    --preset) [ $# -ge 2 ] || usage "--preset needs a name"; preset=$2; shift 2 ;;
    --bin) [ $# -ge 2 ] || usage "--bin needs a folder"; bin=$2; shift 2 ;;
    --size) [ $# -ge 2 ] || usage "--size needs a size"; size=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) usage "unknown option $1" ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage "give one lab, and at most one output folder"; fi
lab=$1
out=${2:-$root/build/counters}
case $lab in
  '' | *[!a-z0-9-]* | [!0-9]* | ?[!0-9]* | ??[!-]* | ???) usage "'$lab' is not a lab name (NN-name)" ;;
esac
case $preset in *[!A-Za-z0-9_-]* | '') usage "'$preset' is not a preset name" ;; esac
[ -d "$root/tests/$lab" ] || usage "no lab $lab (no folder tests/$lab)"

runner=${bin:-$root/build/$preset/bin}/$lab
[ -x "$runner" ] || usage "no runner $runner: build it first (cmake --build --preset $preset --target $lab)"
if [ -z "$size" ]; then
  size=$("$runner" --list | sed -n 's/^profile size: *//p')
  [ -n "$size" ] || usage "$runner --list names no profile size: give --size"
fi

# The lab's kernels, by name, from its sources (the same names in solutions/ and labs/).
kernels=$(cat "$root/solutions/$lab"/*.cu "$root/labs/$lab"/*.cu 2>/dev/null | tr '\n' ' ' |
  grep -oE '__global__ +void +(__launch_bounds__ *\([^)]*\) +)?[A-Za-z_][A-Za-z0-9_]* *\(' |
  sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*) *\($/\1/' | sort -u | tr '\n' '|')
[ -n "$kernels" ] || usage "no __global__ kernels found in solutions/$lab or labs/$lab"
# A whole identifier anywhere in the name, whether ncu shows "reduce_v5" or "void reduce_v5<float, 256>(...)".
filter="regex:(^|[^A-Za-z0-9_])(${kernels}l2_flush_kernel)([^A-Za-z0-9_]|\$)"

ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
if [ ! -x "$ncu" ] && ! command -v "$ncu" >/dev/null 2>&1; then
  echo "ncu (Nsight Compute) not found: install it, or set NCU=/path/to/ncu; skipped"
  exit 77
fi
python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "$python not found (set PYTHON=/path/to/python3); skipped"
  exit 77
fi
table() {
  "$python" "$root/tools/counters-table.py" "$@"
}
metrics=$(table --metrics) || exit 1

"$runner" --probe >/dev/null 2>&1
case $? in
  0) ;;
  77) echo "no CUDA device: skipped"; exit 77 ;;
  *) echo "$runner --probe failed"; exit 1 ;;
esac
variants=$(sh "$root/tools/variants.sh" "$runner") || exit 1
version=$("$ncu" --version | sed -n 's/^Version \([^ ]*\).*/\1/p')

work=$out/$lab-counters
mkdir -p "$work" || exit 1
manifest=$work/manifest.tsv
: >"$manifest" || exit 1
status=0
tab=$(printf '\t')
echo "$lab at size $size, every variant under ncu ${version:-(version unknown)}"
echo "its kernels: $(echo "$kernels" | tr "|" " ")"
while IFS="$tab" read -r index name; do
  base=$(printf '%02d-%s' "$index" "$name")
  log=$work/$base.log
  # One timed repetition after the one warm-up the runner insists on.
  "$ncu" --export "$work/$base" --force-overwrite --metrics "$metrics" --kernel-name "$filter" \
    "$runner" --variant "$name" --size "$size" --reps 1 --warmup 1 >"$log" 2>&1
  code=$?
  if grep -q ERR_NVGPUCTRPERM "$log"; then
    echo "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or"
    echo "let every user read them (https://developer.nvidia.com/ERR_NVGPUCTRPERM); skipped"
    exit 77
  fi
  why="ncu or the runner exited with $code"
  if [ $code -eq 0 ]; then
    "$ncu" --import "$work/$base.ncu-rep" --csv --page raw --print-units base >"$work/$base.csv" 2>>"$log"
    code=$?
    why="ncu --import exited with $code"
  fi
  if [ $code -ne 0 ]; then
    echo "FAIL $name: $why; the end of $log:"
    tail -5 "$log"
    printf '%s\t%s\t-\t%s\n' "$index" "$name" "$why (see $base.log)" >>"$manifest"
    status=1
    continue
  fi
  echo "$name: $(grep -c '^==PROF== Profiling' "$log") launches profiled (the L2 flushes among them)"
  printf '%s\t%s\t%s\n' "$index" "$name" "$base.csv" >>"$manifest"
done <<EOF
$variants
EOF

table --manifest "$manifest" --lab "$lab" --size "$size" --ncu "${version:-(version unknown)}" \
  --md "$out/$lab-counters.md" --csv "$out/$lab-counters.csv" || exit 1
echo "wrote $out/$lab-counters.md and $out/$lab-counters.csv"
exit $status
