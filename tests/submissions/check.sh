#!/bin/sh
# The tamper and failure suite: grades sample submissions with grading/ and
# compares every test's status with what the sample expects.
# tests/grading/CMakeLists.txt registers one CTest test per expectation file.
#
#   check.sh sample TREE SAMPLE EXPECTED WORK   grading/grade, one sample
#   check.sh class TREE WORK SAMPLE...          grading/grade-class, 2 workers
#                                               sharing 1 GPU
#   check.sh slurm TREE WORK SAMPLE...          grading/slurm/ (skips, 77,
#                                               without a Slurm node)
#   check.sh ratio VERDICT [V/W]                the speed a ratio line reads
#                                               from a perf verdict (below)
#
# A sample is a folder tests/submissions/<name>/ with an expectation file
# (`expected`, and `expected.<suffix>` for more runs) and, where the sample is a
# changed lab file, `submission.patch`: a unified diff applied with
# `patch --fuzz=0` at test time to solutions/<lab>/<file> or labs/<lab>/<file>,
# whose first paragraph says what the sample does. Expectation file lines:
#   lab LAB                  the lab the sample targets (graded alone: --labs)
#   from solutions|labs      the file the patch applies to, or that is taken as is
#   from sample              the sample's own <file> (a hostile file that is no
#                            lab code), taken as is
#   pack folder|zip|tgz      how it is handed in (default folder); an archive
#                            holds one top-level folder
#   layout flat|lab|labs     <file>, <lab>/<file> or labs/<lab>/<file> (default flat)
#   add PATH                 a file that is not a lab file: must be listed as extra
#   seed N                   grade with this seed (default: a fresh one)
#   timeout-scale X          grade with --timeout-scale X: a sample whose tests
#                            are meant to run out of time waits less for it
#   tests GLOB...            grade with --tests: only the tests these globs name
#                            (one line or several), for a sample whose point the
#                            tests named show: how the runner starts or ends (the
#                            same in every GPU test: one of each kind shows it),
#                            or a cheat that no sanitizer is there to see
#   beside                   with `tests` naming no timed or large test, or for a
#                            lab that does not build (it runs no test): the
#                            grading times nothing, and runs beside the other
#                            GPU tests (tests/grading/CMakeLists.txt)
#   gpu-lock on              grade as a worker sharing its GPU would
#                            (PP_GRADE_GPU_LOCK): the timing and large tests
#                            must take the lock alone, every other GPU test
#                            shared
#   expect PATTERN STATUS    the status of the tests matching PATTERN (a shell
#                            glob); the first matching line wins; every test
#                            needs one, and a pattern without * must name a test
#   ratio TEST AT_MOST       TEST's verdict gives vs_peer (its best variant's speed
#                            over the library peer's) of at most AT_MOST: with a GPU
#                            a missing verdict or vs_peer fails; where TEST skipped
#                            for want of a GPU, the line is not checked
#   ratio TEST V/W AT_MOST   likewise, variant V's speed over variant W's (W's
#                            time over V's, both from the verdict's time lines):
#                            a cheat in one variant, held to an honest one timed
#                            in the same run, which the peer's noise does not blur
#   within SECONDS           the grading must end within SECONDS
#   needs cgroups            skipped (77) where tests get no cgroup (grading/run-test
#                            --cgroups): the defence it tests needs one
#   no-process NAME          no process named NAME is left once grading ends
#   rerun none               no test ran again alone (no <test>.beside.log)
#   shows TEXT               summary.txt holds TEXT (a fixed string)
# Samples graded side by side share the GPU lock they are given
# (PP_GRADE_GPU_LOCK), as a class's workers do; PP_CHECK_PARALLEL, where set,
# is each grading's --parallel, so that they share the cores and the GPU's
# memory too.
# A hostile sample's file may name, and check.sh then fills in: @SECRET@, a
# file outside the tree holding a random word that must appear nowhere in the
# grading's output folder (on a line "secret WORD", which a tool that quotes
# what it cannot parse, such as as, quotes whole; it lies beside the output
# folder, so a sample may also name it from the build folder as
# ../../secret.txt); @MARKER@, a path outside the output folder that
# must not exist once grading ends; @OUT@, the grading's output folder (which
# it must not be able to write: its statuses show whether it did).
# Without a GPU, a GPU test (any but <lab>.build and <lab>.symbols) may report
# skip instead of its expected status; with a GPU it must match exactly. And
# without a GPU, a submission with a lab that built is ungraded: grading/grade
# exits 3 and every report says so; otherwise it exits 0 and none does.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u

