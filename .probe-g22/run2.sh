#!/bin/sh
# Issue 21/22 follow-up on an H100 (branch g22): run from the tree's root with
# $OUT set and PP_COMMIT the commit. Started in the background (setsid nohup);
# each step appends "step rc seconds" to $OUT/status.
#  fresh  the fresh mutants (the gauntlet now runs a crashed check again with
#         the file in a runner)
#  grade  one whole submission (the solutions), large tests beside sweeps
#  gradeA the same with the large tests alone as before (a copy of the tree)
#  perfN  labs 01 and 05 graded three more times
#  sample replay-same-address
set -u
: "${OUT:?set OUT to an output folder}"
mkdir -p "$OUT"
command -v bwrap > /dev/null || cp .probe/bwrap /usr/local/bin/bwrap ||
  { echo "no bwrap: carry .probe (its bwrap)" >&2; exit 2; }
start=$(date +%s)
deadline=$((start + ${DEADLINE:-1200}))
{ date -u; echo "$PP_COMMIT"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; nproc; } > "$OUT/env.txt" 2>&1
step() {  # NAME BUDGET_S COMMAND...
  name=$1 budget=$2
  shift 2
  left=$((deadline - $(date +%s)))
  [ "$left" -lt "$budget" ] && budget=$left
  if [ "$budget" -le 5 ]; then echo "$name skipped 0 (deadline)" >> "$OUT/status"; return; fi
  t0=$(date +%s)
  timeout -k 10 "$budget" "$@" > "$OUT/$name.log" 2>&1
  echo "$name $? $(( $(date +%s) - t0 ))" >> "$OUT/status"
}
step configure 60 cmake --preset check -DCMAKE_CUDA_ARCHITECTURES=90 -DPP_FRESH_MUTANTS=ON
step build 240 cmake --build build/check -j16 --target fresh-mutants pp-gauntlet
step fresh 120 ctest --test-dir build/check -L '^fresh$' -j8 --output-on-failure
cp build/check/Testing/Temporary/LastTest.log "$OUT/fresh.LastTest.log" 2>/dev/null
step grade 200 env CUDAARCHS=90 grading/grade solutions "$OUT/grade" --build /tmp/r2-grade-build
mkdir -p /tmp/treeA
tar -C . --exclude=./build --exclude=./.git -cf - . | tar -C /tmp/treeA -xf -
sed -i 's/RESOURCE_GROUPS "gpu_memory:600"/RESOURCE_GROUPS "gpu_memory:1000"/' /tmp/treeA/cmake/Labs.cmake
grep -c 'gpu_memory:1000' /tmp/treeA/cmake/Labs.cmake > "$OUT/treeA.txt"
step gradeA 200 env CUDAARCHS=90 /tmp/treeA/grading/grade solutions "$OUT/gradeA" --build /tmp/r2-gradeA-build
for i in 1 2 3; do
  step perf$i 150 env CUDAARCHS=90 grading/grade solutions "$OUT/perf$i" --labs "01-dot-product 05-tiled-matmul" --build /tmp/r2-perf-build
done
mkdir -p "$OUT/samples"
step sample 150 env CUDAARCHS=90 sh tests/submissions/check.sh sample "$PWD" tests/submissions/replay-same-address tests/submissions/replay-same-address/expected /tmp/r2-sample
python3 - "$OUT" > "$OUT/perf.tsv" <<'PY' 2>/dev/null || true
import glob, json, sys
print('run\tlab\tratio\tbest\tempty\trunner_empty\tspread\thold\twork\tbest_gap\tpeer_spread_ms')
for f in sorted(glob.glob(sys.argv[1] + '/*/results/*.perf.json')):
    d = json.load(open(f))
    best = min((v for v in d['variants'] if v['correct']), key=lambda v: v['median_ms'])
    p = d['peer']
    print('\t'.join(str(round(x, 4) if isinstance(x, float) else x) for x in [f.split('/')[-3], d['lab'], p['median_ms'] / best['median_ms'], best['name'],
          d['path_empty_ms'], d.get('runner_empty_ms'), d['path_overhead_spread_ms'], d.get('path_hold_ms'), d['path_work_ms'], best['event_gap_ms'], p['max_ms'] - p['min_ms']]))
PY
grep -h "timed again\|spread .* more than" "$OUT"/*/results/*.perf.log > "$OUT/retakes.txt" 2>/dev/null
echo "total $(( $(date +%s) - start )) s" >> "$OUT/status"
