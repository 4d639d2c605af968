# tests/integration/script_common.sh — sourced by the integration tests written in shell: `work`,
# a temporary directory removed at exit; fail MESSAGE [LOG], which prints "FAIL: MESSAGE" and
# the log (when given) and exits 1; and expect_sum PGASRUN PROGRAM, which runs the test
# project's program on 2 threads (PGAS_THREADS unset) and fails unless it prints the expected
# sum (the caller's environment, such as LD_LIBRARY_PATH, applies).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $1"
  [ $# -gt 1 ] && cat "$2"
  exit 1
}

expect_sum() {
  local out
  out=$(PGAS_THREADS='' "$1" -n 2 "$2" 2>&1)
  [ "$out" = "cmake package: 2 threads, sum 3" ] || {
    echo "FAIL: $1 -n 2 $2 printed:"
    echo "$out"
    exit 1
  }
}
