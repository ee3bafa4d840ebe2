#!/bin/sh
# A lab's fast variants and its library peer over many sizes, those its grader
# names (the runner's --list, "sweep sizes:"; e.g. powers of two from 2^10 to
# 2^30 and an odd size between each two, or square, tall, wide and deep
# shapes). One run of the lab's runner per size, so every ratio compares times
# taken in the same run:
#   OUT_DIR/LAB/<size>.json   the runner's --json report for that size
#   OUT_DIR/LAB/<size>.log    its table and messages
# tools/sweep-table.py turns the folder into a table and a plot.
#
#   tools/sweep.sh [--preset NAME | --bin DIR] [--variant LIST] [--reps N] LAB [OUT_DIR]
#
# --variant: the variants to time (the runner's --variant; default, the
# grader's choice as the runner's --list gives it, "sweep variants:": every
# variant but a baseline that takes seconds at the largest size, or only the
# last where the early rungs take minutes). Builds nothing: the runner is
# build/NAME/bin/LAB (preset default: check) or DIR/LAB. OUT_DIR defaults to
# build/sweep. A size that does not fit the GPU's memory is skipped (the
# runner's --or-skip).
# Exit codes: 0 every size ran and checked; 1 a size failed (the others still
# ran; its log says why); 2 bad usage or no runner built; 77 no CUDA device.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  echo "usage: tools/sweep.sh [--preset NAME | --bin DIR] [--variant LIST] [--reps N] LAB [OUT_DIR]" >&2
  [ $# -gt 0 ] && echo "error: $*" >&2
  exit 2
}

preset=check
bin=
variant=
reps=20
while [ $# -gt 0 ]; do
  case $1 in
    --preset) [ $# -ge 2 ] || usage "--preset needs a name"; preset=$2; shift 2 ;;
    --bin) [ $# -ge 2 ] || usage "--bin needs a folder"; bin=$2; shift 2 ;;
    --variant) [ $# -ge 2 ] || usage "--variant needs a list"; variant=$2; shift 2 ;;
    --reps) [ $# -ge 2 ] || usage "--reps needs a number"; reps=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) usage "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] && [ $# -le 2 ] || usage "give one lab, and at most one output folder"
lab=$1
out=${2:-$root/build/sweep}
case $preset in *[!A-Za-z0-9_-]* | '') usage "'$preset' is not a preset name" ;; esac
case $reps in '' | *[!0-9]* | 0) usage "--reps must be a positive whole number" ;; esac
[ -d "$root/tests/$lab" ] || usage "no lab $lab (no folder tests/$lab)"
runner=${bin:-$root/build/$preset/bin}/$lab
[ -x "$runner" ] || usage "no runner $runner: build it first (cmake --build --preset $preset --target $lab)"

# The sizes and the default variants, as the lab's grader names them (no GPU needed).
listing=$("$runner" --list) || { echo "error: $runner --list failed" >&2; exit 2; }
sizes=$(echo "$listing" | sed -n 's/^sweep sizes: *//p')
[ -n "$sizes" ] || usage "$runner --list names no sweep sizes"

"$runner" --probe >/dev/null 2>&1
case $? in
  0) ;;
  77) echo "no CUDA device: nothing swept"; exit 77 ;;
  *) echo "error: $runner --probe failed" >&2; exit 2 ;;
esac

if [ -z "$variant" ]; then
  variant=$(echo "$listing" | sed -n 's/^sweep variants: *//p')
  [ -n "$variant" ] || { echo "error: $runner --list names no variant to sweep: give --variant" >&2; exit 2; }
fi

mkdir -p "$out/$lab" || exit 2
status=0
for size in $sizes; do
  name=$(echo "$size" | tr '^/' 'p_')
  "$runner" --variant "$variant" --size "$size" --reps "$reps" --or-skip \
    --json "$out/$lab/$name.json" >"$out/$lab/$name.log" 2>&1
  code=$?
  case $code in
    0) echo "$lab $size: ok" ;;
    77) echo "$lab $size: skipped (does not fit this GPU)" ;;
    *) echo "$lab $size: FAILED ($code), see $out/$lab/$name.log"; status=1 ;;
  esac
done
exit $status