fail() {
  echo "check.sh: $*" >&2
  exit 1
}

# The value(s) of a key in an expectation file.
key() {
  sed -n "s/^$2 //p" "$1"
}

# speed_ratio VERDICT [V/W]: what a ratio line bounds, from a perf verdict:
# its vs_peer, or with V/W variant V's speed over W's (W's time over V's, from
# its time lines); nothing where the verdict gives none.
speed_ratio() {
  if [ -z "${2:-}" ]; then
    sed -n 's/^vs_peer //p' "$1" 2>/dev/null
  else
    awk -v v="${2%/*}" -v w="${2#*/}" '
      $1 == "time" && $2 == v { tv = $3 }
      $1 == "time" && $2 == w { tw = $3 }
      END { if (tv + 0 > 0 && tw + 0 > 0) printf "%.4f\n", tw / tv }' "$1" 2>/dev/null
  fi
}

# True when a GPU is there for the tests to use.
gpu_present() {
  case ${CUDA_VISIBLE_DEVICES-unset} in
    '' | -1) return 1 ;;
  esac
  nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

# make_submission SAMPLE EXPECTED DEST ID: makes the sample's submission in
# DEST (a folder DEST/ID, or DEST/ID.zip / DEST/ID.tgz); prints its path.
make_submission() {
  sample=$1 expected=$2 dest=$3 id=$4
  lab=$(key "$expected" lab)
  from=$(key "$expected" from)
  pack=$(key "$expected" pack)
  layout=$(key "$expected" layout)
  set -- "$tree/labs/$lab/"*.cu
  if [ -z "$lab" ] || [ ! -f "$1" ]; then
    fail "$expected: no lab '$lab' in $tree/labs"
  fi
  file=$(basename "$1")
  source=$tree/$from/$lab/$file
  [ "$from" != sample ] || source=$sample/$file
  [ -f "$source" ] || fail "$expected: 'from $from': no $source"
  case ${pack:-folder} in
    folder) folder=$dest/$id ;;
    zip | tgz) folder=$dest/.pack/$id ;;
    *) fail "$expected: pack $pack?" ;;
  esac
  case ${layout:-flat} in
    flat) target=$folder/$file ;;
    lab) target=$folder/$lab/$file ;;
    labs) target=$folder/labs/$lab/$file ;;
    *) fail "$expected: layout $layout?" ;;
  esac
  rm -rf "$folder"
  mkdir -p "$(dirname "$target")" || fail "cannot create $target"
  if [ -f "$sample/submission.patch" ]; then
    patch --quiet --fuzz=0 --output="$target" --input="$sample/submission.patch" "$source" >&2 ||
      fail "$sample/submission.patch no longer applies to $source: regenerate it"
  else
    cp "$source" "$target" || fail "cannot copy $source"
  fi
  # A hostile sample's places (see the top), under the sample's work folder.
  places=$(dirname "$dest")
  sed -i -e "s|@SECRET@|$places/secret.txt|g" -e "s|@MARKER@|$places/marker|g" \
    -e "s|@OUT@|$places/out|g" "$target" || fail "cannot fill in $target"
  key "$expected" add | while IFS= read -r extra; do
    mkdir -p "$(dirname "$folder/$extra")"
    echo "not a lab file" > "$folder/$extra"
  done
  case ${pack:-folder} in
    folder) echo "$folder" ;;
    zip)
      (cd "$dest/.pack" && cmake -E tar cf "$dest/$id.zip" --format=zip "$id") || fail "zip failed"
      echo "$dest/$id.zip" ;;
    tgz)
      (cd "$dest/.pack" && cmake -E tar czf "$dest/$id.tgz" "$id") || fail "tar failed"
      echo "$dest/$id.tgz" ;;
  esac
}

