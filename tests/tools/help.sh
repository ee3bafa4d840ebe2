#!/bin/sh
# Every script of grading/, tools/ and tests/ (a file that starts with #!,
# the sample submissions' files aside) answers --help with exit code 0 and
# its usage: text that names the script, on stdout, in WORK (where a script
# that took --help for an argument would leave its files), within 30 s.
#
#   help.sh TREE WORK
set -u
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
[ $# -eq 2 ] || { echo "usage: help.sh TREE WORK" >&2; exit 2; }
tree=$1 work=$2
rm -rf "$work"
mkdir -p "$work" || exit 1
cd "$work" || exit 1

failures=0 count=0
for script in $(cd "$tree" && find grading tools tests -type f ! -path 'tests/submissions/*/*' | sort); do
  case $(head -c 2 "$tree/$script") in '#!') ;; *) continue ;; esac
  case $(head -n 1 "$tree/$script") in
    *python3*)
      interpreter="python3"
      command -v python3 > /dev/null 2>&1 || { echo "skipped $script: no python3"; continue; } ;;
    *) interpreter="sh" ;;
  esac
  count=$((count + 1))
  timeout 30 "$interpreter" "$tree/$script" --help > "$work/out" 2> "$work/err"
  code=$?
  name=$(basename "$script")
  if [ "$code" -ne 0 ]; then
    echo "FAIL $script --help: exit code $code"
    cat "$work/err"
    failures=$((failures + 1))
  elif ! grep -q -F "$name" "$work/out"; then
    echo "FAIL $script --help: its output does not name $name:"
    cat "$work/out" "$work/err"
    failures=$((failures + 1))
  fi
done
left=""
for entry in "$work"/* "$work"/.[!.]*; do
  [ -e "$entry" ] || continue
  case ${entry##*/} in out | err) ;; *) left="$left ${entry##*/}" ;; esac
done
[ -z "$left" ] || { echo "FAIL: a script's --help wrote into $work:$left"; failures=$((failures + 1)); }
[ "$count" -gt 0 ] || { echo "FAIL: no script found under $tree"; exit 1; }
echo "$count scripts, $failures failed"
[ "$failures" -eq 0 ]
