#!/bin/sh
# Host tests of tools/counters.sh, tools/counters-table.py, tools/sweep.sh,
# tools/plot-results.py and tools/sweep-table.py; tests/tools/CMakeLists.txt
# registers one CTest test per case. No GPU is needed: counters.sh runs against fixtures/fake-ncu and
# fixtures/fake-runner, which replay a real profile of lab 01 on an H100; sweep.sh against the
# fake runner.
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
#   check.sh plot PYTHON TREE WORK JSON [--counters CSV SIZE] FILE...
#                                                plot-results.py writes FILE... from JSON (and
#                                                the counters), an SVG each, the same twice (77:
#                                                no matplotlib)
#   check.sh plot-wrong PYTHON TREE WORK         a variant that failed its check is marked, not drawn
#   check.sh plot-refuses PYTHON TREE WORK       a bad command line, JSON or counters: exit 2, nothing written
#   check.sh sweep-variants PYTHON TREE WORK     tools/sweep.sh times, at each size the runner's
#                                                --list names, in order, the variants it names
#                                                there, or those of --variant
#   check.sh sweep-table PYTHON TREE WORK        sweep-table.py's tables of fixtures/sweep/ are
#                                                fixtures/sweep/expected/; a wrong variant is left
#                                                out of "best"
#   check.sh sweep-refuses PYTHON TREE WORK      a malformed report, a mixed folder, a bad CSV or
#                                                command line: exit 2, nothing written
#   check.sh sweep-plot PYTHON TREE WORK         the table and the SVG, the same twice (77: no matplotlib)
#   check.sh results-landing PYTHON TREE WORK    each row of docs/results/README.md's tables is what
#                                                its JSON report and sweep page say
#   check.sh sweep-results PYTHON TREE WORK      each docs/results/LAB-sweep.md holds the rows that
#                                                sweep-table.py makes of docs/results/sweep/LAB/,
#                                                and so does each docs/results/h200/h200-LAB-sweep.md
#
# fixtures/sweep/ holds reports of tools/sweep.sh on the H100: lab 01 at three sizes with two of
# its variants kept, lab 05 at two shapes. After a deliberate change of the table, rewrite
# expected/ with (from the repository root)
#   f=tests/tools/fixtures
#   tools/sweep-table.py --no-svg --counters $f/counters/expected/01-dot-product-counters.csv \
#     $f/sweep/01-dot-product $f/sweep/expected
#   tools/sweep-table.py --no-svg $f/sweep/05-tiled-matmul $f/sweep/expected
# and the committed pages as docs/results/sweeps.md says; read the diffs before committing them.
#
# After a deliberate change of the table, rewrite expected/ with
#   tools/counters-table.py --manifest tests/tools/fixtures/counters/manifest.tsv \
#     --lab 01-dot-product --size 2^24 --ncu 2025.3.1.0 \
#     --md tests/tools/fixtures/counters/expected/01-dot-product-counters.md \
#     --csv tests/tools/fixtures/counters/expected/01-dot-product-counters.csv
# and read the diff before committing it.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
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
    counters=
    if [ "$1" = --counters ]; then
      counters="--counters $2 $3"
      shift 3
    fi
    mkdir -p "$work/a" "$work/b"
    # shellcheck disable=SC2086 # the option and its two values, or nothing
    "$python" "$tree/tools/plot-results.py" --sm-clock-mhz 1980 $counters "$json" "$work/a"
    code=$?
    [ $code -eq 77 ] && exit 77
    [ $code -eq 0 ] || fail "plot-results.py exited with $code"
    # shellcheck disable=SC2086 # the option and its two values, or nothing
    expect_exit 0 "$work/log" "$python" "$tree/tools/plot-results.py" --sm-clock-mhz 1980 $counters \
      "$json" "$work/b"
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
    matmul=$tree/docs/results/05-tiled-matmul.json
    printf '{"lab": "01-dot-product", "title": ' >"$work/truncated.json"
    sed 's/"copy_gbps": [0-9.]*/"copy_gbps": "fast"/' "$good" >"$work/text-rate.json"
    sed 's/"lab": "01-dot-product"/"lab": "..\/escape"/' "$good" >"$work/bad-lab.json"
    sed 's/"variants": \[/"variantz": [/' "$good" >"$work/no-variants.json"
    mkdir -p "$work/out"
    for args in "" "$good" "$work/no-such.json $work/out" "$work/truncated.json $work/out" \
                "$work/text-rate.json $work/out" "$work/bad-lab.json $work/out" \
                "$work/no-variants.json $work/out" "$good $work/no-such-folder" \
                "--sm-clock-mhz -5 $good $work/out" \
                "--counters $work/no-such.csv 2048x2048x2048 $matmul $work/out" \
                "--counters $tree/docs/results/05-tiled-matmul-counters.csv 2048 $matmul $work/out" \
                "--counters $tree/docs/results/01-dot-product-counters.csv 2048x2048x2048 $matmul $work/out"; do
      # shellcheck disable=SC2086 # each case is several arguments
      expect_exit 2 "$work/log" "$python" "$tree/tools/plot-results.py" $args
    done
    [ -z "$(ls "$work/out")" ] || fail "a refused input still wrote $(ls "$work/out")"
    ;;
  sweep-variants)
    mkdir -p "$work/bin"
    for lab in 01-dot-product 05-tiled-matmul; do cp "$fixtures/fake-runner" "$work/bin/$lab"; done
    # sweep_variants TIMED SIZES SWEEP_ARGUMENTS...: one run at each of SIZES, in order, each
    # timing variants TIMED
    sweep_variants() {
      timed=$1 sizes=$2
      shift 2
      rm -f "$work/runs"
      expect_exit 0 "$work/log" env FAKE_RUNNER_LOG="$work/runs" sh "$tree/tools/sweep.sh" \
        --bin "$work/bin" "$@" "$work/out"
      got=$(cut -d' ' -f2 "$work/runs" | sort -u)
      [ "$got" = "$timed" ] || fail "sweep.sh $*: timed variants '$got', not '$timed'"
      got=$(cut -d' ' -f4 "$work/runs" | tr '\n' ' ')
      [ "$got" = "$sizes " ] || fail "sweep.sh $*: sizes '$got', not '$sizes'"
    }
    sweep_variants 1,2 "2^10 1537 2^11 2^30" 01-dot-product
    sweep_variants 2 "4096x4096x4096 1000x999x1001 256x256x65536" 05-tiled-matmul
    sweep_variants 0 "2^10 1537 2^11 2^30" --variant 0 01-dot-product
    ;;
  sweep-table)
    # The fixtures' own layout, so that the pages' relative links come out the same.
    cp -R "$fixtures" "$work/fixtures" || fail "cannot copy the fixtures"
    f=$work/fixtures
    mkdir -p "$f/sweep/got"
    expect_exit 0 "$work/log" "$python" "$tree/tools/sweep-table.py" --no-svg \
      --counters "$f/counters/expected/01-dot-product-counters.csv" "$f/sweep/01-dot-product" "$f/sweep/got"
    expect_exit 0 "$work/log" "$python" "$tree/tools/sweep-table.py" --no-svg \
      "$f/sweep/05-tiled-matmul" "$f/sweep/got"
    for file in 01-dot-product-sweep.md 05-tiled-matmul-sweep.md; do
      same "$f/sweep/expected/$file" "$f/sweep/got/$file"
    done
    # The rows by size, smallest first, whatever the file names' order.
    rows=$(grep -o '^| [0-9^]* |' "$f/sweep/got/01-dot-product-sweep.md" | tr -d '| ' | tr '\n' ' ')
    [ "$rows" = "2^10 1537 2^30 " ] || fail "rows in the order: $rows"
    # A variant that failed its check: "wrong" in its cell, and not the best, at that size only.
    "$python" - "$f/sweep/01-dot-product/1537.json" <<'PY' || fail "cannot mark v1-interleaved wrong"
