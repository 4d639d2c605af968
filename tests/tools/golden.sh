#!/usr/bin/env bash
# Golden-output test driver: runs a command and compares its stdout with an expected file.
# Used by tests/tools/meson.build (suite 'tools') for `pgasrun --dry-run` and other tools.
#
# Usage: golden.sh [--status N] [--stderr] EXPECTED_FILE -- COMMAND [ARGS...]
#
# Passes (exit 0) when COMMAND exits 0 and its stdout equals EXPECTED_FILE byte for byte.
# Fails (exit 1) printing a unified diff (expected → actual) on a mismatch, or COMMAND's exit
# status and stderr when it fails. stderr is never compared (warnings may go there).
#
# Expected failures: with --status N, COMMAND must exit with status N instead of 0; with
# --stderr, EXPECTED_FILE holds COMMAND's stderr (its error message) and stdout must be empty.
# `golden.sh --status 2 --stderr bad.err -- tool --bad` checks a usage error end to end.
#
# Regenerating: PGAS_TEST_UPDATE_GOLDEN=1 meson test -C build --suite tools
# writes each command's stdout (stderr with --stderr) over its EXPECTED_FILE instead of
# comparing; a command whose exit status is not the expected one still fails. Check every
# changed row by hand against the rules (include/pgas/topology.hpp, include/pgas/layout.hpp)
# before committing: a golden file must record what is right, not bless what the code printed.
set -u

want_status=0
compare=stdout
while [[ $# -gt 0 ]]; do
  case $1 in
    --status)
      if [[ $# -lt 2 || ! $2 =~ ^[0-9]+$ ]]; then
        echo "$0: --status needs an exit status" >&2
        exit 2
      fi
      want_status=$2
      shift 2
      ;;
    --stderr)
      compare=stderr
      shift
      ;;
    *)
      break
      ;;
  esac
done

if [[ $# -lt 3 || $2 != "--" ]]; then
  echo "usage: $0 [--status N] [--stderr] EXPECTED_FILE -- COMMAND [ARGS...]" >&2
  exit 2
fi
expected=$1
shift 2

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pgas-golden.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

"$@" >"$scratch/stdout" 2>"$scratch/stderr"
status=$?
if [[ $status -ne $want_status ]]; then
  if [[ $want_status -eq 0 ]]; then
    echo "FAIL: command exited with status $status: $*" >&2
  else
    echo "FAIL: command exited with status $status, expected $want_status: $*" >&2
    cat "$scratch/stdout" >&2
  fi
  cat "$scratch/stderr" >&2
  exit 1
fi
if [[ $compare == stderr && -s $scratch/stdout ]]; then
  echo "FAIL: command printed on stdout where only an error was expected: $*" >&2
  cat "$scratch/stdout" >&2
  exit 1
fi
actual=$scratch/$compare

if [[ ${PGAS_TEST_UPDATE_GOLDEN:-0} == 1 ]]; then
  cp "$actual" "$expected" || exit 2
  echo "updated $expected"
  exit 0
fi

if [[ ! -f $expected ]]; then
  echo "FAIL: no expected output $expected (run with PGAS_TEST_UPDATE_GOLDEN=1, then check it)" >&2
  cat "$actual"
  exit 1
fi

if ! diff -u --label "expected: $expected" --label "actual: $*" \
    "$expected" "$actual"; then
  [[ $compare == stdout ]] && cat "$scratch/stderr" >&2
  exit 1
fi
exit 0
