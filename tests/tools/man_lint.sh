#!/bin/sh
# Renders each manual page given with groff's man macros and every warning enabled (-ww), as
# `man` would, and fails when groff prints anything (a warning) or fails.
# Usage: man_lint.sh GROFF PAGE...
set -u
groff=$1
shift
status=0
for page in "$@"; do
  out=$("$groff" -man -ww -z "$page" 2>&1) || { echo "$page: groff failed"; status=1; }
  if [ -n "$out" ]; then
    printf '%s:\n%s\n' "$page" "$out"
    status=1
  fi
done
[ $status -eq 0 ] && echo "man_lint: $# pages render without warnings"
exit $status
