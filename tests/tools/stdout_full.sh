#!/usr/bin/env bash
# Every tool reports a write to standard output that failed (stdout on /dev/full), as coreutils
# do: status 1 and one line "TOOL: error: cannot write to standard output: No space left on
# device", whatever status it meant to return (0 for a listing, 4 for globals found).
#
# Usage: stdout_full.sh PGASRUN PGAS_LAYOUT PGAS_TABLES PGAS_BENCH RUNS_JSON PROGRAM
#                       [PGAS_TRACE TRACE_FILE [PGAS_REUSE REUSE_FILE]]
set -u
if [[ $# -ne 6 && $# -ne 8 && $# -ne 10 ]]; then
  echo "usage: $0 PGASRUN PGAS_LAYOUT PGAS_TABLES PGAS_BENCH RUNS_JSON PROGRAM" \
    "[PGAS_TRACE TRACE [PGAS_REUSE REUSE]]" >&2
  exit 2
fi
if [[ ! -w /dev/full ]]; then
  echo "$0: /dev/full is not writable here: nothing to test" >&2
  exit 77
fi
pgasrun=$1 layout=$2 tables=$3 bench=$4 runs=$5 program=$6
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0

# expect_write_error TOOL_NAME COMMAND...: the command, with stdout on /dev/full, exits 1 with
# the one line.
expect_write_error() {
  local name=$1
  shift
  local err status
  err=$("$@" 2>&1 >/dev/full)
  status=$?
  local want="$name: error: cannot write to standard output: No space left on device"
  if [[ $status -ne 1 || $err != "$want" ]]; then
    echo "FAIL: $* >/dev/full: status $status (want 1), stderr:"
    echo "$err"
    echo "(want: $want)"
    failed=1
  else
    echo "ok: $*"
  fi
}

expect_write_error pgas-layout "$layout" --threads 4 'shared [2] int A[10]'
expect_write_error pgas-layout "$layout" --json --threads 4 'shared [2] int A[10]'
expect_write_error pgas-layout "$layout" --help
expect_write_error pgas-tables "$tables" --threads 1..8 'shared [4] int A[64][64]'
expect_write_error pgas-tables "$tables" --json 'shared [4] int A[64][64]'
expect_write_error pgas-bench "$bench" --from "$runs" --out "$scratch/out"
expect_write_error pgasrun "$pgasrun" --dry-run -n 4 --topology 'synthetic:package:2 core:4 pu:1'
expect_write_error pgasrun "$pgasrun" --check-globals "$program"
expect_write_error pgasrun "$pgasrun" --help
if [[ $# -ge 8 ]]; then
  expect_write_error pgas-trace "$7" "$8"
  expect_write_error pgas-trace "$7" --json --heatmap "$scratch/h.svg" "$8"
fi
if [[ $# -eq 10 ]]; then
  expect_write_error pgas-reuse "$9" show "${10}"
  expect_write_error pgas-reuse "$9" evaluate --json "${10}" "${10}"
  expect_write_error pgas-reuse "$9" export --parda "${10}"
fi
exit $failed
