#!/bin/sh
# Each lab's fast variants and its library peer over many sizes (labs 01-04:
# powers of two from 2^10 to 2^30 and an odd size between each two; lab 05:
# squares, non-multiples, tall, wide and deep shapes). One run of the lab's
# runner per size, so every ratio compares times taken in the same run:
#   OUT_DIR/LAB/<size>.json   the runner's --json report for that size
#   OUT_DIR/LAB/<size>.log    its table and messages
# tools/sweep-table.py turns the folder into a table and a plot.
#
#   tools/sweep.sh [--preset NAME | --bin DIR] [--variant LIST] [--reps N] LAB [OUT_DIR]
#
# --variant: the variants to time (the runner's --variant; default, from the
# runner's --list: every variant but the first of labs 01-04, whose baseline
# takes seconds at 2^30; lab 05: its last). Builds nothing: the runner is
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

# Powers of two, and between each two an odd size that is no multiple of any
# block or tile: 2^k + 2^(k-1) + 1.
powers() {
  k=10
  while [ $k -le 30 ]; do
    echo "2^$k"
    [ $k -lt 30 ] && echo "$(( (1 << k) + (1 << (k - 1)) + 1 ))"
    k=$((k + 1))
  done
}
# pick: which of the runner's variants to time by default.
pick=all-but-first
case $lab in
  01-dot-product | 02-reduction | 04-hierarchical-scan) sizes=$(powers) ;;
  03-scan) sizes=$(powers | sed 's|$|/1024|') ;;
  05-tiled-matmul)
    sizes="512x512x512 1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192
           4095x4095x4095 1000x999x1001 8192x64x8192 64x8192x8192 256x256x65536"
    pick=last ;;
  *) usage "no sizes for $lab" ;;
esac

"$runner" --probe >/dev/null 2>&1
case $? in
  0) ;;
  77) echo "no CUDA device: nothing swept"; exit 77 ;;
  *) echo "error: $runner --probe failed" >&2; exit 2 ;;
esac

if [ -z "$variant" ]; then
  listed=$(sh "$root/tools/variants.sh" "$runner") || exit 2
  indices=$(echo "$listed" | cut -f1)
  if [ $pick = last ]; then
    variant=$(echo "$indices" | tail -n 1)
  else
    variant=$(echo "$indices" | sed 1d | paste -sd, -)
  fi
  [ -n "$variant" ] || { echo "error: $runner lists only one variant: give --variant" >&2; exit 2; }
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
