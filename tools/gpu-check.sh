#!/bin/sh
# Builds everything for this machine's GPU, runs every test, and times every
# lab at its default size: what docs/results/ records. Logs and JSON go to
# the folder given (default build/gpu-check). PP_LABS="03-scan" limits it to
# some labs; PP_COMMIT names the commit when the tree has no .git;
# PP_CTEST_ARGS adds to the ctest command line (e.g. "-LE grading"); PP_PYTHON
# is a Python with matplotlib for the pictures (default python3; without
# matplotlib they are skipped). PP_SWEEP=1 also sweeps each lab over sizes
# (tools/sweep.sh, about 6 minutes for labs 01 to 05 on an H100) into
# LOG_DIR/sweep/LAB and writes LAB-sweep.md and LAB-sweep.svg beside the lab's
# page (tools/sweep-table.py; with the kernel launches when LOG_DIR holds
# LAB-counters.csv from `tools/counters.sh LAB LOG_DIR`).
#   tools/gpu-check.sh [LOG_DIR] [CTEST_JOBS]
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u
cd "$(dirname "$0")/.."
out=${1:-build/gpu-check}
jobs=${2:-8}
mkdir -p "$out"

{
  echo "commit: ${PP_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  cmake --version | head -1
} > "$out/environment.txt" 2>&1
cat "$out/environment.txt"

cmake --preset check ${PP_LABS:+"-DPP_LABS=$PP_LABS"} > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build --preset check > "$out/build.log" 2>&1 || { grep -B2 -A8 error "$out/build.log" | head -80; exit 1; }

# shellcheck disable=SC2086 # PP_CTEST_ARGS holds several arguments
ctest --preset check -j "$jobs" ${PP_CTEST_ARGS:-} > "$out/ctest.log" 2>&1
tests=$?
cp build/check/Testing/Temporary/LastTest.log "$out/ctest-full.log"
grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$out/ctest.log"

# The SM clock gives the FP32 peak in the pictures (tools/plot-results.py).
sm_clock=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits 2>/dev/null | head -1)
case $sm_clock in '' | *[!0-9]*) sm_clock= ;; esac
# Where the sweeps were measured, for their pages.
sweep_note="commit $(echo "${PP_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" | cut -c1-12)"
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
case $driver in '' | *[!0-9.]*) ;; *) sweep_note="$sweep_note, NVIDIA driver $driver" ;; esac
sweep_note="$sweep_note, measured $(date -u +%Y-%m-%d)"
sweeps=0

# One page per lab for docs/results: where it ran, its tests, its table, and
# its pictures (LAB-staircase.svg, and LAB-roofline.svg for lab 05 when LOG_DIR
# holds its counters) beside it.
for runner in build/check/bin/[0-9][0-9]-*; do
  lab=$(basename "$runner")
  case $lab in *-skeleton | *-challenge) continue ;; esac
  "$runner" --json "$out/$lab.json" > "$out/$lab-table.txt" 2>&1
  cat "$out/$lab-table.txt"
  rm -f "$out/$lab-staircase.svg" "$out/$lab-roofline.svg"
  if [ -s "$out/$lab.json" ]; then
    # The roofline's intensities come from the counters, at the size their page names.
    roofline=
    if [ -s "$out/$lab-counters.csv" ]; then
      size=$(sed -n 's/.*, size \([^ ]*\) (`tools\/counters\.sh.*/\1/p' "$out/$lab-counters.md")
      [ -n "$size" ] && roofline="--counters $out/$lab-counters.csv $size"
    fi
    # shellcheck disable=SC2086 # the options and their values, or nothing
    "${PP_PYTHON:-python3}" tools/plot-results.py ${sm_clock:+--sm-clock-mhz $sm_clock} $roofline \
      "$out/$lab.json" "$out"
  fi
  rm -f "$out/$lab-sweep.md" "$out/$lab-sweep.svg"
  if [ "${PP_SWEEP:-0}" = 1 ]; then
    rm -rf "$out/sweep/$lab"
    sh tools/sweep.sh --preset check "$lab" "$out/sweep" > "$out/$lab-sweep.log" 2>&1
    case $? in
      0) ;;
      77) ;;
      *) grep FAILED "$out/$lab-sweep.log"; echo "$lab: the sweep failed, see $out/$lab-sweep.log"; sweeps=1 ;;
    esac
    if ls "$out/sweep/$lab"/*.json > /dev/null 2>&1; then
      counters=
      [ -s "$out/$lab-counters.csv" ] && counters=$out/$lab-counters.csv
      # Without matplotlib (exit code 77), the table alone.
      for svg in "" --no-svg; do
        # shellcheck disable=SC2086 # the options and their values, or nothing
        "${PP_PYTHON:-python3}" tools/sweep-table.py $svg ${counters:+--counters "$counters"} \
          --note "$sweep_note" "$out/sweep/$lab" "$out"
        code=$?
        [ $code -eq 77 ] || break
      done
      [ "$code" -eq 0 ] || { echo "$lab: tools/sweep-table.py exited with $code"; sweeps=1; }
    fi
  fi
  {
    echo "# $lab: measured results"
    echo
    echo "Produced by \`tools/gpu-check.sh\` on $(date -u +%Y-%m-%d)."
    echo
    echo '```text'
    cat "$out/environment.txt"
    echo '```'
    echo
    echo "## Tests"
    echo
    echo '```text'
    grep -E "Test +#[0-9]+: $lab\." "$out/ctest.log" | sed -E 's/^ *[0-9]+\/[0-9]+ //'
    echo '```'
    echo
    echo "## Table (\`bin/$lab --json $lab.json\`)"
    echo
    echo '```text'
    cat "$out/$lab-table.txt"
    echo '```'
    for picture in staircase roofline; do
      [ -s "$out/$lab-$picture.svg" ] && printf '\n![%s %s](%s-%s.svg)\n' "$lab" "$picture" "$lab" "$picture"
    done
    [ -s "$out/$lab-sweep.md" ] && printf '\nOver sizes, against the library peer: [%s-sweep.md](%s-sweep.md)\n' "$lab" "$lab"
  } > "$out/$lab.md"
done
[ "$tests" -eq 0 ] && [ "$sweeps" -ne 0 ] && exit 1
exit $tests
