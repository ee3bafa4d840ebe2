#!/bin/sh
# Branch g23 on an H100 (to drop on merge): run from the tree's root with
# $OUT set and PP_COMMIT the commit. Started in the background (setsid nohup);
# each step appends "step rc seconds" to $OUT/status. In order of need: the
# fresh mutant (v7-ticket-before-store) twice, two whole gradings, the timing
# cheats among the samples (not yet run with the new clock), the shipped
# mutants, labs 01 and 05 graded once more.
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
step build 300 cmake --build build/check -j16 --target all fresh-mutants
for i in 1 2; do
  step fresh$i 120 ctest --test-dir build/check -L '^fresh$' -j8 --output-on-failure
  cp build/check/Testing/Temporary/LastTest.log "$OUT/fresh$i.LastTest.log" 2>/dev/null
done
step grade1 200 env CUDAARCHS=90 grading/grade solutions "$OUT/grade1" --build /tmp/p-grade-build1
step grade2 200 env CUDAARCHS=90 grading/grade solutions "$OUT/grade2" --build /tmp/p-grade-build2
# Where lab 03's large test spends its time: each size and variant alone.
step large03 240 sh .probe-g23/large03.sh
mkdir -p "$OUT/samples"
for e in own-timer own-timer-matmul v0-everywhere-own-timer tf32-tensor-cores replay; do echo "$e"; done |
  timeout -k 10 600 xargs -P 5 -I{} sh -c 's=$(date +%s); CUDAARCHS=90 PP_GRADE_GPU_LOCK=/tmp/p-gpu.lock sh tests/submissions/check.sh sample "$PWD" tests/submissions/{} tests/submissions/{}/expected /tmp/p-samples/{} > '"$OUT"'/samples/{}.log 2>&1; echo "sample-{} $? $(( $(date +%s) - s ))" >> '"$OUT"'/status'
step mutants 420 ctest --test-dir build/check -L '^mutant$' -j12
cp build/check/Testing/Temporary/LastTest.log "$OUT/mutants.LastTest.log" 2>/dev/null
step perf1 150 env CUDAARCHS=90 grading/grade solutions "$OUT/perf1" --labs "01-dot-product 05-tiled-matmul" --build /tmp/p-perf-build
python3 - "$OUT" > "$OUT/perf.tsv" <<'PY' 2>/dev/null || true
import glob, json, sys
print('run\tlab\tratio\tbest\tempty\trunner_empty\tspread\thold\twork\tbest_gap\tpeer_spread_ms\tpeer_gap')
for f in sorted(glob.glob(sys.argv[1] + '/*/results/*.perf.json')):
    d = json.load(open(f))
    best = min((v for v in d['variants'] if v['correct']), key=lambda v: v['median_ms'])
    p = d['peer']
    print('\t'.join(str(round(x, 4) if isinstance(x, float) else x) for x in [f.split('/')[-3], d['lab'], p['median_ms'] / best['median_ms'], best['name'],
          d['path_empty_ms'], d.get('runner_empty_ms'), d['path_overhead_spread_ms'], d.get('path_hold_ms'), d['path_work_ms'], best['event_gap_ms'], p['max_ms'] - p['min_ms'], p['event_gap_ms']]))
PY
grep -h "timed again\|spread .* more than" "$OUT"/*/results/*.perf.log > "$OUT/retakes.txt" 2>/dev/null
echo "total $(( $(date +%s) - start )) s" >> "$OUT/status"
