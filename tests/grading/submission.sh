#!/bin/sh
# How grading/grade builds and runs one whole submission, host side: the
# three groups share WORK and run in this order (CTest fixtures), each
# re-grading into the same output folder, so that only the first builds much.
#
#   submission.sh spaces TREE WORK     lab 01's solution graded from a folder,
#       into an output folder, whose paths hold a space: every test's command
#       must reach its program whole. Without a GPU the GPU tests skip (exit
#       77, after their options were read), the symbol check passes, and the
#       checker writes each verdict where it was told.
#   submission.sh one-build TREE WORK  lab 01's solution and a lab 05 file that
#       does not compile, built in one build: lab 05 fails its build and its
#       tests are not-built; lab 01 is graded; the wall time of each phase is
#       reported.
#   submission.sh schedule TREE WORK   lab 01 again, with a stand-in for
#       `timeout` that plays every test (it passes, but for a few that fail in
#       different ways on their first run) and logs when each starts and ends,
#       so that the order CTest runs them in can be checked without a GPU:
#       tests overlap, at most --parallel at a time; the large test starts
#       among the first; the timed test runs alone, last; a test whose result
#       beside others contention can explain (its verdict says "contended
#       yes", it has none, its status is error, or it skipped a size) runs
#       again alone and that run counts; any other failure, and a timeout,
#       stands. With --parallel 1 nothing overlaps, nothing runs twice, and a
#       failure counts as it is. With --budget 3 the test running at the end
#       is stopped, and those that would start later (a run alone, the timed
#       test) fail, saying so; grading still writes every report.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u

fail() {
  echo "submission.sh: $*" >&2
  exit 1
}

