# Sourced by grading/grade: the limits on what a submission unpacks to, judged
# from an archive's listing, enforced while it unpacks, and checked again on
# what was unpacked (or a folder handed in). Uses grade's max_entries,
# max_total, max_file (the limits), unpacked (where an archive goes) and
# results (where unpack.log goes).
# shellcheck shell=sh

control_message="an entry's name holds a control character (a line break, a tab, an escape...)"

# Why an archive must not be unpacked, judged from its listing (cmake -E tar
# tv, C locale); nothing if it may be. Refused: an entry that is not a plain
# file or a folder (links lead out of the folder), a path outside the folder,
# a name with a control character (a line break splits the listing's lines,
# so a line that is not an entry is one), more entries, bytes or bytes in one
# file than the limits. A listing can lie (an owner name can look like the
# columns after it), so unpack() enforces the limits again.
listing_refusal() {
  { LC_ALL=C timeout -k 5 120 cmake -E tar tvf "$1" 2> /dev/null; echo "listed $?"; } |
    head -n "$((max_entries + 2))" |
    LC_ALL=C awk -v max_entries="$max_entries" -v max_total="$max_total" -v max_file="$max_file" \
      -v control="$control_message" '
      { line[NR] = $0 }
      END {
        if (NR > max_entries + 1) {
          printf "it holds more than %d files and folders, the limit (--max-entries)", max_entries
          exit
        }
        if (line[NR] != "listed 0") {
          print "it cannot be listed: not a zip or tar archive, or a damaged one"
          exit
        }
        perm = "[-rwxsStT]"
        entry = "^[-a-z]" perm perm perm perm perm perm perm perm perm \
                "[+]? +[0-9]+ +[^ ]+ +[^ ]+ +[0-9,]+ +[0-9]+ [A-Z][a-z][a-z] +[0-9:]+ "
        for (i = 1; i < NR; ++i) {
          s = line[i]
          if (s ~ /[\001-\037\177]/ || !match(s, entry)) { print control; exit }
          name = substr(s, RLENGTH + 1)
          if (s !~ /^[-d]/) { print "it holds links or devices (only files and folders are unpacked)"; exit }
          if (name ~ /^\// || name ~ /(^|\/)\.\.(\/|$)/) { print "it holds paths outside its folder (/ or ..)"; exit }
          if (s !~ /^-/) continue
          split(substr(s, 1, RLENGTH), field, / +/)
          total += field[5]
          if (field[5] > max_file) {
            printf "%s is %.0f bytes, more than the limit of %.0f for one file (--max-file)", name, field[5], max_file
            exit
          }
        }
        if (total > max_total)
          printf "it unpacks to %.0f bytes, more than the limit of %.0f bytes in all (--max-total)", total, max_total
      }'
}

# Why what was unpacked (or a folder handed in) must not be used; nothing if
# it may. The names are checked in every case; with "limits", the limits too.
unpacked_refusal() {  # DIR [limits]
  if ! find "$1" > /dev/null 2>&1 || [ -n "$(find "$1" ! -readable -print -quit 2> /dev/null)" ]; then
    echo "it holds a folder or file that cannot be read (its mode forbids it): nothing in it can be checked"
  elif [ -n "$(LC_ALL=C find "$1" -name '*[[:cntrl:]]*' | head -n 1)" ]; then
    echo "$control_message"
  elif [ $# -eq 1 ]; then
    return 0
  elif [ -n "$(find "$1" -mindepth 1 ! -type f ! -type d | head -n 1)" ]; then
    echo "it holds links or devices (only files and folders are unpacked)"
  elif [ "$(find "$1" -mindepth 1 | wc -l)" -gt "$max_entries" ]; then
    echo "it holds more than $max_entries files and folders, the limit (--max-entries)"
  else
    find "$1" -type f -printf '%s %P\n' | LC_ALL=C awk -v max_total="$max_total" -v max_file="$max_file" '
      !big && $1 > max_file { big = 1; printf "%s is %.0f bytes, more than the limit of %.0f for one file (--max-file)\n", substr($0, length($1) + 2), $1, max_file }
      { total += $1 }
      END { if (!big && total > max_total) printf "it unpacks to %.0f bytes, more than the limit of %.0f bytes in all (--max-total)\n", total, max_total }'
  fi
}

# Unpacks an archive into $unpacked under the limits: no file can grow past
# --max-file (ulimit -f counts 512-byte blocks; past it, SIGXFSZ stops the
# unpacking), and what was unpacked is checked again. Prints why it failed.
unpack() {
  (ulimit -f $((max_file / 512 + 1)) && cd "$unpacked" && exec timeout -k 5 300 cmake -E tar xf "$1") \
    < /dev/null > "$results/unpack.log" 2>&1
  case $? in
    0)
      chmod -R u+rwX "$unpacked" 2> /dev/null  # an entry's mode must not hide it from the checks
      unpacked_refusal "$unpacked" limits ;;
    153) echo "a file grew past the limit of $max_file bytes for one file while unpacking (--max-file), though the archive's listing said less" ;;
    124 | 137) echo "unpacking it took longer than 300 s" ;;
    *) echo "it could not be unpacked (unpack.log in the results says why)" ;;
  esac
}
