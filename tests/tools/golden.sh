#!/usr/bin/env bash
# Golden-output test driver: runs a command and compares its stdout with an expected file.
# Used by tests/tools/meson.build (suite 'tools') for `pgasrun --dry-run` and other tools.
#
# Usage: golden.sh EXPECTED_FILE -- COMMAND [ARGS...]
#
# Passes (exit 0) when COMMAND exits 0 and its stdout equals EXPECTED_FILE byte for byte.
# Fails (exit 1) printing a unified diff (expected → actual) on a mismatch, or COMMAND's exit
# status and stderr when it fails. stderr is never compared (warnings may go there).
#
# Regenerating: PGAS_UPDATE_GOLDEN=1 meson test -C build --suite tools
# writes each command's stdout over its EXPECTED_FILE instead of comparing. Check every
# changed row by hand against the rules (include/pgas/topology.hpp) before committing: a golden
# file must record what is right, not bless what the code printed.
set -u

if [[ $# -lt 3 || $2 != "--" ]]; then
  echo "usage: $0 EXPECTED_FILE -- COMMAND [ARGS...]" >&2
  exit 2
fi
expected=$1
shift 2

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pgas-golden.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

"$@" >"$scratch/stdout" 2>"$scratch/stderr"
status=$?
if [[ $status -ne 0 ]]; then
  echo "FAIL: command exited with status $status: $*" >&2
  cat "$scratch/stderr" >&2
  exit 1
fi

if [[ ${PGAS_UPDATE_GOLDEN:-0} == 1 ]]; then
  cp "$scratch/stdout" "$expected" || exit 2
  echo "updated $expected"
  exit 0
fi

if [[ ! -f $expected ]]; then
  echo "FAIL: no expected output $expected (run with PGAS_UPDATE_GOLDEN=1, then check it)" >&2
  cat "$scratch/stdout"
  exit 1
fi

if ! diff -u --label "expected: $expected" --label "actual: $*" \
    "$expected" "$scratch/stdout"; then
  cat "$scratch/stderr" >&2
  exit 1
fi
exit 0
