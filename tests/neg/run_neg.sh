#!/bin/sh
# tests/neg/run_neg.sh — runs one must-not-compile case (tests/neg/meson.build).
#
#   run_neg.sh SOURCE COMPILER [ARGS...]
#
# SOURCE's first line is `// expect: REGEX` (an extended regular expression the compiler's
# diagnostics must match) or `// expect: compiles` (a positive control that must compile, so
# that a broken harness cannot pass every case). The compiler runs as COMPILER ARGS... SOURCE
# in the C locale (plain quotes in diagnostics) without colour. A line `// errors: N` anywhere
# in SOURCE also requires exactly N lines of errors: the intended diagnostic and no confusing
# others after it. Exit status 0: as expected.
set -u
if [ $# -lt 2 ]; then
  echo "usage: run_neg.sh SOURCE COMPILER [ARGS...]" >&2
  exit 2
fi
src=$1
shift
first=$(head -n 1 "$src")
case $first in
  "// expect: "*) expect=${first#"// expect: "} ;;
  *)
    echo "$src: the first line must be '// expect: REGEX' or '// expect: compiles'" >&2
    exit 2
    ;;
esac
errors=$(sed -n 's|^// errors: \([0-9][0-9]*\)$|\1|p' "$src" | head -n 1)
if [ -z "$errors" ] && grep -q '^// *errors:' "$src"; then
  echo "$src: an errors line must read exactly '// errors: N'" >&2
  exit 2
fi
out=$(LC_ALL=C "$@" -fdiagnostics-color=never "$src" 2>&1)
status=$?
if [ "$expect" = compiles ]; then
  if [ $status -eq 0 ]; then
    echo "compiles, as it must"
    exit 0
  fi
  printf 'FAIL: the positive control does not compile:\n%s\n' "$out"
  exit 1
fi
if [ $status -eq 0 ]; then
  printf 'FAIL: compiled, but must not (expected a diagnostic matching /%s/)\n' "$expect"
  exit 1
fi
if printf '%s\n' "$out" | grep -Eq -- "$expect"; then
  got=$(printf '%s\n' "$out" | grep -c -e ': error: ' -e 'fatal error: ')
  if [ -n "$errors" ] && [ "$got" -ne "$errors" ]; then
    printf 'FAIL: rejected as expected, but with %s errors instead of %s:\n%s\n' "$got" "$errors" "$out"
    exit 1
  fi
  printf 'rejected as expected: /%s/\n' "$expect"
  exit 0
fi
printf 'FAIL: rejected, but no diagnostic matches /%s/:\n%s\n' "$expect" "$out"
exit 1