# ungraded OUT: true when OUT's submission must be ungraded: no GPU here, and
# a lab built (so its GPU tests could not run).
ungraded() {
  ! gpu_present && grep -q '\.build	pass	' "$1/results/tests.tsv"
}

# The exit code grading must give where it graded these output folders: 3 if
# any is ungraded, else 0.
want_exit() {
  for graded in "$@"; do
    ! ungraded "$graded" || { echo 3; return; }
  done
  echo 0
}

# named TEST: true when a glob of $only (the sample's `tests`) matches TEST.
named() {
  set -f
  for glob in $only; do
    case $1 in $glob) set +f; return 0 ;; esac
  done
  set +f
  return 1
}

# compare EXPECTED OUT: OUT is grading/grade's output folder.
compare() {
  want_file=$1 graded=$2
  tsv=$graded/results/tests.tsv
  [ -s "$tsv" ] || fail "no $tsv"
  for report in results.json junit.xml row.csv row-header.csv summary.txt; do
    [ -s "$graded/$report" ] || fail "grading wrote no $graded/$report"
  done
  gpu=0
  gpu_present && gpu=1
  bad=0 skipped=0
  only=$(key "$want_file" tests | tr '\n' ' ')
  while IFS="$(printf '\t')" read -r name status seconds; do
    # With `tests`, a test they do not name must not have run: grading reports it missing.
    if [ -n "$only" ] && [ "${name%.build}" = "$name" ] && ! named "$name"; then
      [ "$status" = missing ] || { echo "  $name: $status, but no 'tests' glob names it" >&2; bad=1; }
      continue
    fi
    want=$(key "$want_file" expect | while read -r pattern value; do
      # shellcheck disable=SC2254 # the pattern is a glob by design
      case $name in $pattern) echo "$value"; break ;; esac
    done)
    if [ -z "$want" ]; then
      echo "  $name: $status, but no 'expect' line matches it" >&2
      bad=1
    elif [ "$status" = "$want" ]; then
      echo "  $name: $status (${seconds} s)"
    elif [ "$status" = skip ] && [ $gpu -eq 0 ]; then
      case $name in
        *.build | *.symbols)
          echo "  $name: skip, want $want (this test needs no GPU)" >&2
          bad=1 ;;
        *)
          echo "  $name: skip (no GPU here; want $want)"
          skipped=$((skipped + 1)) ;;
      esac
    else
      echo "  $name: $status, want $want" >&2
      # Why, in the test's own words: the summary shows the logs of failed tests only.
      [ ! -s "$graded/results/$name.log" ] || tail -n 8 "$graded/results/$name.log" | sed 's/^/      | /' >&2
      bad=1
    fi
  done < "$tsv"
  # With `tests`, each names a test.
  set -f
  for glob in $only; do
    cut -f1 "$tsv" | while read -r name; do case $name in $glob) echo "$name" ;; esac; done | grep -q . ||
      { echo "  tests $glob: no test of the lab matches it" >&2; bad=1; }
  done
  set +f
  # With `beside`, the sample runs beside other GPU work (tests/grading/CMakeLists.txt):
  # no test it ran (those `tests` names, or all; a lab that did not build runs none) may
  # be timed or large.
  if grep -qx beside "$want_file"; then
    for name in $(awk -F '\t' '$2 != "not-built" && $2 != "missing" { print $1 }' "$tsv"); do
      [ -z "$only" ] || named "$name" || continue
      kind=$(awk -F '\t' -v name="$name" '$1 == "test" && $3 == name { print $4 }' "$graded/build/grading-tests.txt")
      case $kind in timed | large) echo "  $name: a $kind test, which a sample run beside other GPU work may not run" >&2; bad=1 ;; esac
    done
  fi
  # A name without a * must be a test that ran: a renamed test is caught.
  for pattern in $(key "$want_file" expect | awk '$1 !~ /[*?[]/ { print $1 }'); do
    cut -f1 "$tsv" | grep -qx "$pattern" ||
      { echo "  $pattern: expected, but grading has no such test" >&2; bad=1; }
  done
  # A speed bound: a file that forges a time must gain nothing by it.
  ratios=$(key "$want_file" ratio)
  while read -r timed pair most rest; do
    [ -n "$timed" ] || continue
    line="$timed $pair${most:+ $most}${rest:+ $rest}"
    [ -n "$most" ] || { most=$pair pair=""; }
    what=${pair:-vs_peer}
    case $most in '' | *[!0-9.]* | *.*.*) rest=bad ;; esac
    case $pair in
      */*/* | /* | */) rest=bad ;;
      '' | */*) ;;
      *) rest=bad ;;
    esac
    [ -z "$rest" ] || { echo "  ratio $line: want a test, maybe V/W (two variants), and a number" >&2; bad=1; continue; }
    tested=$(awk -F '\t' -v t="$timed" '$1 == t { print $2 }' "$tsv")
    verdict=$graded/results/$timed.verdict
    got=$(speed_ratio "$verdict" "$pair")
    if [ -z "$tested" ]; then
      echo "  $timed: a ratio is expected, but grading has no such test" >&2
      bad=1
    elif [ "$tested" = skip ] && [ $gpu -eq 0 ]; then
      echo "  $timed: $what not checked (no GPU here; want at most $most)"
    elif [ ! -f "$verdict" ]; then
      echo "  $timed: no verdict (want $what at most $most)" >&2
      bad=1
    elif [ -z "$got" ]; then
      echo "  $timed: its verdict gives no $what (want at most $most)" >&2
      bad=1
    elif awk -v got="$got" -v most="$most" 'BEGIN { exit !(got + 0 <= most + 0) }'; then
      echo "  $timed: $what $got, at most $most"
    else
      echo "  $timed: $what $got, want at most $most" >&2
      bad=1
    fi
  done <<EOF
$ratios
EOF
  for extra in $(key "$want_file" add); do
    grep -qx "extra $extra" "$graded/results/submission.txt" ||
      { echo "  $extra: not listed as extra in submission.txt" >&2; bad=1; }
  done
  shown=$(key "$want_file" shows)
  while IFS= read -r text; do
    [ -z "$text" ] || grep -qF -- "$text" "$graded/summary.txt" ||
      { echo "  summary.txt does not show: $text" >&2; bad=1; }
  done <<EOF
$shown
EOF
  # A lab's build log names the student's file by its path in the submission,
  # never by where grading staged it (only inside an object file's name); and
  # a lab that built took its compiles' time, not its own no-op build's.
  staged=$(printf '%s/staged/' "$graded" | sed 's/[].[^$*\/+?(){}|]/\\&/g')
  for log in "$graded"/results/*.build.log; do
    [ -f "$log" ] || continue
    ! grep -qE "(^|[^A-Za-z0-9_./-])$staged" "$log" ||
      { echo "  $(basename "$log") names the staged file: $(grep -m 1 -E "(^|[^A-Za-z0-9_./-])$staged" "$log")" >&2; bad=1; }
  done
  awk -F '\t' '$1 ~ /[.]build$/ && $2 == "pass" && $3 + 0 < 1 { print "  " $1 ": built in " $3 " s, less than any compile takes"; bad = 1 }
    END { exit bad }' "$tsv" >&2 || bad=1
  # Ungraded: every report says so and none has a score; graded: none says so.
  if ungraded "$graded"; then
    head -n 1 "$graded/summary.txt" | grep -q ': UNGRADED, no score: ' ||
      { echo "  summary.txt does not begin with UNGRADED" >&2; bad=1; }
    grep -q ',ungraded$' "$graded/row.csv" || { echo "  row.csv does not end in ungraded" >&2; bad=1; }
    ! grep -q '"score"' "$graded/results.json" || { echo "  results.json has a score" >&2; bad=1; }
    grep -q '"status": "ungraded"' "$graded/results.json" ||
      { echo "  results.json does not say ungraded" >&2; bad=1; }
    ! grep -q 'name="score"' "$graded/junit.xml" || { echo "  junit.xml has a score" >&2; bad=1; }
    echo "  ungraded (no GPU here), and every report says so"
  else
    grep -q ',graded$' "$graded/row.csv" || { echo "  row.csv does not end in graded" >&2; bad=1; }
    ! grep -qi 'ungraded' "$graded/summary.txt" "$graded/results.json" "$graded/junit.xml" ||
      { echo "  a report says ungraded" >&2; bad=1; }
  fi
  [ $bad -eq 0 ] || return 1
  [ $skipped -eq 0 ] || echo "($skipped GPU tests skipped: no GPU here)"
  return 0
}

# check_locks LOG LOCK TESTS: LOG (of a flock that logs its arguments, one
# line a call) shows each GPU test of TESTS (tests.tsv: all but <lab>.build,
# <lab>.symbols and <lab>.technique.*, which read files, not the GPU, and
# those 'tests' left out, reported missing) holding LOCK as it must, named by
# the verdict its command writes: the timing and large tests alone, every
# other one shared after passing LOCK.gate.
check_locks() {
  log=$1 lock=$2
  awk -F '\t' '
    $1 ~ /[.]build$/ || $1 ~ /[.]symbols$/ || $1 ~ /[.]technique[.]/ { next }
    $2 == "missing" { next }
    $1 ~ /[.](perf|large)$/ { print $1 ": alone"; next }
    { print $1 ": shared"; ++shared }
    END { print "gates passed: " shared + 0 }' "$3" | sort > "$log.want"
  awk -v lock="$lock" '
    $0 == "-x " lock ".gate true" { ++gates; next }
    index($0, "-x " lock " ") == 1 { next }  # a lone test'"'"'s inner flock
    index($0, "-x " lock ".gate flock -x " lock " ") == 1 { how = "alone" }
    index($0, "-s " lock " ") == 1 { how = "shared" }
    { name = "(no verdict: " $0 ")"
      if (match($0, /[^\/ ]+[.]verdict( |$)/)) {
        name = substr($0, RSTART, RLENGTH)
        sub(/[.]verdict *$/, "", name)
      }
      print name ": " (how ? how : "unknown: " $0)
      how = "" }
    END { print "gates passed: " gates + 0 }' "$log" | sort > "$log.got"
  diff "$log.want" "$log.got" >&2 || fail "the GPU tests did not take $lock as they must: $log"
  echo "  the timing and large tests held the GPU lock alone, the other GPU tests shared it"
}

# check_sample SAMPLE EXPECTED WORK
check_sample() {
  sample=$1 expected=$2 work=$3
  if [ "$(key "$expected" needs)" = cgroups ] && ! sh "$tree/grading/run-test" --cgroups; then
    echo "no cgroup per test here (grading/run-test --cgroups): skipped"
    exit 77
  fi
  rm -rf "$work"
  mkdir -p "$work/in"
  submission=$(make_submission "$sample" "$expected" "$work/in" "$(basename "$sample")") || exit 1
  seed=$(key "$expected" seed)
  set -- --labs "$(key "$expected" lab)"
  [ -z "$seed" ] || set -- "$@" --seed "$seed"
  scale=$(key "$expected" timeout-scale)
  [ -z "$scale" ] || set -- "$@" --timeout-scale "$scale"
  only=$(key "$expected" tests | tr '\n' ' ')
  [ -z "$only" ] || set -- "$@" --tests "$only"
  [ -z "${PP_CHECK_PARALLEL:-}" ] || set -- "$@" --parallel "$PP_CHECK_PARALLEL"
  lock=""
  if [ "$(key "$expected" gpu-lock)" = on ]; then
    # A flock in front of the real one that logs its arguments.
    real=$(command -v flock) || fail "no flock here"
    mkdir -p "$work/bin"
    printf '#!/bin/sh\nprintf "%%s\\n" "$*" >> "%s"\nexec "%s" "$@"\n' "$work/flock.log" "$real" > "$work/bin/flock"
    chmod +x "$work/bin/flock"
    # The lock of the samples it is graded beside, if any, so that it times alone among them.
    lock=${PP_GRADE_GPU_LOCK:-$work/gpu.lock}
  fi
  secret=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "secret $secret" > "$work/secret.txt"
  within=$(key "$expected" within)
  echo "grading $submission $*"
  started=$(date +%s)
  # A sample that does not test the lock itself keeps one it was given
  # (samples graded side by side on one GPU share its lock, as grade-class does).
  PATH=$work/bin:$PATH PP_GRADE_GPU_LOCK=${lock:-${PP_GRADE_GPU_LOCK:-}} timeout -k 10 "${within:-3600}" \
    "$tree/grading/grade" "$submission" "$work/out" "$@" > "$work/grade.log" 2>&1
  rc=$?
  case $rc in
    124 | 137) fail "grading did not end within ${within:-3600} s (it took $(($(date +%s) - started)) s)" ;;
  esac
  # Nothing of the submission may outlive it, nor leave the sandbox's view.
  for name in $(key "$expected" no-process); do
    ! pgrep -x "$name" > /dev/null || fail "a process named $name outlived the grading: $(pgrep -ax "$name")"
  done
  [ ! -e "$work/marker" ] || fail "the submission wrote $work/marker, outside its sandbox"
  ! grep -rqF "$secret" "$work/out" ||
    fail "the secret file's word is in $(grep -rlF "$secret" "$work/out" | head -3 | tr '\n' ' ')"
  [ -s "$work/out/results/tests.tsv" ] || { tail -40 "$work/grade.log" >&2; fail "grading/grade failed (exit $rc): $work/grade.log"; }
  grep -q '^grade:   \[[0-9]*/[0-9]* [0-9.]*s\] ' "$work/grade.log" ||
    fail "grading/grade did not show its build's steps as they ended: $work/grade.log"
  if [ "$(key "$expected" rerun)" = none ]; then
    again=$(cd "$work/out/results" && find . -name '*.beside.log' | sed 's|^\./||; s|\.beside\.log$||' | tr '\n' ' ')
    [ -z "$again" ] || fail "tests ran again alone: $again"
  fi
  want=$(want_exit "$work/out")
  [ $rc -eq "$want" ] || { tail -40 "$work/grade.log" >&2; fail "grading/grade exited $rc, want $want: $work/grade.log"; }
  compare "$expected" "$work/out" || { cat "$work/out/summary.txt" >&2; fail "$expected: unexpected statuses"; }
  [ -z "$lock" ] || check_locks "$work/flock.log" "$lock" "$work/out/results/tests.tsv"
}