import json, sys
with open(sys.argv[1]) as f:
    report = json.load(f)
[v for v in report["variants"] if v["name"] == "v1-interleaved"][0]["correct"] = False
with open(sys.argv[1], "w") as f:
    json.dump(report, f)
PY
    expect_exit 0 "$work/log" "$python" "$tree/tools/sweep-table.py" --no-svg \
      "$f/sweep/01-dot-product" "$f/sweep/got"
    page=$f/sweep/got/01-dot-product-sweep.md
    grep -q '^| 1537 | wrong | \*\*7\.7\*\* | 7\.4 | v6-vectorized | 0\.97x |' "$page" ||
      fail "the wrong variant is not marked, or still the best"
    grep -q '^| 2\^10 | \*\*7\.1\*\* | 7\.3 | 7\.1 | v1-interleaved |' "$page" || fail "the other sizes changed"
    grep -q '^Wrong or not timed (left out of "best"): v1-interleaved at 1537\.$' "$page" ||
      fail "no line naming the wrong variant"
    grep -q '^Below the peer (fastest variant under 1.00x): 1537 0\.97x (v6-vectorized)\.$' "$page" ||
      fail "no line naming the size below the peer"
    ;;
  sweep-refuses)
    good=$fixtures/sweep/01-dot-product
    mkdir -p "$work/out" "$work/empty"
    # bad: one folder per case, each a copy of the good one with one report spoiled
    spoil() {
      mkdir -p "$work/bad/$1" || fail "cannot make $work/bad/$1"
      cp "$good"/*.json "$work/bad/$1/" || fail "cannot copy the fixture"
    }
    spoil truncated
    head -c 300 "$good/1537.json" >"$work/bad/truncated/1537.json"
    spoil not-json
    echo "not a report" >"$work/bad/not-json/1537.json"
    spoil mixed-labs
    cp "$fixtures/sweep/05-tiled-matmul/4096x4096x4096.json" "$work/bad/mixed-labs/"
    spoil same-size
    cp "$good/1537.json" "$work/bad/same-size/1537-again.json"
    spoil bad-size
    sed 's/"size": "1537"/"size": "1537 elements"/' "$good/1537.json" >"$work/bad/bad-size/1537.json"
    spoil wrong-power
    sed 's/"size": "1024 (2^10)"/"size": "1000 (2^10)"/' "$good/2p10.json" >"$work/bad/wrong-power/2p10.json"
    spoil text-time
    sed 's/"median_ms": [0-9.e-]*/"median_ms": "fast"/' "$good/1537.json" >"$work/bad/text-time/1537.json"
    spoil no-peer
    sed 's/"peer": {/"pear": {/' "$good/1537.json" >"$work/bad/no-peer/1537.json"
    for case in truncated not-json mixed-labs same-size bad-size wrong-power text-time no-peer; do
      expect_exit 2 "$work/log" "$python" "$tree/tools/sweep-table.py" --no-svg "$work/bad/$case" "$work/out"
      grep -q "^error: .*$work/bad/$case/" "$work/log" || fail "$case: no message naming the report"
    done
    printf 'not,a,counters,csv\n1,2,3,4\n' >"$work/other.csv"
    other_lab=$fixtures/counters/expected/01-dot-product-counters.csv
    for args in "" "--no-svg $good" "--no-svg $work/empty $work/out" "--no-svg $work/no-such $work/out" \
                "--no-svg $good $work/no-such-folder" "--no-svg --counters $work/other.csv $good $work/out" \
                "--no-svg --counters $work/no-such.csv $good $work/out" \
                "--no-svg --counters $other_lab $fixtures/sweep/05-tiled-matmul $work/out" \
                "--no-svg --frobnicate $good $work/out"; do
      # shellcheck disable=SC2086 # each case is several arguments
      expect_exit 2 "$work/log" "$python" "$tree/tools/sweep-table.py" $args
    done
    expect_exit 2 "$work/log" "$python" "$tree/tools/sweep-table.py" --no-svg --note "two
lines" "$good" "$work/out"
    [ -z "$(ls -A "$work/out")" ] || fail "a refused input still wrote $(ls -A "$work/out")"
    ;;
  sweep-plot)
    mkdir -p "$work/a" "$work/b"
    for lab in 01-dot-product 05-tiled-matmul; do
      "$python" "$tree/tools/sweep-table.py" "$fixtures/sweep/$lab" "$work/a"
      code=$?
      [ $code -eq 77 ] && exit 77
      [ $code -eq 0 ] || fail "sweep-table.py exited with $code"
      expect_exit 0 "$work/log" "$python" "$tree/tools/sweep-table.py" "$fixtures/sweep/$lab" "$work/b"
      svg=$work/a/$lab-sweep.svg
      head -c 200 "$svg" | grep -q "<svg" || fail "$svg is not an SVG"
      grep -q "NVIDIA H100 80GB HBM3" "$svg" || fail "$svg has no GPU name"
      grep -q "1.00x: as fast as cuBLAS" "$svg" || fail "$svg has no 1.00x line"
      grep -q "^!\[$lab over .*\]($lab-sweep.svg)$" "$work/a/$lab-sweep.md" || fail "the page shows no SVG"
      same "$svg" "$work/b/$lab-sweep.svg"
      same "$work/a/$lab-sweep.md" "$work/b/$lab-sweep.md"
    done
    # shellcheck disable=SC2012 # the names are the labs', plain
    [ "$(ls -A "$work/a" | wc -l)" -eq 4 ] || fail "other files than the tables and SVGs: $(ls -A "$work/a")"
    # --prefix names both files, and the page its own SVG.
    mkdir -p "$work/c"
    expect_exit 0 "$work/log" "$python" "$tree/tools/sweep-table.py" --prefix h200- \
      "$fixtures/sweep/05-tiled-matmul" "$work/c"
    grep -q "^!\[05-tiled-matmul over .*\](h200-05-tiled-matmul-sweep.svg)$" \
      "$work/c/h200-05-tiled-matmul-sweep.md" || fail "the prefixed page does not show its prefixed SVG"
    same "$work/c/h200-05-tiled-matmul-sweep.svg" "$work/a/05-tiled-matmul-sweep.svg"
    expect_exit 2 "$work/log" "$python" "$tree/tools/sweep-table.py" --prefix ../x \
      "$fixtures/sweep/05-tiled-matmul" "$work/c"
    ;;
  sweep-results)
    # The H100's pages (docs/results) and the H200's (docs/results/h200, prefixed h200-).
    for results in "$tree/docs/results" "$tree/docs/results/h200"; do
      prefix=
      [ "$results" = "$tree/docs/results/h200" ] && prefix=h200-
      for page in "$results/$prefix"[0-9][0-9]-*-sweep.md; do
        lab=$(basename "$page" -sweep.md)
        lab=${lab#"$prefix"}
        [ -d "$results/sweep/$lab" ] || fail "$page has no reports in $results/sweep/$lab"
        counters=
        [ -f "$results/$lab-counters.csv" ] && counters="--counters $results/$lab-counters.csv"
        made=$work/$prefix$lab
        mkdir -p "$made"
        # shellcheck disable=SC2086 # the option and its value, or nothing
        expect_exit 0 "$work/log" "$python" "$tree/tools/sweep-table.py" --no-svg $counters \
          --prefix "$prefix" "$results/sweep/$lab" "$made"
        # The rows and the summary lines; the header's provenance note and the links are the page's own.
        pattern='^(\||The fastest variant|Below the peer|Wrong or not timed)'
        grep -E "$pattern" "$page" >"$made/committed"
        grep -E "$pattern" "$made/$prefix$lab-sweep.md" >"$made/made"
        [ -s "$made/made" ] || fail "no rows made for $page"
        same "$made/made" "$made/committed"
        checked="${checked:-}$prefix$lab "
      done
    done
    [ -n "${checked:-}" ] || fail "no docs/results/*-sweep.md found"
    echo "checked: $checked"
    ;;
  results-landing)
    # Each row of docs/results/README.md's tables against the JSON report and the sweep page it
    # links: the fastest variant by median, its time, ratio and % of copy, the commits, the range.
    "$python" - "$tree/docs/results" <<'PY' || fail "docs/results/README.md differs from the reports"
