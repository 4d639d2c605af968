#!/bin/sh
# A stand-in for pgasrun in the pgas-bench tests: `fake_pgasrun.sh -n T PROGRAM ARGS...` runs
# PROGRAM with PGAS_THREADS=T, as pgasrun does, without starting any runtime.
if [ "$1" != "-n" ] || [ $# -lt 3 ]; then
  echo "fake_pgasrun.sh: usage: fake_pgasrun.sh -n T PROGRAM ARGS..." >&2
  exit 2
fi
PGAS_THREADS=$2
export PGAS_THREADS
shift 2
exec "$@"
