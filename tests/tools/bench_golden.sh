#!/usr/bin/env bash
# Golden tests of pgas-bench (tests/tools/meson.build, bench_cases): runs golden.sh in a fresh
# scratch directory that holds
#   data/      a link to DATA_DIR (tests/tools/data: saved runs.json files, fake programs)
#   pgasrun    a link to data/fake_pgasrun.sh
#   kernels/   matmul, sobel, randomaccess, cc, stencil2d, matmul_tiled, cholesky, matvec,
#              stencil5, jacobi, lu, stencil7, npb_cg, npb_ft, npb_mg, and plain/
#              with the first nine (the plain C baselines): links to
#              data/fake_kernel.sh
# so that the command names its files by relative paths (error messages and the "Files:" list
# do not depend on where the tree is) and can run the driver end to end without real kernels.
# Then compares each file the command wrote with its expected copy.
#
# Usage: bench_golden.sh DATA_DIR [--file PATH EXPECTED]... -- GOLDEN_ARGS...
#
# GOLDEN_ARGS are golden.sh's (which compares stdout or stderr and the exit status); PATH is
# relative to the scratch directory (out/scaling.svg). PGAS_TEST_UPDATE_GOLDEN=1 copies each file
# over EXPECTED instead of comparing, as golden.sh does: check every change by hand.
set -u

here=$(cd "$(dirname "$0")" && pwd)
if [[ $# -lt 2 ]]; then
  echo "usage: $0 DATA_DIR [--file PATH EXPECTED]... -- GOLDEN_ARGS..." >&2
  exit 2
fi
data=$(cd "$1" && pwd) || exit 2
shift
files=()
while [[ $# -gt 0 && $1 != "--" ]]; do
  if [[ $1 != --file || $# -lt 3 ]]; then
    echo "$0: expected --file PATH EXPECTED or --, not $1" >&2
    exit 2
  fi
  files+=("$2" "$3")
  shift 3
done
[[ $# -gt 0 ]] && shift
# The command follows golden.sh's own "--"; Meson may name it relative to the build directory,
# which the scratch directory is not.
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
  if [[ ${args[i]} == "--" ]]; then
    command=${args[i + 1]}
    [[ $command != /* && -e $command ]] && args[i + 1]=$(pwd)/$command
    break
  fi
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/pgas-bench-golden.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 2
ln -s "$data" data
ln -s data/fake_pgasrun.sh pgasrun
mkdir -p kernels/plain
# The kernels with a plain C baseline, then those without one (no plain/ program: pgas-bench
# must not look for it).
for k in matmul sobel randomaccess cc stencil2d matmul_tiled cholesky matvec stencil5; do
  ln -s ../data/fake_kernel.sh "kernels/$k"
  ln -s ../../data/fake_kernel.sh "kernels/plain/$k"
done
for k in jacobi lu stencil7 npb_cg npb_ft npb_mg; do
  ln -s ../data/fake_kernel.sh "kernels/$k"
done

"$here/golden.sh" "${args[@]}" || exit 1

status=0
for ((i = 0; i < ${#files[@]}; i += 2)); do
  actual=${files[i]}
  expected=${files[i + 1]}
  if [[ ! -f $actual ]]; then
    echo "FAIL: the command wrote no $actual" >&2
    status=1
  elif [[ ${PGAS_TEST_UPDATE_GOLDEN:-0} == 1 ]]; then
    cp "$actual" "$expected" || exit 2
    echo "updated $expected"
  elif [[ ! -f $expected ]]; then
    echo "FAIL: no expected $expected (run with PGAS_TEST_UPDATE_GOLDEN=1, then check it)" >&2
    status=1
  elif ! diff -u --label "expected: $expected" --label "actual: $actual" "$expected" "$actual"; then
    status=1
  fi
done
exit $status
