#!/bin/sh
# Makes the zip Gradescope takes as an autograder: this tree at the commit
# checked out (git archive HEAD: uncommitted changes are left out), with
# setup.sh and run_autograder at its root.
#
#   grading/gradescope/make-bundle.sh [OUT.zip] [--labs "LAB ..."] [--rubric FILE]
#                                     [--timeout-scale X] [--budget S]
#
# --labs: the labs this assignment grades (default: all); their rubric is the
# rubric's part for them. --rubric: a rubric to use instead of grading/rubric.txt.
# --timeout-scale, --budget: written to gradescope.conf, for run_autograder
# to pass to grading/grade. Default OUT.zip: build/gradescope-autograder.zip.
# Every option is checked before anything is written, by grading/grade
# --check-options for those the bundle hands to it; a bad one: exit code 2
# and a message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../.." && pwd)

bad_usage() {
  echo "make-bundle.sh: $*" >&2
  exit 2
}

zip="" labs="" labs_given=0 rubric="" scale="" budget=""
while [ $# -gt 0 ]; do
  case $1 in
    --labs | --rubric | --timeout-scale | --budget)
      [ $# -ge 2 ] || bad_usage "$1 needs a value"
      case $1 in
        --labs) labs=$(printf '%s' "$2" | tr ',' ' ') labs_given=1 ;;
        --rubric) rubric=$2 ;;
        --timeout-scale) scale=$2 ;;
        --budget) budget=$2 ;;
      esac
      shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) bad_usage "unknown option $1" ;;
    *)
      [ -z "$zip" ] || bad_usage "one bundle, not '$zip' and '$1'"
      zip=$1
      shift ;;
  esac
done
if [ -n "$zip" ]; then
  case $zip in /*) ;; *) zip=$PWD/$zip ;; esac
  case $zip in *.zip) ;; *) bad_usage "the bundle's name must end in .zip: $zip" ;; esac
  [ -d "$(dirname "$zip")" ] || bad_usage "no folder $(dirname "$zip") for $zip"
  [ ! -d "$zip" ] || bad_usage "$zip is a folder"
fi
[ -z "$rubric" ] || case $rubric in /*) ;; *) rubric=$PWD/$rubric ;; esac
# What run_autograder will pass to grading/grade: grading/grade must take it.
set --
[ "$labs_given" -eq 0 ] || set -- "$@" --labs "$labs"
[ -z "$scale" ] || set -- "$@" --timeout-scale "$scale"
[ -z "$budget" ] || set -- "$@" --budget "$budget"
[ -z "$rubric" ] || set -- "$@" --rubric "$rubric"
why=$("$tree/grading/grade" --check-options "$@" 2>&1 > /dev/null) ||
  bad_usage "$(printf '%s\n' "$why" | sed -n '1s/^grade: //p')"

[ -n "$zip" ] || zip=$tree/build/gradescope-autograder.zip
commit=$(git -C "$tree" rev-parse HEAD 2>/dev/null) ||
  { echo "make-bundle.sh: $tree is not a git checkout" >&2; exit 1; }
git -C "$tree" diff-index --quiet HEAD -- 2>/dev/null ||
  echo "make-bundle.sh: the working tree differs from $commit: the bundle holds the commit" >&2

stage=$(mktemp -d) || exit 1
trap 'rm -rf "$stage"' EXIT
git -C "$tree" archive --format=tar HEAD | tar -xf - -C "$stage" || exit 1
# What grading does not need: the checker needs no solution, so the bundle
# holds none, nor anything else of tools/instructor-only.txt (the mutants and
# tamper samples are patches of the solutions), nor the challenge level
# (setup.sh's trial build takes the guided file).
while read -r path _; do
  case $path in '' | '#'*) continue ;; esac
  rm -rf "${stage:?}/$path"
done < "$tree/tools/instructor-only.txt"
rm -rf "$stage/labs-challenge"
cp "$here/setup.sh" "$here/run_autograder" "$stage/" || exit 1
echo "$commit" > "$stage/COMMIT"
[ -z "$rubric" ] || cp "$rubric" "$stage/grading/rubric.txt" || exit 1
{
  [ -z "$labs" ] || echo "labs $labs"
  [ -z "$scale" ] || echo "timeout-scale $scale"
  [ -z "$budget" ] || echo "budget $budget"
} > "$stage/gradescope.conf"

mkdir -p "$(dirname "$zip")" && rm -f "$zip" || exit 1
(
  cd "$stage" || exit 1
  set --
  for entry in * .[!.]*; do
    [ ! -e "$entry" ] || set -- "$@" "$entry"
  done
  cmake -E tar cf "$zip" --format=zip -- "$@"
) || exit 1
echo "make-bundle.sh: $zip (commit $commit${labs:+, labs: $labs})"
