#!/bin/sh
# Host tests of tools/counters.sh, tools/counters-table.py and
# tools/plot-results.py; tests/tools/CMakeLists.txt registers one CTest test
# per case. No GPU is needed: counters.sh runs against fixtures/fake-ncu and
# fixtures/fake-runner, which replay a real profile of lab 01 on an H100.
# fixtures/counters/*.csv are what ncu 2025.3.1 wrote for v0 and v1 at 2^24,
# from the last three L2 flushes on and trimmed to the metrics asked for. That
# profile took the stall reasons per warp (smsp__average_warp_latency_issue_stalled_*);
# their columns here are those values per instruction (x warps / instructions),
# under the names asked for now. It lacked the predicated-on ratio, so the
# table shows n/a there, as it must for a metric the CSV lacks.
#
#   check.sh table PYTHON TREE WORK              the table of fixtures/counters/manifest.tsv
#                                                is fixtures/counters/expected/
#   check.sh table-refuses PYTHON TREE WORK CSV  a CSV it cannot use: exit 2, nothing written
#   check.sh counters PYTHON TREE WORK CASE      counters.sh end to end: CASE is ok (one
#                                                variant fails: exit 1, table written), no-ncu,
#                                                no-permission or no-device (exit 77), usage (exit 2)
#   check.sh plot PYTHON TREE WORK JSON FILE...  plot-results.py writes FILE... from JSON, an SVG
#                                                each, the same twice (77: no matplotlib)
#   check.sh plot-wrong PYTHON TREE WORK         a variant that failed its check is marked, not drawn
#   check.sh plot-refuses PYTHON TREE WORK       a bad command line or JSON: exit 2, nothing written
#
# After a deliberate change of the table, rewrite expected/ with
#   tools/counters-table.py --manifest tests/tools/fixtures/counters/manifest.tsv \
#     --lab 01-dot-product --size 2^24 --ncu 2025.3.1.0 \
#     --md tests/tools/fixtures/counters/expected/01-dot-product-counters.md \
#     --csv tests/tools/fixtures/counters/expected/01-dot-product-counters.csv
# and read the diff before committing it.
set -u

fail() {
  echo "check.sh: $*" >&2
  exit 1
}

# expect_exit CODE LOG COMMAND...: runs COMMAND, its output to LOG, and fails unless it exits with CODE.
expect_exit() {
  want=$1 log=$2
  shift 2
  "$@" >"$log" 2>&1
  got=$?
  cat "$log"
  [ "$got" -eq "$want" ] || fail "expected exit code $want, got $got from: $*"
}

same() {
  cmp -s "$1" "$2" || { diff -u "$1" "$2"; fail "$2 differs from $1"; }
}

