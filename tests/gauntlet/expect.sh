#!/bin/sh
# expect.sh CODE TEXT -- COMMAND...: passes when COMMAND exits with CODE and
# prints a line containing TEXT (pp-gauntlet's host tests).
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
code=$1 text=$2
shift 3
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$code" ]; then
  echo "expect.sh: exit code $status, expected $code"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -qF -- "$text"; then
  echo "expect.sh: no line with '$text'"
  exit 1
fi
echo "expect.sh: exit code $code and '$text', as expected"