import json, os, re, sys
results = sys.argv[1]
text = open(os.path.join(results, "README.md"), encoding="utf-8").read()
rows = re.findall(r"^\| \[([0-9]{2}-[a-z-]+)\]\(((?:h200/)?)[^)]*\) \|(.*)\|$", text, re.M)
bad = []
for lab, folder, rest in rows:
    cells = [c.strip() for c in rest.split("|")]
    report = json.load(open(os.path.join(results, folder, lab + ".json"), encoding="utf-8"))
    best = min((v for v in report["variants"] if v["correct"]), key=lambda v: v["median_ms"])
    time = "%.3f ms" % best["median_ms"]
    if report["flops_per_run"]:
        time += ", %.1f TFLOP/s" % (best["gflops"] / 1e3)
    copy = "compute-bound" if report["flops_per_run"] else "%d%%" % round(best["percent_of_copy"])
    page = open(os.path.join(results, folder, lab + ".md"), encoding="utf-8").read()
    sweep_link = re.search(r"\]\(([^)]*)\)", cells[6]).group(1)
    sweep = open(os.path.join(results, sweep_link), encoding="utf-8").read()
    span = "[%s to %s]" % re.search(r"runs at (\S+) to (\S+) the speed", sweep).groups()
    want = [best["name"], time, "%.2fx %s" % (best["speedup_vs_peer"], report["peer"]["name"]), copy,
            "`%s`" % re.search(r"^commit: (\w+)", page, re.M).group(1)]
    got = cells[1:4] + cells[4:6]
    got[2] = got[2].replace(" (FP32)", "")
    commit = "`%s`" % re.search(r"commit `?(\w+)", sweep).group(1)
    if got != want or not cells[6].startswith(span) or commit not in cells[6]:
        bad.append("%s%s: %s, not %s, %s (%s)" % (folder, lab, cells[1:], want, span, commit))
if len(rows) != 11 or bad:
    sys.exit("%d rows; wrong: %s" % (len(rows), "; ".join(bad)))
PY
    ;;
  *) fail "no mode $mode" ;;
esac
echo "check.sh $mode ${1:-}: passed"
