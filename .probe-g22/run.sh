#!/bin/sh
# Issue 22 (branch g22) on an H100: run from the worktree root with $OUT set
# and PP_COMMIT the commit (the device's copy of .git may be stale).
# Each step appends "step rc seconds" to $OUT/status; logs go under $OUT.
# A global deadline (DEADLINE seconds after start, default 540: one call's
# limit) bounds the whole: each step gets at most its budget and never past
# the deadline. Started in the background (setsid nohup, DEADLINE=1500,
# STEPS="1 2 3 4 5 6 7 8"), it runs all the steps, about 25 minutes on an H100.
set -u
: "${OUT:?set OUT to an output folder}"
mkdir -p "$OUT"
# The GPU machine has no bwrap of its own: Debian's binary, carried in .probe/.
command -v bwrap > /dev/null || cp .probe/bwrap /usr/local/bin/bwrap ||
  { echo "no bwrap: carry .probe (its bwrap)" >&2; exit 2; }
start=$(date +%s)
deadline=$((start + ${DEADLINE:-540}))
export CTEST_OUTPUT_ON_FAILURE=0
{ date -u; echo "${PP_COMMIT:-$(git rev-parse HEAD)}"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvcc --version | tail -2; nproc; } > "$OUT/env.txt" 2>&1

# STEPS picks the steps (default "1 2 3 4"; 5 grades the solutions as one
# whole submission, the 120 s target and the runner-start watch; 6 grades labs
# 01 and 05 three more times; 7 runs the samples this branch changed; 8 grades
# lab 02 on a busy CPU): a second
# call on a warm machine finds the build done and runs what the first did not.
STEPS=${STEPS:-1 2 3 4}
step() {  # NAME BUDGET_S COMMAND...
  name=$1 budget=$2
  shift 2
  case $name in
    [0-9]-*) case " $STEPS " in *" ${name%%-*} "*) ;; *) return ;; esac ;;
  esac
  now=$(date +%s)
  left=$((deadline - now))
  [ "$left" -lt "$budget" ] && budget=$left
  if [ "$budget" -le 5 ]; then
    echo "$name skipped 0 (deadline)" >> "$OUT/status"
    return
  fi
  t0=$(date +%s)
  timeout -k 10 "$budget" "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  echo "$name $rc $(( $(date +%s) - t0 ))" >> "$OUT/status"
  cp build/check/Testing/Temporary/LastTest.log "$OUT/$name.LastTest.log" 2>/dev/null
  rm -f build/check/Testing/Temporary/LastTest.log
}

