#!/bin/sh
# fake-runner.sh: a stand-in for a lab runner (or a checker), for pp-gauntlet's host tests.
# --probe exits $FAKE_PROBE (default 0: "there is a device"). Otherwise it
# prints its arguments and ends as its arguments say: --exit N exits N,
# --signal kills itself with SIGSEGV, --signal-alone does so only when no
# "--" follows (as a checker with a runner of its own after "--", it exits 1:
# the checker's verdict on a runner that died), --echo TEXT prints TEXT, --sanitizer-*
# are for fake-sanitizer.sh; and it exits 1 (rejects) when one of them is
# $FAKE_FAIL_ON.
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
echo "fake-runner: $*"
for argument in "$@"; do
  [ "$argument" = --probe ] && exit "${FAKE_PROBE:-0}"
done
for argument in "$@"; do
  [ -n "${FAKE_FAIL_ON:-}" ] && [ "$argument" = "$FAKE_FAIL_ON" ] && exit 1
done
while [ $# -gt 0 ]; do
  case $1 in
    --exit) exit "$2" ;;
    --signal) kill -SEGV $$ ;;
    --signal-alone) case " $* " in *" -- "*) exit 1 ;; *) kill -SEGV $$ ;; esac ;;
    --echo) echo "$2" ;;
  esac
  shift
done
exit 0
