#!/bin/sh
# Makes the copy of this course that students get: a new folder DEST holding
# the files git tracks here, as they are in this working tree, less those of
# tools/instructor-only.txt (solutions/, the mutants, the tamper samples, the
# course's own tests, CI) and less the other level. Hand out DEST (its own
# repository, a zip, a course page) and keep this tree private.
#
#   tools/student-copy.sh [--level guided|challenge] DEST
#
# --level guided (the default): labs/ holds the guided files, whose TODOs say
# how. --level challenge: labs/ holds the challenge files (labs-challenge/
# here), whose TODOs state only the goal. Either way the students' files are
# where the README and the handouts say, `cmake --workflow --preset student`
# builds and grades them, and grading/grade takes either level alike.
# DEST must be a new folder (its parent must exist) or an empty one; anything
# else is refused, and nothing is written or removed.
# Exit codes: 0 written; 1 the copy failed (DEST then holds part of it);
# 2 bad usage.
set -u
tree=$(cd "$(dirname "$0")/.." && pwd)

bad_usage() {
  echo "student-copy.sh: $*" >&2
  echo "usage: tools/student-copy.sh [--level guided|challenge] DEST (--help for more)" >&2
  exit 2
}
failed() {
  echo "student-copy.sh: $*" >&2
  exit 1
}

level=guided
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --level)
      [ $# -ge 2 ] || bad_usage "--level needs guided or challenge"
      case $2 in guided | challenge) level=$2 ;; *) bad_usage "unknown level '$2': guided or challenge" ;; esac
      shift 2 ;;
    --) shift; break ;;
    -*) bad_usage "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -le 1 ] || bad_usage "one DEST, not $*"
dest=${1:-}
[ -n "$dest" ] || bad_usage "no DEST given"
if [ -e "$dest" ] || [ -L "$dest" ]; then
  [ -d "$dest" ] || bad_usage "$dest exists and is not a folder: give a new or empty folder"
  [ -z "$(ls -A "$dest")" ] || bad_usage "$dest is not empty: give a new or empty folder (nothing was written)"
else
  parent=$(dirname "$dest")
  [ -d "$parent" ] || bad_usage "no folder $parent for $dest"
fi
# The tree must be a checkout's top, not a folder inside another one (a copy
# unpacked in a build folder), whose files git would not list.
top=$(git -C "$tree" rev-parse --show-toplevel 2>/dev/null)
if [ -z "$top" ] || [ "$(cd "$top" && pwd -P)" != "$(cd "$tree" && pwd -P)" ]; then
  failed "$tree is not a git checkout: the copy takes the files git tracks"
fi

# The level left out; at the challenge level, labs-challenge/ becomes labs/.
if [ "$level" = guided ]; then other=labs-challenge; else other=labs; fi
set -- ":(exclude)$other"
while read -r path _; do
  case $path in '' | '#'*) continue ;; esac
  set -- "$@" ":(exclude)$path"
done < "$tree/tools/instructor-only.txt"

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
git -C "$tree" ls-files -z -- "$@" > "$work/files" || failed "git ls-files failed in $tree"
count=$(tr -cd '\0' < "$work/files" | wc -c)
[ "$count" -gt 0 ] || failed "git tracks no file in $tree"
tar -C "$tree" --null -T "$work/files" -cf "$work/copy.tar" ||
  failed "could not read every tracked file (one deleted here? git status says)"
[ -d "$dest" ] || mkdir "$dest" || failed "could not make $dest"
tar -C "$dest" -xf "$work/copy.tar" || failed "could not write into $dest"
if [ "$level" = challenge ]; then
  mv "$dest/labs-challenge" "$dest/labs" || failed "could not move $dest/labs-challenge to $dest/labs"
fi
echo "student-copy.sh: $dest: the $level level, $count files; students run: cmake --workflow --preset student"