# The samples of a class, and the labs they need.
make_class() {
  work=$1
  shift
  rm -rf "$work"
  mkdir -p "$work/class"
  labs=""
  for sample in "$@"; do
    make_submission "$sample" "$sample/expected" "$work/class" "$(basename "$sample")" > /dev/null || exit 1
    labs="$labs $(key "$sample/expected" lab)"
  done
  rm -rf "$work/class/.pack"
  labs=$(echo "$labs" | tr ' ' '\n' | sort -u | tr '\n' ' ')
}

# The class's reports: class.csv has a header and one row per student, each
# student's statuses are as expected, the ungraded are counted, and a student
# without a result is named.
check_class() {
  out=$1 collector=$2
  shift 2
  folders=$(for sample in "$@"; do printf '%s ' "$out/$(basename "$sample")"; done)
  # shellcheck disable=SC2086 # the output folders have no spaces
  want_rc=$(want_exit $folders)
  ungraded_count=$(for folder in $folders; do ! ungraded "$folder" || echo; done | wc -l)
  $collector "$out" > "$out/collect.log" 2>&1
  rc=$?
  [ $rc -eq "$want_rc" ] || { cat "$out/collect.log" >&2; fail "$collector exited $rc, want $want_rc"; }
  grep -q "$ungraded_count of them ungraded" "$out/collect.log" ||
    { cat "$out/collect.log" >&2; fail "$collector did not count $ungraded_count ungraded"; }
  csv=$out/class.csv
  [ "$(wc -l < "$csv")" -eq $(($# + 1)) ] || { cat "$csv" >&2; fail "$csv: want a header and $# rows"; }
  for sample in "$@"; do
    id=$(basename "$sample")
    grep -q "^\"\{0,1\}$id\"\{0,1\}," "$csv" || fail "$csv has no row for $id"
    echo "$id:"
    compare "$sample/expected" "$out/$id" || fail "$id: unexpected statuses"
  done
  # Take one student's result away: collecting must name it and fail.
  id=$(basename "$1")
  mv "$out/$id/row.csv" "$out/$id/row.csv.away"
  $collector "$out" > "$out/collect.log" 2>&1
  rc=$?
  [ $rc -eq 1 ] || fail "$collector exited $rc with $id's result missing, want 1"
  grep -q "$id" "$out/collect.log" || fail "$collector did not name $id: $out/collect.log"
  mv "$out/$id/row.csv.away" "$out/$id/row.csv"
  $collector "$out" > "$out/collect.log" 2>&1
  rc=$?
  [ $rc -eq "$want_rc" ] || { cat "$out/collect.log" >&2; fail "$collector exited $rc, want $want_rc"; }
}

if [ "${1:-}" = ratio ]; then
  [ $# -eq 2 ] || [ $# -eq 3 ] || fail "usage: check.sh ratio VERDICT [V/W]"
  got=$(speed_ratio "$2" "${3:-}")
  [ -n "$got" ] || fail "$2 gives no ${3:-vs_peer}"
  echo "$got"
  exit 0
fi
[ $# -ge 3 ] || fail "usage: check.sh sample|class|slurm TREE ..."
mode=$1 tree=$2
shift 2
# Grading refuses where no sandbox can be made (no bubblewrap): skipped, not passed.
why=$(sh "$tree/grading/sandbox" check 2>&1) || { echo "$why: skipped"; exit 77; }
case $mode in
  sample)
    [ $# -eq 3 ] || fail "usage: check.sh sample TREE SAMPLE EXPECTED WORK"
    check_sample "$1" "$2" "$3" ;;
  class)
    work=$1
    shift
    make_class "$work" "$@"
    # Two workers share one GPU, so they share its lock. Where there is none,
    # grade-class is shown one all the same, by an id that names no device:
    # its lock is taken, and the GPU tests skip.
    gpu_present || { CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000; export CUDA_VISIBLE_DEVICES; }
    "$tree/grading/grade-class" "$work/class" "$work/out" --gpus 1 --jobs 2 --labs "$labs" 2> "$work/class.log"
    rc=$?
    cat "$work/class.log" >&2
    # Each student's end counts the class done so far and estimates the rest.
    for k in $(seq $#); do
      grep -q "($k of $# done; .* so far, about .* left)" "$work/class.log" ||
        fail "grade-class did not say '$k of $# done' with the time so far and left: $work/class.log"
    done
    for sample in "$@"; do
      grep -q '^grade: a shared GPU: the timing and large tests hold .*/gpu-.*\.lock alone' "$work/out/$(basename "$sample")/grade.log" ||
        fail "$(basename "$sample") was not graded under its GPU's lock"
    done
    folders=$(for sample in "$@"; do printf '%s ' "$work/out/$(basename "$sample")"; done)
    # shellcheck disable=SC2086 # the output folders have no spaces
    want=$(want_exit $folders)
    [ $rc -eq "$want" ] || fail "grading/grade-class exited $rc, want $want"
    check_class "$work/out" "$tree/grading/grade-class --collect" "$@" ;;
  slurm)
    work=$1
    shift
    if ! command -v sbatch >/dev/null 2>&1 || ! sinfo -h -o %t 2>/dev/null | grep -Eq '^(idle|mix|alloc)$'; then
      echo "no Slurm node answers here (.ci/run starts one): skipped"
      exit 77
    fi
    make_class "$work" "$@"
    job=$("$tree/grading/slurm/submit.sh" "$work/class" "$work/out" --no-gres --cpus 1 \
      --time 30 --max-parallel 2 -- --labs "$labs") || fail "submit.sh failed"
    echo "job $job"
    waited=0
    while [ -n "$(squeue -h -j "$job" -o %i 2>/dev/null)" ]; do
      if [ $waited -ge 1500 ]; then
        scancel "$job"
        fail "job $job did not finish within $waited s"
      fi
      sleep 5
      waited=$((waited + 5))
    done
    echo "job $job done after about $waited s"
    check_class "$work/out" "$tree/grading/slurm/collect.sh" "$@" ;;
  *) fail "unknown mode $mode" ;;
esac
