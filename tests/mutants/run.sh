#!/bin/sh
# Runs mutants through the gauntlet on this machine's GPU, one at a time, and
# prints one line per mutant: the check that caught it, or that none did.
#
#   tests/mutants/run.sh [--uncaught | --fresh] [--build DIR] [--jobs N] [REGEX]
#
# Without --uncaught: the mutant tests of the check preset (tests/mutants/<lab>/,
# each must be rejected) whose name matches REGEX (a CTest regular expression,
# e.g. 'v7-|value-apart|v2-tile-sums'; default: every one), in DIR (default
# build/check). With --uncaught: the mutants of tests/mutants/uncaught/<lab>/,
# which survived every check when measured and are no tests of the check
# preset; DIR (default build/uncaught) is configured from the check preset with
# -DPP_UNCAUGHT_MUTANTS=ON, so that the check preset's own build never holds
# tests that are known to fail. With --fresh: the mutants of
# tests/mutants/fresh/<lab>/, written after the checks and not yet measured
# (DIR default build/fresh, -DPP_FRESH_MUTANTS=ON), for their first-run rate.
# Either way DIR is configured if need be and
# what the tests run is built first. Run it from the repository root.
# --jobs N runs N mutants at a time (default 1), as `ctest -j` runs the check
# preset's: a mutant that survives runs every check, minutes, and the others
# run beside it; the lines come once every mutant has ended.
#
# Each line reads "<lab>.<kind>.<name>: caught by <check>", "...: SURVIVED every
# check", "...: skipped (<why>)" or "...: no verdict (see <log>)"; each test's
# output is kept in DIR/mutant-logs/<test>.log. Exit codes: 0 every mutant run
# was caught, 1 one was not (survived, skipped, or no verdict), 2 bad usage.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u

usage() {
  echo "usage: tests/mutants/run.sh [--uncaught | --fresh] [--build DIR] [--jobs N] [REGEX]" >&2
  exit 2
}

kind=mutant build="" regex="" jobs=1
while [ $# -gt 0 ]; do
  case $1 in
    --uncaught | --fresh) kind=${1#--} ;;
    --build) [ $# -ge 2 ] || usage; build=$2; shift ;;
    --jobs)
      [ $# -ge 2 ] || usage
      case $2 in '' | *[!0-9]* | 0) usage ;; esac
      jobs=$2
      shift ;;
    -*) usage ;;
    *) [ -z "$regex" ] || usage; regex=$1 ;;
  esac
  shift
done
[ -f CMakePresets.json ] && [ -d tests/mutants ] || {
  echo "run.sh: run it from the repository root" >&2
  exit 2
}
if [ "$kind" != mutant ]; then
  build=${build:-build/$kind}
  option=$(echo "$kind" | tr a-z A-Z)
  cmake --preset check -B "$build" "-DPP_${option}_MUTANTS=ON" >/dev/null || exit 1
  target=$kind-mutants
else
  build=${build:-build/check}
  [ -f "$build/CMakeCache.txt" ] || cmake --preset check -B "$build" >/dev/null || exit 1
  target=""
fi

# The tests to run: "Test #N: <lab>.<kind>.<name>" in CTest's listing.
tests=$(ctest --test-dir "$build" -N -L "^$kind\$" ${regex:+-R "$regex"} |
        sed -n "s/^ *Test *#[0-9]*: \([^ ]*\.$kind\.[^ ]*\)\$/\1/p")
if [ -z "$tests" ]; then
  echo "run.sh: no $kind test matches '${regex:-any}' in $build" >&2
  [ "$kind" = uncaught ] && exit 0 # tests/mutants/uncaught/ may well be empty
  exit 2
fi

# Build the mutants' programs, pp-gauntlet and the host checks it runs first, the symbol
# and technique checks (a lab target builds all of its mutants).
if [ -z "$target" ]; then
  target=$(printf '%s\n' "$tests" | sed 's/\..*//' | sort -u | tr '\n' ' ')
fi
# shellcheck disable=SC2086 # one target per word
cmake --build "$build" --target $target pp-gauntlet pp-symcheck pp-technique >/dev/null || {
  echo "run.sh: the build failed: cmake --build $build --target $target pp-gauntlet pp-symcheck pp-technique" >&2
  exit 1
}

logs=$build/mutant-logs
mkdir -p "$logs"
# shellcheck disable=SC2016,SC2086 # one test a word; the inner shell expands its own arguments
printf '%s\n' $tests | xargs -P "$jobs" -I '{}' \
  sh -c 'ctest --test-dir "$1" -R "^$2\$" -V > "$3/$2.log" 2>&1' sh "$build" '{}' "$logs"
status=0
for test in $tests; do
  log=$logs/$test.log
  if caught=$(grep -m1 -o 'caught by: [^ ]*' "$log"); then
    echo "$test: ${caught%%: *} ${caught#*: }"
    continue
  fi
  status=1
  if grep -q 'survived every check' "$log"; then
    echo "$test: SURVIVED every check"
  elif why=$(grep -m1 -o 'not run here: .*: skipped, not passed' "$log"); then
    why=${why#not run here: }
    echo "$test: skipped (${why%: skipped, not passed})"
  elif grep -q 'no CUDA device' "$log"; then
    echo "$test: skipped (no CUDA device)"
  else
    echo "$test: no verdict (see $log)"
  fi
done
exit $status