[ $# -eq 3 ] || fail "usage: submission.sh spaces|one-build|schedule TREE WORK"
group=$1 tree=$2 work=$3
# Grading refuses where no sandbox can be made (no bubblewrap): skipped, not passed.
why=$(sh "$tree/grading/sandbox" check 2>&1) || { echo "$why: skipped"; exit 77; }
grade=$tree/grading/grade
tab=$(printf '\t')
in="$work/sub mission"
out="$work/out put"

# True when a GPU is there for the tests to use (as tests/submissions/check.sh).
gpu_present() {
  case ${CUDA_VISIBLE_DEVICES-unset} in
    '' | -1) return 1 ;;
  esac
  nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

# grade_it WANT_RC ARGUMENT...: grades $in into $out; fails unless it exits WANT_RC.
grade_it() {
  want=$1
  shift
  "$grade" "$in" "$out" --student alice "$@" > "$work/grade.log" 2>&1 < /dev/null
  rc=$?
  [ $rc -eq "$want" ] || { tail -30 "$work/grade.log" >&2; fail "grading/grade exited $rc, want $want: $work/grade.log"; }
}

# The exit code of a grading where a lab built: 3 (ungraded) without a GPU.
built_rc() {
  if gpu_present; then echo 0; else echo 3; fi
}

# status NAME: the status tests.tsv gives NAME.
status() {
  awk -F '\t' -v name="$1" '$1 == name { print $2 }' "$out/results/tests.tsv"
}

# The tests configure listed for grading, in order, and the lab of each.
listed() {
  awk -F '\t' '$1 == "test" { print $3 }' "$out/build/grading-tests.txt"
}

# Every test listed is in tests.tsv, in the same order, after its lab's build.
check_order() {
  awk -F '\t' '$1 == "test" { if ($2 != lab) print $2 ".build"; lab = $2; print $3 }' \
    "$out/build/grading-tests.txt" > "$work/order.want"
  cut -f1 "$out/results/tests.tsv" > "$work/order.got"
  diff "$work/order.want" "$work/order.got" >&2 || fail "tests.tsv does not list every test in order"
}

dot=$tree/solutions/01-dot-product/dot_product.cu
matmul=$tree/solutions/05-tiled-matmul/matmul.cu
case $group in
  spaces)
    rm -rf "$work"
    mkdir -p "$in" || fail "cannot create $in"
    cp "$dot" "$in/" || fail "cannot copy $dot"
    grade_it "$(built_rc)" --labs 01-dot-product
    [ "$(status 01-dot-product.build)" = pass ] || fail "the build did not pass"
    [ "$(status 01-dot-product.symbols)" = pass ] ||
      fail "01-dot-product.symbols: $(status 01-dot-product.symbols), want pass: $(cat "$out/results/01-dot-product.symbols.log")"
    for name in $(listed); do
      got=$(status "$name")
      case $got in
        pass) ;;
        skip) gpu_present && fail "$name skipped, with a GPU here" ;;
        *) fail "$name: $got, want pass (or skip without a GPU): $(tail -5 "$out/results/$name.log")" ;;
      esac
    done
    # The checker wrote the verdict where --verdict said, the symbol check too.
    for name in $(listed); do
      case $name in
        *.sanitizer.*) gpu_present || continue ;;  # pp-gauntlet skips before the checker runs
      esac
      [ -s "$out/results/$name.verdict" ] || fail "no verdict from $name at $out/results/$name.verdict"
    done
    check_order
    echo "every test's command reached its program whole, under paths with spaces" ;;

  one-build)
    mkdir -p "$in/05-tiled-matmul" || fail "cannot create $in/05-tiled-matmul"
    { cat "$matmul" && echo '#error planted: this file does not compile'; } > "$in/05-tiled-matmul/matmul.cu" ||
      fail "cannot write the broken lab 05 file"
    grade_it "$(built_rc)" --labs 01-dot-product,05-tiled-matmul
    check_order
    [ "$(status 01-dot-product.build)" = pass ] || fail "lab 01's build: $(status 01-dot-product.build), want pass"
    [ "$(status 05-tiled-matmul.build)" = fail ] || fail "lab 05's build: $(status 05-tiled-matmul.build), want fail"
    grep -q 'error planted' "$out/results/05-tiled-matmul.build.log" ||
      fail "05-tiled-matmul.build.log does not hold its error"
    ! grep -qi 'error' "$out/results/01-dot-product.build.log" ||
      fail "01-dot-product.build.log holds errors: $(cat "$out/results/01-dot-product.build.log")"
    grep -q 'error planted' "$out/results/build.log" || fail "build.log, the one build of both labs, lacks lab 05's error"
    for name in $(listed); do
      got=$(status "$name")
      case $name:$got in
        05-tiled-matmul.*:not-built | 01-dot-product.*:pass) ;;
        01-dot-product.*:skip) gpu_present && fail "$name skipped, with a GPU here" ;;
        *) fail "$name: $got" ;;
      esac
    done
    for phase in configure build tests-beside tests-alone score total; do
      grep -q "^${phase}${tab}[0-9][0-9]*\.[0-9][0-9]$" "$out/results/timing.tsv" ||
        fail "timing.tsv has no $phase: $(cat "$out/results/timing.tsv")"
    done
    grep -q '^grade: alice: [0-9.]* s in all: configure [0-9.]* s, build [0-9.]* s, tests ' "$work/grade.log" ||
      fail "grading/grade did not print the wall time of its phases"
    echo "lab 05 failed its build alone; lab 01 was graded; the phases were timed" ;;

  schedule)
    real=$(command -v timeout) || fail "no timeout here"
    rm -rf "${work:?}/bin" "$work/events" "$work/limits"
    mkdir -p "$work/bin"
    # The stand-in: everything that is not a test (configure, build, unpack)
    # goes to the real timeout; the probe finds a GPU; a test (it has a
    # --verdict) logs the limit it was given, its start and its end, and
    # passes in about a second, but for those $work/plays names ("NAME
    # PLAY"), which on their first run: fail with "contended yes" in the
    # verdict (contended), fail with a verdict without it (fail: a wrong
    # answer, a runner that exited by itself), die without a verdict (died),
    # end in the grading's error (error), pass having skipped a size
    # (skip-size), skip with every size skipped (skip-all), time out
    # (timeout), or hang until the real timeout stops it at the limit given
    # (hang).
    cat > "$work/bin/timeout" <<EOF
#!/bin/sh
events="$work/events"
limits="$work/limits"
plays="$work/plays"
real="$real"
EOF
    cat >> "$work/bin/timeout" <<'EOF'
verdict="" previous=""
for argument in "$@"; do
  [ "$previous" = --verdict ] && verdict=$argument
  [ "$argument" = --probe ] && exit 0
  previous=$argument
done
[ -n "$verdict" ] || exec "$real" "$@"
name=$(basename "$verdict" .verdict)
play=""
grep -qx "start $name" "$events" 2> /dev/null ||
  play=$(awk -v name="$name" '$1 == name { print $2 }' "$plays")
