#!/bin/sh
# Host tests of tools/student-copy.sh; tests/tools/CMakeLists.txt registers
# one CTest test per case (the check preset's: a copy needs solutions/ to be
# checked against).
#
#   student-copy.sh guided|challenge TREE WORK CMAKE CTEST MAKE_PROGRAM
#       makes the copy of that level in WORK/copy and checks it: it holds the
#       level's files as labs/ and everything the student preset builds; it
#       lacks every path of tools/instructor-only.txt, the other level (no
#       file the same as one of its files) and any two consecutive lines of
#       code from a solution's SOLUTION regions that no student file holds
#       (the answers); the copy, not a git checkout, refuses to make another
#       (exit 1); the student preset configures there, builds lab 01 and its
#       host test passes; the check preset (guided) or the challenge preset
#       (challenge) refuses to configure, saying why.
#       CUDAARCHS and CUDACXX (the build's, from CMakeLists.txt) pass on;
#       MAKE_PROGRAM is the build's Ninja.
#   student-copy.sh refuses TREE WORK
#       bad usage: exit 2 and a message, nothing written or removed: a DEST
#       that holds a file, a DEST that is a file, a DEST whose parent is
#       missing, no DEST, two, an unknown level or option.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u

fail() {
  echo "student-copy.sh: $*" >&2
  exit 1
}

# run CODE COMMAND...: runs COMMAND, its output to $work/log, and fails unless it exits with CODE.
run() {
  want=$1
  shift
  "$@" > "$work/log" 2>&1
  got=$?
  cat "$work/log"
  [ "$got" -eq "$want" ] || fail "expected exit code $want, got $got from: $*"
}

has() {
  grep -q -- "$2" "$1" || fail "$1 lacks '$2'"
}

