#!/bin/sh
# A compute-sanitizer that cannot run on this machine (for pp-gauntlet's host tests).
echo "========= Error: Target application terminated before first instrumented API call"
exit 1
