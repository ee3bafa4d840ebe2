#!/bin/sh
# Host tests of the grading commands' guards: what grading/grade and
# grading/grade-class do with their output folders, what grading/grade does
# with archives (limits, names) and with misnamed files, and how
# grading/gradescope/make-bundle.sh checks its options; what the
# sandbox (grading/sandbox) lets a program see and do; and the speeds the
# samples' ratio lines read from a perf verdict (tests/submissions/check.sh
# ratio; the verdict is lab 01's from a grading on an H200); and how
# grading/run-test counts a test's time where gradings share a GPU lock
# (lock). None needs a GPU:
# grading/grade runs with --stage-only, which takes the files and stops, or
# stops before building. tests/grading/CMakeLists.txt registers one CTest test
# per group.
#
#   cli.sh output|class|limits|names|bundle|sandbox|ratio|lock TREE WORK
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u

fail() {
  echo "cli.sh: $*" >&2
  exit 1
}

[ $# -eq 3 ] || fail "usage: cli.sh output|class|limits|names|bundle|sandbox|ratio|lock TREE WORK"
group=$1 tree=$2 work=$3
grade=$tree/grading/grade
tab=$(printf '\t')
nl='
'
rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"

# run WANT_RC COMMAND...: runs it, output in $work/log; fails unless it exits WANT_RC.
run() {
  want=$1
  shift
  "$@" > "$work/log" 2>&1 < /dev/null
  rc=$?
  [ $rc -eq "$want" ] || { cat "$work/log" >&2; fail "exit $rc, want $want: $*"; }
}

# has FILE TEXT: FILE holds TEXT (a fixed string).
has() {
  grep -qF -- "$2" "$1" 2>/dev/null || { cat "$1" >&2; fail "$1 does not say: $2"; }
}

lacks() {
  ! grep -qiE -- "$2" "$1" 2>/dev/null || { cat "$1" >&2; fail "$1 must not say: $2"; }
}

# A lab file of the given lab, from the skeleton.
lab_file() {
  set -- "$tree/labs/$1/"*.cu
  [ -f "$1" ] || fail "no lab file in $tree/labs"
  printf '%s\n' "$1"
}

# zip_of DIR ZIP: DIR's contents (not DIR itself) zipped.
zip_of() {
  (zip=$2 && cd "$1" && set -- * && cmake -E tar cf "$zip" --format=zip -- "$@") || fail "cannot zip $1"
}

dot=$(lab_file 01-dot-product)
case $group in
  output)
    mkdir -p "$work/in"
    cp "$dot" "$work/in/" || fail "cannot copy $dot"

    # A folder of someone else's files, like docs/ with its results/: refused, untouched.
    mkdir -p "$work/docs/results"
    echo "measured" > "$work/docs/results/keep.md"
    echo "readme" > "$work/docs/README.md"
    run 2 "$grade" "$work/in" "$work/docs" --stage-only
    has "$work/log" "holds files that grading/grade did not write"
    has "$work/docs/results/keep.md" "measured"
    has "$work/docs/README.md" "readme"
    [ "$(cd "$work/docs" && find . | LC_ALL=C sort | tr '\n' ' ')" = ". ./README.md ./results ./results/keep.md " ] ||
      fail "grading/grade changed $work/docs: $(cd "$work/docs" && find .)"

    # A folder that is not there is made; an empty one is adopted.
    run 0 "$grade" "$work/in" "$work/new" --stage-only --labs 01-dot-product
    [ -f "$work/new/staged/01-dot-product/$(basename "$dot")" ] || fail "nothing staged in $work/new"
    mkdir "$work/empty"
    run 0 "$grade" "$work/in" "$work/empty" --stage-only --labs 01-dot-product
    [ -f "$work/empty/staged/01-dot-product/$(basename "$dot")" ] || fail "nothing staged in $work/empty"

    # A re-grade into its own folder replaces what it wrote there, and only that.
    echo "mine" > "$work/empty/notes.txt"
    red=$(lab_file 02-reduction)
    mkdir -p "$work/in2"
    cp "$red" "$work/in2/" || fail "cannot copy $red"
    run 0 "$grade" "$work/in2" "$work/empty" --stage-only --labs 02-reduction
    [ -f "$work/empty/staged/02-reduction/$(basename "$red")" ] || fail "the re-grade staged nothing"
    [ ! -e "$work/empty/staged/01-dot-product" ] || fail "the re-grade left the earlier grading's staged files"
    has "$work/empty/notes.txt" "mine"
    echo "every output folder check passed" ;;

  class)
    # grade-class's output folder, by grading/grade's rule: --list-only writes
    # submissions.txt and stops, so none of this builds or needs a GPU.
    class=$tree/grading/grade-class
    mkdir -p "$work/subs/alice" "$work/subs/bob" "$work/none"
    cp "$dot" "$work/subs/alice/" || fail "cannot copy $dot"
    cp "$dot" "$work/subs/bob/" || fail "cannot copy $dot"
    # Refused, nothing made: no submissions, a bad option, or a worker count
    # the GPUs cannot have.
    run 2 "$class" "$work/none" "$work/out-none"
    has "$work/log" "no submissions in $work/none"
    run 2 "$class" "$work/subs" "$work/out-bad" --budget ten
    run 2 "$class" "$work/subs" "$work/out-gpus" --gpus 99
    has "$work/log" "--gpus 99, but only"
    run 2 "$class" "$work/subs" "$work/out-tests" --tests '01-dot-product.v*;true'
    has "$work/log" "--tests takes globs of test names"
    for out in out-none out-bad out-gpus out-tests; do
      [ ! -e "$work/$out" ] || fail "grade-class, refused, still made $work/$out"
    done

    # A folder of someone else's files: refused, untouched, a class.csv there kept.
    mkdir -p "$work/mine"
    echo "my own" > "$work/mine/class.csv"
    run 2 "$class" --list-only "$work/subs" "$work/mine"
    has "$work/log" "holds files that grade-class did not write"
    run 2 "$class" "$work/subs" "$work/mine" --gpus 0
    [ "$(ls -A "$work/mine")" = class.csv ] || fail "grade-class wrote in $work/mine: $(ls -A "$work/mine")"
    has "$work/mine/class.csv" "my own"
    # Nor does it read or collect into one it did not make.
    cp "$work/mine/class.csv" "$work/mine/submissions.txt"
    run 2 "$class" --collect "$work/mine"
    has "$work/log" "not a grade-class output folder"
    run 2 "$class" --task 0 "$work/mine"
    has "$work/log" "not a grade-class output folder"
    has "$work/mine/class.csv" "my own"

    # A new folder is made and marked, an empty one adopted; each lists the
    # class, and a folder it marked it takes again.
    run 0 "$class" --list-only "$work/subs" "$work/new"
    [ -f "$work/new/.pp-grade-class" ] || fail "grade-class did not mark $work/new"
    [ "$(wc -l < "$work/new/submissions.txt")" -eq 2 ] || fail "$work/new/submissions.txt: $(cat "$work/new/submissions.txt")"
    mkdir "$work/empty"
    run 0 "$class" --list-only "$work/subs" "$work/empty"
    [ -f "$work/empty/.pp-grade-class" ] || fail "grade-class did not mark $work/empty"
    echo "notes" > "$work/new/notes.txt"
    run 0 "$class" --list-only "$work/subs" "$work/new"
    has "$work/new/notes.txt" "notes"

    # --tests reaches grading/grade whole, its globs unmatched against the
    # files where grade-class runs (one here would match): the tests left out
    # are missing, the others run (without a GPU its GPU tests skip: 3; on
    # one, the skeleton's sweeps fail).
    mkdir -p "$work/one/alice"
    cp "$dot" "$work/one/alice/" || fail "cannot copy $dot"
    : > "$work/01-dot-product.vfile"
    (cd "$work" && "$class" "$work/one" "$work/graded" --labs 01-dot-product \
      --tests "01-dot-product.v*" > "$work/log" 2>&1 < /dev/null)
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat "$work/log" >&2; fail "grade-class --tests exited $rc"; }
    tsv=$work/graded/alice/results/tests.tsv
    has "$tsv" "01-dot-product.build${tab}pass"
    has "$tsv" "01-dot-product.perf${tab}missing"
    grep -q "^01-dot-product.v1-interleaved$tab\(pass\|fail\|skip\)$tab" "$tsv" || fail "$tsv: v1 did not run"
    ! grep -q 'matches no test' "$work/graded/alice/grade.log" || fail "grade-class --tests: a glob was matched against files"
    echo "every grade-class output folder check passed" ;;

  limits)
    name=$(basename "$dot")
    # One lab file of 2 MiB in a zip of a few kilobytes: over the 1 MiB default
    # for one file, refused from the listing, before anything is unpacked.
    mkdir -p "$work/big"
    head -c 2097152 /dev/zero > "$work/big/$name"
    zip_of "$work/big" "$work/big.zip"
    run 0 "$grade" "$work/big.zip" "$work/out-big" --stage-only --labs 01-dot-product
    has "$work/out-big/results/01-dot-product.build.log" "$name is 2097152 bytes, more than the limit of 1048576 for one file (--max-file)"
    has "$work/out-big/results/01-dot-product.build.log" "refused before unpacking"
    has "$work/out-big/results/submission.txt" "note big.zip"
    [ ! -e "$work/out-big/results/unpack.log" ] || fail "big.zip was unpacked"
    [ ! -e "$work/out-big/staged/01-dot-product" ] || fail "a file over the limit was staged"
    # The same zip within a larger limit, from the environment.
    PP_GRADE_MAX_FILE=3M run 0 "$grade" "$work/big.zip" "$work/out-big-ok" --stage-only --labs 01-dot-product
    [ -f "$work/out-big-ok/staged/01-dot-product/$name" ] || fail "big.zip was refused under a 3M limit"

    # The total and the number of entries, set by option and by environment.
    mkdir -p "$work/many"
    for i in 1 2 3 4 5; do head -c 30000 /dev/zero > "$work/many/notes$i.txt"; done
    cp "$dot" "$work/many/"
    zip_of "$work/many" "$work/many.zip"
    run 0 "$grade" "$work/many.zip" "$work/out-total" --stage-only --labs 01-dot-product --max-total 100K
    has "$work/out-total/results/01-dot-product.build.log" "more than the limit of 102400 bytes in all (--max-total)"
    PP_GRADE_MAX_ENTRIES=5 run 0 "$grade" "$work/many.zip" "$work/out-entries" --stage-only --labs 01-dot-product
    has "$work/out-entries/results/01-dot-product.build.log" "more than 5 files and folders, the limit (--max-entries)"
    run 0 "$grade" "$work/many.zip" "$work/out-many-ok" --stage-only --labs 01-dot-product
    [ -f "$work/out-many-ok/staged/01-dot-product/$name" ] || fail "many.zip was refused within the limits"

    # A listing that lies: a tar whose owner name reads like the columns of
    # the listing, so that the 3 MB file lists as 7 bytes. The limit holds
    # while unpacking.
    mkdir -p "$work/lie"
    head -c 3000000 /dev/zero > "$work/lie/$name"
    (cd "$work/lie" && cmake -E tar cf "$work/lie.tar" "$name") || fail "tar failed"
    dd if=/dev/zero of="$work/lie.tar" bs=1 seek=265 count=32 conv=notrunc 2>/dev/null
    printf 'u g 7 1 Jan 00:00' | dd of="$work/lie.tar" bs=1 seek=265 conv=notrunc 2>/dev/null
    printf '        ' | dd of="$work/lie.tar" bs=1 seek=148 conv=notrunc 2>/dev/null
    sum=$(head -c 512 "$work/lie.tar" | od -An -v -tu1 | awk '{ for (i = 1; i <= NF; ++i) s += $i } END { print s }')
    printf '%06o\000 ' "$sum" | dd of="$work/lie.tar" bs=1 seek=148 conv=notrunc 2>/dev/null
    LC_ALL=C cmake -E tar tvf "$work/lie.tar" > "$work/lie.list" 2>&1
    has "$work/lie.list" "u g 7 1 Jan 00:00"
    run 0 "$grade" "$work/lie.tar" "$work/out-lie" --stage-only --labs 01-dot-product
    # Refused while unpacking (the file limit stops it), or, where this
    # machine's tar will not unpack such a header at all, before: either way
    # nothing of it is taken.
    grep -qE "while unpacking|could not be unpacked" "$work/out-lie/results/01-dot-product.build.log" ||
      fail "lie.tar was not refused: $(cat "$work/out-lie/results/01-dot-product.build.log")"
    [ ! -e "$work/out-lie/staged/01-dot-product" ] || fail "lie.tar's files were staged"
    [ -e "$work/out-lie/results/unpack.log" ] || fail "lie.tar was refused before unpacking: the test no longer tests the unpacking"
    [ ! -e "$work/out-lie/staged/01-dot-product" ] || fail "a file over the limit was staged"

    # A folder's lab file over the limit is not taken either.
    run 0 "$grade" "$work/big" "$work/out-folder" --stage-only --labs 01-dot-product
    has "$work/out-folder/results/01-dot-product.build.log" "more than the limit of 1048576 for one file (--max-file)"
    [ ! -e "$work/out-folder/staged/01-dot-product" ] || fail "a file over the limit was staged"

    # Limits that are not sizes or counts: bad usage.
    run 2 "$grade" "$work/big.zip" "$work/out-bad" --stage-only --max-file lots
    has "$work/log" "--max-file takes a size"
    run 2 "$grade" "$work/big.zip" "$work/out-bad" --stage-only --max-entries 0
    PP_GRADE_MAX_TOTAL=8X run 2 "$grade" "$work/big.zip" "$work/out-bad" --stage-only
    has "$work/log" "PP_GRADE_MAX_TOTAL takes a size"
    # And a number of compilations and tests at once that is not one.
    for parallel in 0 many -3 ""; do
      run 2 "$grade" "$work/big.zip" "$work/out-bad" --stage-only --parallel "$parallel"
      has "$work/log" "--parallel takes a whole number from 1 to 9999, not '$parallel'"
    done
    # And a budget that is not a whole number of seconds from 1 to 999999, by option or environment.
    for budget in 0 -5 1.5 ten 1000000 ""; do
      run 2 "$grade" "$work/big.zip" "$work/out-bad" --budget "$budget"
      has "$work/log" "--budget takes a whole number of seconds from 1 to 999999, not '$budget'"
      run 2 "$grade" --check-options --budget "$budget"
    done
    PP_GRADE_BUDGET=soon run 2 "$grade" "$work/big.zip" "$work/out-bad"
    has "$work/log" "PP_GRADE_BUDGET takes a whole number of seconds"
    run 0 "$grade" --check-options --parallel 4 --budget 300
    [ ! -e "$work/out-bad" ] || fail "bad usage still wrote $work/out-bad"
    # grade-class checks what it hands to grading/grade before it writes anything.
    run 2 "$tree/grading/grade-class" "$work/many" "$work/out-class" --budget 0
    has "$work/log" "--budget takes a whole number of seconds"
    run 2 "$tree/grading/grade-class" --list-only "$work/many" "$work/out-class" --budget ten
    [ ! -e "$work/out-class" ] || fail "grade-class, refused, still wrote $work/out-class"
    echo "every limit check passed" ;;

  names)
    expected=$(cd "$tree/labs" && for dir in */; do
      set -- "$dir"*.cu
      printf '%s (%s)\n' "$(basename "$1")" "${dir%/}"
    done)
    # One .cu under another name: the message names every lab's file.
    cp "$dot" "$work/my_dot.cu"
    run 0 "$grade" "$work/my_dot.cu" "$work/out-single" --stage-only
    printf '%s\n' "$expected" | while IFS= read -r want; do has "$work/log" "$want"; done || exit 1
    lacks "$work/log" "unsafe|link"

    # An archive with the file misnamed: the same, and the lab's note names its file.
    mkdir -p "$work/misnamed/alice"
    cp "$dot" "$work/misnamed/alice/dotproduct.cu"
    zip_of "$work/misnamed" "$work/misnamed.zip"
    run 0 "$grade" "$work/misnamed.zip" "$work/out-misnamed" --stage-only
    printf '%s\n' "$expected" | while IFS= read -r want; do has "$work/log" "$want"; done || exit 1
    has "$work/out-misnamed/results/01-dot-product.build.log" "the name must be exactly $(basename "$dot")"

    # Entry names with a line break or a tab: refused, and the message says why.
    for char in "$nl" "$(printf '\t')"; do
      rm -rf "$work/ctl" "$work/ctl.zip" "$work/out-ctl"
      mkdir -p "$work/ctl"
      cp "$dot" "$work/ctl/"
      echo x > "$work/ctl/a${char}b.cu"
      zip_of "$work/ctl" "$work/ctl.zip"
      run 0 "$grade" "$work/ctl.zip" "$work/out-ctl" --stage-only --labs 01-dot-product
      has "$work/out-ctl/results/01-dot-product.build.log" "an entry's name holds a control character (a line break, a tab, an escape...)"
      lacks "$work/out-ctl/results/01-dot-product.build.log" "link"
      [ ! -e "$work/out-ctl/staged/01-dot-product" ] || fail "a file was taken from a refused archive"
    done
    echo "every name check passed" ;;

  bundle)
    bundle=$tree/grading/gradescope/make-bundle.sh
    # make-bundle.sh packs the tree's committed files: a copy without .git
    # (an unpacked archive) cannot be packed, which is not what this tests.
    if ! git -C "$tree" rev-parse --git-dir >/dev/null 2>&1; then
      echo "skipped: $tree is not a git checkout"
      exit 77
    fi
    zip=$work/out/autograder.zip
    mkdir -p "$work/out"
    # Each is refused with exit code 2 and a message, and writes nothing.
    check_refused() {  # MESSAGE ARGUMENT...
      message=$1
      shift
      run 2 sh "$bundle" "$@"
      has "$work/log" "$message"
      [ ! -e "$zip" ] || fail "make-bundle.sh $* wrote $zip"
    }
    check_refused "--timeout-scale takes a positive number" "$zip" --timeout-scale abc
    check_refused "--timeout-scale takes a positive number" "$zip" --timeout-scale 0
    check_refused "--timeout-scale takes a positive number" "$zip" --timeout-scale -2
    check_refused "--timeout-scale takes a positive number" "$zip" --timeout-scale 1e3
    check_refused "--budget takes a whole number of seconds" "$zip" --budget 0
    check_refused "--budget takes a whole number of seconds" "$zip" --budget 5m
    check_refused "no lab 'no-such-lab'" "$zip" --labs no-such-lab
    check_refused "--labs needs at least one lab" "$zip" --labs ""
    check_refused "no rubric at $work/none.txt" "$zip" --rubric "$work/none.txt"
    check_refused "unknown option --frobnicate" "$zip" --frobnicate
    check_refused "--labs needs a value" "$zip" --labs
    check_refused "no folder $work/nowhere" "$work/nowhere/autograder.zip"
    check_refused "one bundle, not" "$zip" "$work/out/second.zip"
    check_refused "must end in .zip" "$work/out/autograder.tar"
    # Good options make the bundle, and its gradescope.conf holds them.
    run 0 sh "$bundle" "$zip" --labs 01-dot-product --timeout-scale 1.5 --budget 300
    mkdir -p "$work/unzipped"
    (cd "$work/unzipped" && cmake -E tar xf "$zip" gradescope.conf) || fail "no gradescope.conf in $zip"
    has "$work/unzipped/gradescope.conf" "labs 01-dot-product"
    has "$work/unzipped/gradescope.conf" "timeout-scale 1.5"
    has "$work/unzipped/gradescope.conf" "budget 300"

    # run_autograder, where the grading itself fails: results.json says so and
    # has no score (a stand-in grading/grade fails with a message to quote).
    ag=$work/autograder
    mkdir -p "$ag/source/grading" "$ag/submission"
    cp "$tree/grading/gradescope/run_autograder" "$ag/source/"
    printf '#!/bin/sh\necho "the tree did not configure: \\"quoted\\"	tab"\nexit 1\n' > "$ag/source/grading/grade"
    chmod +x "$ag/source/grading/grade"
    PP_AUTOGRADER_ROOT=$ag TMPDIR=$work run 0 sh "$ag/source/run_autograder"
    cat > "$work/json.cmake" <<'EOF'