[ $# -ge 3 ] || fail "usage: student-copy.sh guided|challenge|refuses TREE WORK [CMAKE CTEST MAKE_PROGRAM]"
mode=$1 tree=$2 work=$3
copy_tool=$tree/tools/student-copy.sh
rm -rf "$work"
mkdir -p "$work" || exit 1

case $mode in
  refuses)
    mkdir "$work/full"
    echo "the user's" > "$work/full/notes.txt"
    echo "the user's" > "$work/a-file"
    check_refused() {  # MESSAGE ARGUMENT...
      message=$1
      shift
      run 2 sh "$copy_tool" "$@"
      has "$work/log" "$message"
    }
    check_refused "$work/full is not empty" "$work/full"
    check_refused "$work/full is not empty" --level challenge "$work/full"
    if [ "$(ls -A "$work/full")" != notes.txt ] || [ "$(cat "$work/full/notes.txt")" != "the user's" ]; then
      fail "a refused copy changed $work/full"
    fi
    check_refused "exists and is not a folder" "$work/a-file"
    [ "$(cat "$work/a-file")" = "the user's" ] || fail "a refused copy changed $work/a-file"
    check_refused "no folder $work/none" "$work/none/copy"
    [ ! -e "$work/none" ] || fail "a refused copy made $work/none"
    check_refused "no DEST given"
    check_refused "one DEST, not" "$work/one" "$work/two"
    check_refused "unknown level 'expert'" --level expert "$work/one"
    check_refused "--level needs guided or challenge" --level
    check_refused "unknown option --solutions" --solutions "$work/one"
    for dest in "$work/one" "$work/two"; do
      [ ! -e "$dest" ] || fail "a refused copy wrote $dest"
    done
    echo "every refusal passed" ;;

  guided | challenge)
    [ $# -eq 6 ] || fail "usage: student-copy.sh $mode TREE WORK CMAKE CTEST MAKE_PROGRAM"
    cmake=$4 ctest=$5 make_program=$6
    copy=$work/copy
    if [ "$mode" = guided ]; then level_dir=labs other_dir=labs-challenge
    else level_dir=labs-challenge other_dir=labs; fi
    run 0 sh "$copy_tool" --level "$mode" "$copy"

    # What it holds: the level's file of every lab, as labs/, and the tree the student preset builds.
    for solution in "$tree"/solutions/[0-9][0-9]-*/*.cu; do
      lab=$(basename "$(dirname "$solution")") file=$(basename "$solution")
      cmp -s "$tree/$level_dir/$lab/$file" "$copy/labs/$lab/$file" ||
        fail "the copy's labs/$lab/$file is not $level_dir/$lab/$file"
      cmp -s "$tree/labs/$lab/$file" "$tree/labs-challenge/$lab/$file" &&
        fail "labs/$lab/$file and labs-challenge/$lab/$file are the same: the levels cannot be told apart"
      [ -f "$copy/tests/$lab/CMakeLists.txt" ] || fail "the copy lacks tests/$lab/, the lab's grader"
    done
    for path in README.md CMakeLists.txt CMakePresets.json cmake common docs/labs grading tools; do
      [ -e "$copy/$path" ] || fail "the copy lacks $path"
    done

    # What it lacks: what tools/instructor-only.txt names, the other level.
    while read -r path _; do
      case $path in '' | '#'*) continue ;; esac
      [ ! -e "$copy/$path" ] || fail "the copy holds $path, which only the instructors' tree may"
    done < "$tree/tools/instructor-only.txt"
    [ ! -e "$copy/labs-challenge" ] || fail "the copy holds labs-challenge/"
    find "$tree/$other_dir" -type f -exec cksum {} + | awk '{ print $1, $2 }' | sort -u > "$work/other.sums"
    find "$copy" -type f -exec cksum {} + > "$work/copy.sums"
    awk 'NR == FNR { other[$1 " " $2] = 1; next } ($1 " " $2) in other { print $3 }' \
      "$work/other.sums" "$work/copy.sums" > "$work/same"
    [ ! -s "$work/same" ] || fail "the copy holds files of $other_dir/: $(cat "$work/same")"

    # The answers: each window of two consecutive code lines (blanks, comments
    # and lines of braces alone skipped; spaces squeezed) inside a solution's
    # SOLUTION regions, longer than 40 characters, that no student file of
    # either level holds. The solutions themselves must hold some, or the scan
    # would find nothing anywhere.
    cat > "$work/answers.awk" << 'EOF'
function squeeze(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); gsub(/[ \t]+/, " ", s); return s }
FNR == 1 { prev = ""; inside = 0 }
{ line = squeeze($0) }
phase == "answers" && line ~ /BEGIN SOLUTION/ { inside = 1; prev = ""; next }
phase == "answers" && line ~ /END SOLUTION/ { inside = 0; next }
line ~ /^[{}();]*$/ || line ~ /^\/\// || (phase == "answers" && !inside) { next }
prev != "" {
  window = prev "\n" line
  if (phase == "answers" && length(window) > 40) answer[window] = 1
  else if (phase == "given") delete answer[window]
  else if (phase == "scan" && (window in answer)) print FILENAME ":" FNR ": " prev " / " line
}
{ prev = line }
EOF
    scan() {  # prints each answer found in the files named on stdin, each ended by a NUL
      xargs -0 awk -f "$work/answers.awk" phase=answers "$tree"/solutions/*/*.cu \
        phase=given "$tree"/labs/*/*.cu "$tree"/labs-challenge/*/*.cu phase=scan
    }
    for solution in "$tree"/solutions/[0-9][0-9]-*/*.cu; do
      [ -n "$(printf '%s\0' "$solution" | scan)" ] ||
        fail "the scan finds no answer in $solution: it would find none anywhere"
    done
    find "$copy" -type f -print0 | scan > "$work/answers-found"
    [ ! -s "$work/answers-found" ] || fail "the copy holds a solution's code: $(head -5 "$work/answers-found")"

    # The copy is no checkout: it refuses to make a copy of its own.
    run 1 sh "$copy/tools/student-copy.sh" "$work/copy-of-copy"
    has "$work/log" "is not a git checkout"

    # The students' workflow: configure, build lab 01, its host test.
    cd "$copy" || exit 1
    run 0 "$cmake" --preset student -DCMAKE_MAKE_PROGRAM="$make_program"
    run 0 "$cmake" --build --preset student --target 01-dot-product
    run 0 "$ctest" --preset student -R '^01-dot-product\.variants$'
    has "$work/log" "100% tests passed"
    # A preset the copy cannot serve refuses, saying why: the check preset (the solutions'
    # refusal is the same), and the challenge preset, whose files are labs/ here.
    if [ "$mode" = guided ]; then refused=check; else refused=challenge; fi
    run 1 "$cmake" --preset "$refused" -DCMAKE_MAKE_PROGRAM="$make_program"
    has "$work/log" "which this tree does not have"
    echo "the $mode copy holds what it must and nothing it must not, and builds" ;;

  *) fail "unknown mode $mode" ;;
esac