[ $# -ge 4 ] || fail "usage: check.sh MODE PYTHON TREE WORK [...]"
mode=$1 python=$2 tree=$3 work=$4
shift 4
fixtures=$tree/tests/tools/fixtures
rm -rf "$work"
mkdir -p "$work" || fail "cannot make $work"

case $mode in
  table)
    expect_exit 0 "$work/log" "$python" "$tree/tools/counters-table.py" \
      --manifest "$fixtures/counters/manifest.tsv" --lab 01-dot-product --size 2^24 \
      --ncu 2025.3.1.0 --md "$work/01-dot-product-counters.md" --csv "$work/01-dot-product-counters.csv"
    same "$fixtures/counters/expected/01-dot-product-counters.md" "$work/01-dot-product-counters.md"
    same "$fixtures/counters/expected/01-dot-product-counters.csv" "$work/01-dot-product-counters.csv"
    ;;
  table-refuses)
    cp "$fixtures/counters/$1" "$work/" || fail "no fixture $1"
    printf '0\tv0-serial\t%s\n' "$1" >"$work/manifest.tsv"
    expect_exit 2 "$work/log" "$python" "$tree/tools/counters-table.py" --manifest "$work/manifest.tsv" \
      --lab 01-dot-product --size 2^24 --md "$work/out.md" --csv "$work/out.csv"
    grep -q "^error: .*$1" "$work/log" || fail "no message naming $1"
    if [ -e "$work/out.md" ] || [ -e "$work/out.csv" ]; then fail "a refused input still wrote a table"; fi
    ;;
  counters)
    mkdir -p "$work/bin"
    cp "$fixtures/fake-runner" "$work/bin/01-dot-product"
    run() {
      env PYTHON="$python" NCU="$fixtures/fake-ncu" FAKE_NCU_CSVS="$fixtures/counters" "$@" \
        sh "$tree/tools/counters.sh" --bin "$work/bin" 01-dot-product "$work/out"
    }
    case $1 in
      ok)
        expect_exit 1 "$work/log" run FAKE_NCU_FAIL=v2-kahan
        grep -q "^FAIL v2-kahan: ncu or the runner exited with 1" "$work/log" ||
          fail "v2-kahan's failure not reported"
        for file in 01-dot-product-counters.md 01-dot-product-counters.csv; do
          same "$fixtures/counters/expected/$file" "$work/out/$file"
        done
        ;;
      no-ncu)
        expect_exit 77 "$work/log" run NCU="$work/no-such-ncu"
        grep -q "ncu (Nsight Compute) not found" "$work/log" || fail "no message"
        ;;
      no-permission)
        expect_exit 77 "$work/log" run FAKE_NCU_PERM=1
        grep -q "ERR_NVGPUCTRPERM" "$work/log" || fail "no message"
        [ ! -e "$work/out/01-dot-product-counters.md" ] || fail "a table without counters"
        ;;
      no-device)
        expect_exit 77 "$work/log" run FAKE_RUNNER_NO_DEVICE=1
        grep -q "no CUDA device" "$work/log" || fail "no message"
        ;;
      usage)
        for args in "" "--size" "--frobnicate 01-dot-product" "99-no-such-lab" "../01-dot-product" \
                    "01-dot-product out extra" "--bin $work/empty 01-dot-product"; do
          # shellcheck disable=SC2086 # each case is several arguments
          expect_exit 2 "$work/log" sh "$tree/tools/counters.sh" $args
          grep -q "^usage: " "$work/log" || fail "no usage line for: $args"
        done
        ;;
      *) fail "no counters case $1" ;;
    esac
    ;;
  plot)
    json=$1
    shift
    mkdir -p "$work/a" "$work/b"
    "$python" "$tree/tools/plot-results.py" --sm-clock-mhz 1980 "$json" "$work/a"
    code=$?
    [ $code -eq 77 ] && exit 77
    [ $code -eq 0 ] || fail "plot-results.py exited with $code"
    expect_exit 0 "$work/log" "$python" "$tree/tools/plot-results.py" --sm-clock-mhz 1980 "$json" "$work/b"
    for file in "$@"; do
      head -c 200 "$work/a/$file" | grep -q "<svg" || fail "$file is not an SVG"
      grep -q "NVIDIA H100 80GB HBM3" "$work/a/$file" || fail "$file has no GPU name"
      same "$work/a/$file" "$work/b/$file"
    done
    # shellcheck disable=SC2012 # the names are the lab's, plain
    [ "$(ls "$work/a" | wc -l)" -eq $# ] || fail "other files than $*: $(ls "$work/a")"
    ;;
  plot-wrong)
    sed '/"v1-interleaved"/s/"ran": true, "correct": true/"ran": false, "correct": false/' \
      "$tree/docs/results/01-dot-product.json" >"$work/wrong.json"
    grep -q '"ran": false' "$work/wrong.json" || fail "the fixture's edit did not apply"
    "$python" "$tree/tools/plot-results.py" "$work/wrong.json" "$work"
    code=$?
    [ $code -eq 77 ] && exit 77
    [ $code -eq 0 ] || fail "plot-results.py exited with $code"
    grep -q '>wrong<' "$work/01-dot-product-staircase.svg" || fail "the wrong variant is not marked"
    ;;
  plot-refuses)
    good=$tree/docs/results/01-dot-product.json
    printf '{"lab": "01-dot-product", "title": ' >"$work/truncated.json"
    sed 's/"copy_gbps": [0-9.]*/"copy_gbps": "fast"/' "$good" >"$work/text-rate.json"
    sed 's/"lab": "01-dot-product"/"lab": "..\/escape"/' "$good" >"$work/bad-lab.json"
    sed 's/"variants": \[/"variantz": [/' "$good" >"$work/no-variants.json"
    mkdir -p "$work/out"
    for args in "" "$good" "$work/no-such.json $work/out" "$work/truncated.json $work/out" \
                "$work/text-rate.json $work/out" "$work/bad-lab.json $work/out" \
                "$work/no-variants.json $work/out" "$good $work/no-such-folder" \
                "--sm-clock-mhz -5 $good $work/out"; do
      # shellcheck disable=SC2086 # each case is several arguments
      expect_exit 2 "$work/log" "$python" "$tree/tools/plot-results.py" $args
    done
    [ -z "$(ls "$work/out")" ] || fail "a refused input still wrote $(ls "$work/out")"
    ;;
  *) fail "no mode $mode" ;;
esac
echo "check.sh $mode ${1:-}: passed"
