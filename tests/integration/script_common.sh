# tests/integration/script_common.sh — sourced by the integration tests written in shell: `work`,
# a temporary directory removed at exit, and fail MESSAGE [LOG], which prints "FAIL: MESSAGE"
# and the log (when given) and exits 1.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $1"
  [ $# -gt 1 ] && cat "$2"
  exit 1
}