file(READ "${JSON}" json)
string(JSON output GET "${json}" output)
string(JSON status GET "${json}" extra_data status)
string(JSON score ERROR_VARIABLE none GET "${json}" score)
string(JSON test_score ERROR_VARIABLE test_none GET "${json}" tests 0 score)
if(NOT none OR NOT test_none OR NOT status STREQUAL "ungraded" OR NOT output MATCHES "Not graded.*\"quoted\"")
  message(FATAL_ERROR "want no score, status ungraded and the log quoted: ${json}")
endif()
EOF
    cmake -DJSON="$ag/results/results.json" -P "$work/json.cmake" || fail "run_autograder's results.json after a failed grading"
    echo "every bundle option check passed" ;;

  sandbox)
    mkdir -p "$work/in"
    cp "$dot" "$work/in/" || fail "cannot copy $dot"
    # No sandbox to be had: grading refuses before it writes anything, and says what to install.
    PP_BWRAP=$work/no-such-bwrap run 2 "$grade" "$work/in" "$work/out-refused" --labs 01-dot-product
    has "$work/log" "bubblewrap"
    has "$work/log" "--no-sandbox"
    [ ! -e "$work/out-refused" ] || fail "a refused grading wrote $work/out-refused"
    sandbox=$tree/grading/sandbox
    sh "$sandbox" check > "$work/log" 2>&1 || { cat "$work/log"; echo "no sandbox can be made here: skipped"; exit 77; }

    # What a program in the box sees and may do.
    echo "outside" > "$work/secret.txt"
    box() { run "$1" sh "$sandbox" run --ro "$work/in/dot_product.cu" -- sh -c "$2"; }
    box 0 "test \"\$(id -u)\" -ne 0"                      # not root
    box 0 "grep -q '^CapEff:[[:space:]]*0*\$' /proc/self/status"   # no capabilities
    box 0 "test -r '$work/in/dot_product.cu'"              # its own files, read-only
    box 0 "! (echo x > '$work/in/dot_product.cu') 2> /dev/null"
    box 0 "! cat '$work/secret.txt'"                       # nothing else of this machine's
    box 0 "! ls '$tree/grading'"
    box 0 "! ls '$tree/solutions'"
    # Nothing of /root but the way to the box's own files, where the tree is under it.
    case $work in /root/*) toward=${work#/root/}; toward=${toward%%/*} ;; *) toward="" ;; esac
    box 0 "test -z \"\$(ls -A /root 2> /dev/null | grep -vxF '$toward')\""
    box 0 "! touch /usr/pp-sandbox-test"
    rm -f /tmp/pp-sandbox-test
    box 0 "touch /tmp/pp-sandbox-test"                     # a private /tmp
    [ ! -e /tmp/pp-sandbox-test ] || fail "the box's /tmp is this machine's"
    box 0 "test \$(ls /proc | grep -c '^[0-9]') -le 6"     # only its own processes (bwrap's, sh, ls, grep)
    box 0 "! kill -0 $$"                                   # the grader's processes are not there
    box 0 "! grep -qv '^ *lo:\\|Inter-\\| face' /proc/net/dev"  # no network but loopback
    # A daemon (setsid, in the background) ends with its box.
    box 0 "setsid sh -c 'exec -a pp-sandbox-daemon sleep 300' > /dev/null 2>&1 & sleep 0.5"
    sleep 1
    ! pgrep -f pp-sandbox-daemon > /dev/null || fail "a process outlived its sandbox: $(pgrep -af pp-sandbox-daemon)"
    # Output is capped: 16 MiB, then the writer is stopped.
    run 153 sh "$sandbox" run -- sh -c "head -c 20000000 /dev/zero" > /dev/null
    box 0 "head -c 1000000 /dev/zero > /dev/null"

    # The compile: it sees only its --ro files and the system's; the object is
    # copied out only if its dependency list names nothing else.
    cc_box() {  # WANT_RC FILE
      run "$1" sh "$sandbox" compile --ro "$2" -- cc -MD -MT "$work/obj.o" -MF "$work/obj.d" -c "$2" -o "$work/obj.o"
    }
    printf '#include <stdio.h>\nint f(void) { return 1; }\n' > "$work/ok.c"
    cc_box 0 "$work/ok.c"
    [ -s "$work/obj.o" ] && grep -q ok.c "$work/obj.d" || fail "the compile's object and dependency list were not copied out"
    rm -f "$work/obj.o"
    printf '#include "%s"\n' "$work/secret.txt" > "$work/include.c"
    cc_box 1 "$work/include.c"
    lacks "$work/log" "outside"
    [ ! -e "$work/obj.o" ] || fail "a failed compile left an object"
    printf '#include "/dev/zero"\n' > "$work/bomb.c"
    cc_box 1 "$work/bomb.c"
    # A compiler whose dependency list names a file outside: refused, with the file named.
    printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do case $1 in -o) o=$2 ;; -MF) d=$2 ;; esac; shift; done\n: > "$o"; echo "x.o: /work/elsewhere.h" > "$d"\n' > "$work/fakecc"
    chmod 755 "$work/fakecc"
    run 1 sh "$sandbox" compile --ro "$work/fakecc" -- "$work/fakecc" -MD -MF "$work/obj.d" -c x.c -o "$work/obj.o"
    has "$work/log" "/work/elsewhere.h"
    [ ! -e "$work/obj.o" ] || fail "an object whose dependency list names a file outside was copied out"
    # --sections: an object that holds a section the list does not allow is not copied out.
    printf 'allow .text\nallow .data\nallow .bss\n' > "$work/sections.txt"
    printf '#!/bin/sh\necho "refused: holds a section"; exit 1\n' > "$work/fakecheck"
    chmod 755 "$work/fakecheck"
    run 1 sh "$sandbox" compile --ro "$work/ok.c" --sections "$work/fakecheck" "$work/sections.txt" \
      -- cc -c "$work/ok.c" -o "$work/obj.o"
    has "$work/log" "refused: holds a section"
    [ ! -e "$work/obj.o" ] || fail "an object its section check refused was copied out"
    run 2 sh "$sandbox" compile --ro "$work/ok.c" --sections "$work/no-such-check" "$work/sections.txt" \
      -- cc -c "$work/ok.c" -o "$work/obj.o"                # a check that cannot run passes nothing
    [ ! -e "$work/obj.o" ] || fail "an object whose section check could not run was copied out"

    # The inspection (pp-technique's cuobjdump): its --ro files and the
    # system's, no GPU, no /sys; the listing on stdout, whole.
    run 0 sh "$sandbox" inspect --ro "$work/ok.c" -- sh -c "cat '$work/ok.c' && ! cat '$work/secret.txt' && ! ls /sys/bus && ! ls /dev/nvidiactl && ! ls '$tree/grading' && ! (echo x > '$work/ok.c')"
    has "$work/log" "int f(void) { return 1; }"
    lacks "$work/log" "outside"
    sh "$sandbox" inspect --ro "$work/ok.c" -- sh -c "head -c 20000000 /dev/zero" | cmp -s -n 20000000 - /dev/zero ||
      fail "inspect cut or changed its command's stdout"
    run 2 sh "$sandbox" inspect -- true                     # nothing to read: refused
    has "$work/log" "no --ro PATH"

    # The link: in the build's folder, it sees the files its command names
    # (relative or not), and no other; its output is copied out only when it
    # succeeded.
    mkdir -p "$work/link/lib" "$work/link/bin"
    printf 'int f(void);\nint main(void) { return f() - 42; }\n' > "$work/link/main.c"
    printf 'int f(void) { return 42; }\n' > "$work/link/lib/f.c"
    (cd "$work/link" && cc -c main.c -o main.o && cc -c lib/f.c -o lib/f.o && ar rcs lib/libf.a lib/f.o) ||
      fail "cannot build the link's inputs"
    ld_box() {  # WANT_RC ARGUMENT...
      want=$1
      shift
      (cd "$work/link" && run "$want" sh "$sandbox" link -- "$@")
    }
    ld_box 0 cc main.o lib/libf.a -o bin/prog
    "$work/link/bin/prog" || fail "the program linked in the sandbox does not run"
    rm -f "$work/link/bin/prog"
    # CMake 3.27 and later have the linker list the link's dependencies: the
    # list comes out naming the target Ninja built.
    ld_box 0 cc main.o lib/libf.a -o "bin/my prog" "-Wl,--dependency-file=bin/link.d"
    head -n 1 "$work/link/bin/link.d" | grep -qxF 'bin/my\ prog: \' ||
      fail "the link's dependency list does not name its target: $(head -n 1 "$work/link/bin/link.d")"
    rm -f "$work/link/bin/my prog" "$work/link/bin/link.d"
    ld_box 1 cc main.o -Wl,lib/libf.a -o bin/prog           # named inside an option only: not there
    has "$work/log" "lib/libf.a"
    [ ! -e "$work/link/bin/prog" ] || fail "a failed link left its output"
    printf '#!/bin/sh\nwhile [ $# -gt 1 ]; do [ "$1" = -o ] && o=$2; shift; done\n' > "$work/fakeld"
    printf 'test -r main.o && test -r "%s/link/lib/libf.a" && ! test -e lib/f.o && ! test -e main.c && ! cat "%s" && ! ls "%s/grading" && echo linked > "$o"\n' \
      "$work" "$work/secret.txt" "$tree" >> "$work/fakeld"
    chmod 755 "$work/fakeld"
    ld_box 0 "$work/fakeld" main.o "$work/link/lib/libf.a" -o bin/prog
    has "$work/link/bin/prog" "linked"
    lacks "$work/log" "outside"
    ld_box 2 cc @link.rsp -o bin/prog                        # a response file's files would not be seen
    has "$work/log" "response file"
    ld_box 2 cc main.o                                      # no output to copy out
    # GCC's LTO bytecode whose top-level asm includes a file outside: linked
    # as is, the assembler runs on it and finds no such file in the box; with
    # the options the runners are linked with, nothing runs on it.
    if printf '__asm__(".include \\"%s\\"");\n' "$work/secret.txt" > "$work/link/lto.c" &&
      (cd "$work/link" && cc -flto -c lto.c -o lto.o) 2> /dev/null; then
      ld_box 1 cc main.o lto.o lib/libf.a -o bin/prog
      has "$work/log" "Assembler messages"
      lacks "$work/log" "outside"
      ld_box 0 cc -fno-lto -fno-use-linker-plugin main.o lto.o lib/libf.a -o bin/prog
      lacks "$work/log" "Assembler messages|lto-wrapper|outside"
    fi
    echo "the sandbox showed a program only its own files, no process or network of this machine's, and kept its limits; a link saw only the files it named" ;;

  ratio)
    read_ratio() { sh "$tree/tests/submissions/check.sh" ratio "$@"; }
    verdict=$tree/tests/grading/fixtures/perf-verdict/01-dot-product.perf.verdict
    run 0 read_ratio "$verdict"
    [ "$(cat "$work/log")" = 1.1007 ] || { cat "$work/log" >&2; fail "vs_peer: want 1.1007"; }
    # v6's speed over v5's: v5's time over v6's (0.456263 / 0.461490).
    run 0 read_ratio "$verdict" v6-vectorized/v5-warp-shuffle
    [ "$(cat "$work/log")" = 0.9887 ] || { cat "$work/log" >&2; fail "v6/v5: want 0.9887"; }
    # A v6 that gains a tenth on v5, as work-ahead did when its cheat worked, reads above 1.05.
    awk '$1 == "time" && $2 == "v6-vectorized" { $3 = $3 * 0.9 } { print }' "$verdict" > "$work/gain.verdict"
    run 0 read_ratio "$work/gain.verdict" v6-vectorized/v5-warp-shuffle
    [ "$(cat "$work/log")" = 1.0985 ] || { cat "$work/log" >&2; fail "a gain of a tenth: want 1.0985"; }
    # A variant without a time, and a verdict without vs_peer, give nothing: refused.
    run 1 read_ratio "$verdict" v6-vectorized/v9-none
    has "$work/log" "gives no v6-vectorized/v9-none"
    grep -v '^vs_peer ' "$verdict" > "$work/no-peer.verdict"
    run 1 read_ratio "$work/no-peer.verdict"
    has "$work/log" "gives no vs_peer"
    echo "a ratio line read vs_peer and one variant's speed over another's, and refused a verdict without them" ;;

  lock)
    # run-test counts a test's seconds from when it holds its GPU lock: a lone
    # (large or timed) test that waits for another grading's lone test says so
    # in its log's first line, and its wait is not its time.
    command -v flock > /dev/null || { echo "no flock here: skipped"; exit 77; }
    results=$work/results lock=$work/gpu.lock
    mkdir -p "$results"
    run_test() {  # NAME KIND
      PP_GRADE_CGROUPS=0 PP_GRADE_GPU_LOCK=${held:-} sh "$tree/grading/run-test" "$results" "$1" "$2" 60 -- \
        sh -c 'echo status pass > "$1"' sh "$results/$1.verdict"
    }
    seconds_of() { cut -f3 "$results/$1.result"; }
    flock -x "$lock" sleep 3 &
    holder=$!
    sleep 1 # the holder has the lock
    held=$lock run 0 run_test waits.large large
    wait $holder
    has "$results/waits.large.log" "run-test: waited "
    has "$results/waits.large.log" " s for the GPU lock that gradings sharing this GPU take"
    waited=$(sed -n '1s/^run-test: waited \([0-9.]*\) s .*/\1/p' "$results/waits.large.log")
    awk -v w="${waited:-0}" 'BEGIN { exit !(w >= 1.0) }' ||
      fail "the wait of waits.large is under the second the lock was held: $(cat "$results/waits.large.log")"
    awk -v s="$(seconds_of waits.large)" 'BEGIN { exit !(s < 1.0) }' ||
      fail "waits.large took $(seconds_of waits.large) s: its wait for the lock was counted as its time"
    # Nothing held: no wait to report, with a lock or without one.
    held=$lock run 0 run_test free.quick quick
    lacks "$results/free.quick.log" "waited"
    held="" run 0 run_test unlocked.large large
    lacks "$results/unlocked.large.log" "waited"
    echo "a lone test that waited for the GPU lock said so in its log, and its seconds left the wait out" ;;

  *) fail "unknown group $group" ;;
esac