echo "$name $3" >> "$limits"
echo "start $name" >> "$events"
if [ "$play" = hang ]; then "$real" "$1" "$2" "$3" sleep 60; else sleep 1; fi
rc=$?
echo "end $name" >> "$events"
case $play in
  hang) exit $rc ;;
  contended) printf 'status fail\ncontended yes\n' > "$verdict"; exit 1 ;;
  fail) echo "status fail" > "$verdict"; exit 1 ;;
  died) exit 139 ;;
  error) echo "status error" > "$verdict"; exit 2 ;;
  skip-size) echo "skip size 2^28: needs 2.3 GiB of device memory, 1.0 GiB free" ;;
  skip-all)
    echo "skip size 2^28: needs 2.3 GiB of device memory, 1.0 GiB free"
    echo "status skip" > "$verdict"
    exit 77 ;;
  timeout) exit 124 ;;
esac
echo "status pass" > "$verdict"
exit 0
EOF
    chmod +x "$work/bin/timeout"
    cat > "$work/plays" <<'EOF'
01-dot-product.v1-interleaved contended
01-dot-product.v2-kahan fail
01-dot-product.v3-sequential skip-size
01-dot-product.v4-unrolled died
01-dot-product.v5-warp-shuffle error
01-dot-product.stress.v1-interleaved skip-all
01-dot-product.stress.v2-kahan timeout
EOF
    again="01-dot-product.v1-interleaved 01-dot-product.v3-sequential 01-dot-product.v4-unrolled \
      01-dot-product.v5-warp-shuffle 01-dot-product.stress.v1-interleaved"

    # The most tests running at once, from the events, and each test that
    # ever ran beside another.
    overlaps() {
      awk '$1 == "start" { ++now; if (now > most) most = now; for (t in on) if (on[t]) beside[t] = beside[$2] = 1; on[$2] = 1 }
           $1 == "end" { --now; on[$2] = 0 }
           END { print "most " most + 0; for (t in beside) print "beside " t }' "$work/events"
    }
    runs() {  # NAME: how many times it ran
      grep -c "^start $1\$" "$work/events"
    }

    PATH=$work/bin:$PATH grade_it 0 --labs 01-dot-product --parallel 3
    overlaps > "$work/overlaps"
    most=$(sed -n 's/^most //p' "$work/overlaps")
    if [ "$most" -lt 2 ] || [ "$most" -gt 3 ]; then
      fail "with --parallel 3, $most tests ran at once"
    fi
    # A large test takes more than half of the 1000 GPU-memory slots (two never run
    # together) and leaves room for the sweeps of the other lanes beside it.
    slots=$(grep -rh '[.]large]=] PROPERTIES' "$out/build" --include=CTestTestfile.cmake |
      sed -n 's/.*RESOURCE_GROUPS "gpu_memory:\([0-9]*\)".*/\1/p' | head -1)
    [ -n "$slots" ] && [ $((2 * slots)) -gt 1000 ] && [ $((slots + 7)) -le 1000 ] ||
      fail "the large test takes ${slots:-no} of the 1000 GPU-memory slots: two could run together, or no sweep beside it"
    # The timed test ran alone, after every other test; the large one among the first.
    ! grep -qx 'beside 01-dot-product.perf' "$work/overlaps" || fail "the timed test ran beside another"
    [ "$(tail -1 "$work/events")" = "end 01-dot-product.perf" ] || fail "the timed test was not the last"
    awk '$1 == "end" { exit 1 } $0 == "start 01-dot-product.large" { found = 1; exit } END { exit !found }' "$work/events" ||
      fail "the large test was not among the first started (it would run alone at the end)"
    # What contention can explain ran again alone, and that run counts.
    for name in $again; do
      [ "$(runs "$name")" -eq 2 ] || fail "$name ran $(runs "$name") times, want 2"
      [ "$(status "$name")" = pass ] || fail "$name: $(status "$name"), want pass (its run alone)"
      [ -f "$out/results/$name.beside.log" ] || fail "no $name.beside.log, the log of its first run"
      awk -v name="$name" '$1 == "start" && $2 == name { ++n } n == 2 && $1 == "start" && $2 != name { exit 1 }
        n == 2 && $1 == "end" && $2 == name { exit 0 }' "$work/events" || fail "$name's second run was not alone"
    done
    # The rest ran once, and its result stands: a failure without "contended yes", a timeout.
    for name in $(listed); do
      case " $again " in *" $name "*) continue ;; esac
      case $name in
        *.stress.v2-kahan) want=timeout ;;
        01-dot-product.v2-kahan) want=fail ;;
        *) want=pass ;;
      esac
      [ "$(runs "$name")" -eq 1 ] || fail "$name ran $(runs "$name") times, want 1"
      [ "$(status "$name")" = "$want" ] || fail "$name: $(status "$name"), want $want"
    done
    check_order
    # The default budget, 600 s, is less than a test's own limit (900 s): no test was given more.
    awk '$2 > 600 { print; bad = 1 } END { exit bad }' "$work/limits" >&2 || fail "a test was given more than the budget"

    # One at a time: nothing overlaps, nothing runs twice, and v1's failure counts.
    rm -f "$work/events"
    PATH=$work/bin:$PATH grade_it 0 --labs 01-dot-product --parallel 1
    overlaps > "$work/overlaps"
    [ "$(sed -n 's/^most //p' "$work/overlaps")" -eq 1 ] || fail "with --parallel 1, tests overlapped"
    [ "$(status 01-dot-product.v1-interleaved)" = fail ] || fail "with --parallel 1, v1's failure did not count"
    for name in $(listed); do
      [ "$(runs "$name")" -eq 1 ] || fail "with --parallel 1, $name ran $(runs "$name") times"
    done

    # A budget of 3 s: the large test, started first, hangs and is stopped
    # when the budget runs out; the racecheck test, started with it, fails
    # "contended", and its run alone is refused, as is every test that would
    # start later, the timed one among them: each fails and says why, in its
    # log and in the summary. Grading ends soon after, and writes every report.
    rm -f "$work/events" "$work/limits"
    printf '%s\n' "01-dot-product.large hang" "01-dot-product.sanitizer.racecheck contended" > "$work/plays"
    PATH=$work/bin:$PATH grade_it 0 --labs 01-dot-product --parallel 3 --budget 3
    for report in results.json junit.xml row.csv row-header.csv summary.txt; do
      [ -s "$out/$report" ] || fail "no $report once the budget ran out"
    done
    large=01-dot-product.large racecheck=01-dot-product.sanitizer.racecheck
    [ "$(status "$large")" = timeout ] || fail "$large: $(status "$large"), want timeout"
    grep -q '^run-test: stopped after [0-9]* s, when the grading budget ran out' "$out/results/$large.log" ||
      fail "$large.log does not say the budget stopped it: $(tail -3 "$out/results/$large.log")"
    awk '$2 > 3 { print; bad = 1 } END { exit bad }' "$work/limits" >&2 || fail "a test was given more than the 3 s budget"
    [ "$(runs "$racecheck")" -eq 1 ] && [ -f "$out/results/$racecheck.beside.log" ] ||
      fail "$racecheck ran $(runs "$racecheck") times, want once beside the others, then refused alone"
    unstarted=0
    for name in $(listed); do
      [ "$(runs "$name")" -eq 0 ] || [ "$name" = "$racecheck" ] || continue
      unstarted=$((unstarted + 1))
      [ "$(status "$name")" = fail ] || fail "$name, refused by the budget: $(status "$name"), want fail"
      grep -q '^run-test: grading budget exhausted: not run' "$out/results/$name.log" ||
        fail "$name.log does not say the budget was exhausted: $(cat "$out/results/$name.log")"
    done
    [ "$(runs 01-dot-product.perf)" -eq 0 ] || fail "the timed test ran after the budget was spent"
    [ "$unstarted" -ge 3 ] || fail "only $unstarted tests were refused by a 3 s budget"
    grep -q 'grading budget exhausted: not run' "$out/summary.txt" || fail "summary.txt does not say the budget was exhausted"
    grep -q "^grade: the tests' budget of 3 s (--budget) ran out: $((unstarted)) tests were not run" "$work/grade.log" ||
      fail "grading/grade did not say how many tests the budget left out"
    awk -F '\t' '$1 ~ /^tests-/ { t += $2 } END { exit !(t < 15) }' "$out/results/timing.tsv" ||
      fail "the tests took longer than a 3 s budget allows: $(cat "$out/results/timing.tsv")"
    echo "tests ran side by side, the large among the first, the timed alone and last; what contention can explain ran again alone, and only that; a spent budget refused the rest" ;;

  *) fail "unknown group $group" ;;
esac
