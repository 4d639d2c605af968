#!/usr/bin/env bash
# tests/tools/layers_test.sh — tools/check_layers.py passes on this tree and fails, naming each
# file and line, on a tree whose includes go against the layers (tests/tools/data/layers_bad).
set -uo pipefail
check=$1
bad=$2
tree=$3
fail=0
if ! out=$(python3 "$check" --root "$tree" 2>&1); then
  echo "FAIL: the tree itself breaks the layers:"
  echo "$out"
  fail=1
fi
out=$(python3 "$check" --root "$bad" 2>&1)
status=$?
if [ "$status" -ne 1 ]; then
  echo "FAIL: check_layers.py exited $status on the bad tree (expected 1)"
  fail=1
fi
for expected in "alloc/space.cpp:2: alloc file includes src/job/job.hpp of layer job" \
  "src/models/layout.cpp:2: models file includes pgas/runtime.hpp of layer job"; do
  if ! grep -qF "$expected" <<<"$out"; then
    echo "FAIL: missing from the report: $expected"
    fail=1
  fi
done
if grep -q 'pgas/config.hpp' <<<"$out"; then
  echo "FAIL: an allowed include (base from models) was reported"
  fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: layers hold here, and both bad includes were caught"
exit "$fail"
