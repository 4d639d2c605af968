#!/usr/bin/env bash
# pgas-reuse writes -o and --svg by renaming a new file over the name, which would put a regular
# file in place of a device or FIFO (as root, /dev/null itself): it must refuse them instead.
# Checked on a FIFO, which any user can make: status 1, one line naming the option and the path,
# and the FIFO still a FIFO.
#
# Usage: reuse_output_special.sh PGAS_REUSE DATA_DIR
set -u
reuse=$1
data=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pgas-reuse-output.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
mkfifo "$scratch/fifo" || exit 2
status=0
check() {  # OPTION, then the command's arguments
  local option=$1
  shift
  "$reuse" "$@" >"$scratch/out" 2>"$scratch/err"
  local rc=$?
  local want="pgas-reuse: error: $option: cannot write $scratch/fifo: not a regular file"
  if [[ $rc -ne 1 ]]; then
    echo "FAIL: $option to a FIFO exited $rc, not 1" >&2
    status=1
  fi
  if [[ $(wc -l <"$scratch/err") -ne 1 || $(cat "$scratch/err") != "$want"* ]]; then
    echo "FAIL: $option to a FIFO said:" >&2
    cat "$scratch/err" >&2
    status=1
  fi
  if [[ ! -p $scratch/fifo ]]; then
    echo "FAIL: $option replaced the FIFO" >&2
    rm -f "$scratch/fifo" && mkfifo "$scratch/fifo"
    status=1
  fi
}
check --output predict --train "$data/reuse_s64.reuse" "$data/reuse_s128.reuse" --size 256 \
  -o "$scratch/fifo"
check --svg show --svg "$scratch/fifo" "$data/reuse_s64.reuse"
exit $status
