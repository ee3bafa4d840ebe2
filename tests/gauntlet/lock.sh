#!/bin/sh
# lock.sh GAUNTLET RUNNER LOCK: a check with --lock LOCK waits while another
# process holds LOCK (flock), says so, runs nothing meanwhile, and runs once the
# lock is free (pp-gauntlet's host tests).
case ${1:-} in -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;; esac
set -u
gauntlet=$1 runner=$2 lock=$3
out=$lock.out go=$lock.go
rm -f "$out" "$go"
fail() { echo "lock.sh: $*"; cat "$out" 2>/dev/null; [ -n "${holder:-}" ] && touch "$go"; exit 1; }
# wait_for WHAT COMMAND...: until COMMAND succeeds, 30 s at most.
wait_for() {
  what=$1; shift
  tries=0
  until "$@"; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || fail "no $what after 30 s"
    sleep 0.1
  done
}
flock -o -x "$lock" sh -c 'until [ -e "$1" ]; do sleep 0.1; done' sh "$go" &
holder=$!
wait_for "holder of the lock" sh -c '! flock -n "$1" true' sh "$lock"
"$gauntlet" -- "$runner" --check large --lock "$lock" --exit 0 > "$out" 2>&1 &
checked=$!
wait_for "line saying that the check waits" grep -q "large waits for $lock" "$out"
sleep 0.5
! grep -q "pp-gauntlet: large:" "$out" || fail "the check ran while another process held the lock"
touch "$go"
wait "$holder"
wait "$checked" || fail "pp-gauntlet exited with $? once the lock was free"
grep -q "large passed" "$out" || fail "the check did not pass once the lock was free"
cat "$out"
echo "lock.sh: the check waited for the lock, then ran"