step configure 60 cmake --preset check -DCMAKE_CUDA_ARCHITECTURES=90 -DPP_FRESH_MUTANTS=ON
step build 240 cmake --build build/check -j16 --target all fresh-mutants
# (1) the new mechanisms' own GPU tests: poisoned shared memory, the launch-time
# shared memory cap, reversed block indices; and the gauntlet's host tests.
step 1-harness 40 ctest --test-dir build/check -R '^(harness\.gpu\.(poison|shared-cap|reversed)|gauntlet\.)' -j8 --output-junit "$OUT/1-harness.xml"
# (2) the fresh mutants: which check caught each (caught by: ...).
step 2-fresh 130 ctest --test-dir build/check -L '^fresh$' -j8 --output-junit "$OUT/2-fresh.xml"
# (3) the reference solutions: every grade, small-smem, large, stress, sanitizer and perf test.
step 3-solutions 150 ctest --test-dir build/check -L '^(grade|sanitizer|perf)$' -j16 --output-junit "$OUT/3-solutions.xml"
# (4) the shipped mutants: each must be rejected.
step 4-mutants 420 ctest --test-dir build/check -L '^mutant$' -j12 --output-junit "$OUT/4-mutants.xml"
# (5) one whole submission, the five reference solutions, as grading/grade
# grades it (sandbox on, cgroups off as by default): phase times, and any
# runner that took more than 2 s to start.
step 5-grade 200 env CUDAARCHS=90 grading/grade solutions "$OUT/grade" --build /tmp/g22-grade-build
grep -h "took .* s to start" "$OUT"/grade/results/*.log >> "$OUT/slow-starts.txt" 2>/dev/null
# (6) issue 21: labs 01 and 05 graded three more times on this machine, one
# build: how far the peer's work cost and the ratios move from run to run.
for i in 1 2 3; do
  step 6-perf$i 150 env CUDAARCHS=90 grading/grade solutions "$OUT/perf$i" --labs "01-dot-product 05-tiled-matmul" --build /tmp/g22-perf-build
done
python3 - "$OUT" > "$OUT/6-perf.tsv" <<'PY' 2>/dev/null || true
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + '/perf*/results/*.perf.json') + glob.glob(sys.argv[1] + '/grade/results/*.perf.json')):
    d = json.load(open(f))
    best = min((v for v in d['variants'] if v['correct']), key=lambda v: v['median_ms'])
    print('\t'.join(str(x) for x in [f.split('/')[-3], d['lab'], round(d['peer']['median_ms'] / best['median_ms'], 4), best['name'],
          d['path_empty_ms'], d.get('runner_empty_ms'), d['path_overhead_spread_ms'], d['path_work_ms'], best['event_gap_ms']]))
PY
# (8, before 7, which takes what time is left) issue 21: lab 02 graded while
# every CPU is kept busy (two "yes" per core), to see the checker's retakes
# ("timed again") under a disturbance.
case " $STEPS " in *" 8 "*)
  hogs=""
  for i in $(seq $((2 * $(nproc)))); do yes > /dev/null & hogs="$hogs $!"; done
  step 8-busy 180 env CUDAARCHS=90 grading/grade solutions "$OUT/busy" --labs 02-reduction --build /tmp/g22-grade-build
  kill $hogs
  grep -h "timed again\|spread" "$OUT"/busy/results/02-reduction.perf.log > "$OUT/8-busy-retakes.txt" 2>/dev/null
  ;;
esac
# (7) the samples whose expectations this branch changed (lab 01's stress
# tests), and the correct one, six at a time on one GPU lock.
left=$((deadline - $(date +%s)))
case " $STEPS " in *" 7 "*) [ "$left" -ge 60 ] || { echo "7-samples skipped 0 (deadline)" >> "$OUT/status"; left=0; } ;; esac
case "$left $STEPS " in 0\ *) ;; *" 7 "*)
  mkdir -p "$OUT/samples"
  for e in correct/expected endless-kernel/expected exit-early/expected fake-pass/expected out-of-bounds/expected \
           predict-seed/expected public-seed/expected public-seed/expected.at-public-seed \
           replay-same-address/expected three-quarters/expected; do echo "tests/submissions/$e"; done |
    timeout -k 10 "$left" xargs -P 6 -I{} sh -c 'e={}; d=$(dirname $e); n=$(basename $d)$(basename $e | sed "s/^expected//"); s=$(date +%s); CUDAARCHS=90 PP_GRADE_GPU_LOCK=/tmp/g22-gpu.lock sh tests/submissions/check.sh sample "$PWD" $d $e /tmp/g22-samples/$n > '"$OUT"'/samples/$n.log 2>&1; echo "7-sample-$n $? $(( $(date +%s) - s ))" >> '"$OUT"'/status'
  ;;
esac

# Per-test verdicts from the JUnit files: name, status, seconds, the check that caught a mutant.
for x in "$OUT"/[1234]-*.xml; do
  [ -f "$x" ] || continue
  python3 - "$x" > "${x%.xml}.tsv" <<'PY' 2>/dev/null || true
import re, sys, xml.etree.ElementTree as ET
for t in ET.parse(sys.argv[1]).getroot().iter('testcase'):
    out = ''.join(e.text or '' for e in t.iter('system-out'))
    caught = re.findall(r'caught by: (\S+)', out)
    status = t.get('status') or ('fail' if t.find('failure') is not None else 'pass')
    print('\t'.join([t.get('name'), status, t.get('time') or '', caught[-1] if caught else '']))
PY
done
if [ -f "$OUT/2-fresh.tsv" ]; then
  total=$(wc -l < "$OUT/2-fresh.tsv")
  caught=$(awk -F'\t' '$4 != ""' "$OUT/2-fresh.tsv" | wc -l)
  echo "fresh mutants: $caught of $total rejected" | tee -a "$OUT/status"
fi
grep -h "took .* s to start" "$OUT"/*.LastTest.log >> "$OUT/slow-starts.txt" 2>/dev/null
echo "total $(( $(date +%s) - start )) s" >> "$OUT/status"
cat "$OUT/status"
