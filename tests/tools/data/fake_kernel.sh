#!/bin/sh
# A stand-in for the kernels in the pgas-bench tests, installed as matmul, sobel, randomaccess,
# cc, stencil2d, matmul_tiled, cholesky, matvec, stencil5, jacobi, lu, stencil7, npb_cg, npb_ft
# and npb_mg (and as plain/matmul, … for the plain C baselines): it answers `--variant V
# [--size S | --class C] --reps R --json` with the contract's JSON line (the NAS kernels take
# --class only, and report the class's size: S 100, W 200, A 300)
# at once, its seconds a fixed function of kernel, variant and PGAS_THREADS:
#   base (matmul 0.4, sobel 0.08, randomaccess 0.2, cc 0.3, stencil2d 0.05, matmul_tiled 0.1,
#   cholesky 0.02, matvec 0.01, stencil5 0.03, jacobi 0.04, lu 0.05, stencil7 0.06, npb_cg 0.07,
#   npb_ft 0.08, npb_mg 0.09) x factor (seq 1, naive 20, privatized 4, tables 1.05, auto 1.1,
#   cached 2, coalesced 1.2, cut 10, ndarray 0.98, openmp 1, c 0.99, blas 0.15, library 0.14)
#   / threads (1 for seq and c).
# With FAKE_SEQ_SLOW=1, randomaccess seq takes 1.1 times as long (the baseline check fails).
# With FAKE_KERNEL_FAILURES=1 some runs fail on purpose: sobel naive at 2 threads does not
# verify (exit 1), randomaccess tables at 2 threads dies of SIGSEGV, matmul auto at 2 threads
# hangs (for --timeout).
kernel=$(basename "$0")
variant=
size=
class=
reps=5
while [ $# -gt 0 ]; do
  case $1 in
    --variant) variant=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --class) class=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --json) shift ;;
    *) echo "$kernel: unknown argument $1" >&2; exit 2 ;;
  esac
done
threads=${PGAS_THREADS:-1}
[ "$variant" = seq ] || [ "$variant" = c ] && threads=1
case $kernel in
  matmul) base=0.4; size=${size:-1024} ;;
  sobel) base=0.08; size=${size:-4096} ;;
  randomaccess) base=0.2; size=${size:-1048576} ;;
  cc) base=0.3; size=${size:-1048576} ;;
  stencil2d) base=0.05; size=${size:-2048} ;;
  matmul_tiled) base=0.1; size=${size:-1024} ;;
  cholesky) base=0.02; size=${size:-1024} ;;
  matvec) base=0.01; size=${size:-4096} ;;
  stencil5) base=0.03; size=${size:-1024} ;;
  jacobi) base=0.04; size=${size:-1024} ;;
  lu) base=0.05; size=${size:-512} ;;
  stencil7) base=0.06; size=${size:-256} ;;
  npb_cg|npb_ft|npb_mg)
    case $kernel in npb_cg) base=0.07 ;; npb_ft) base=0.08 ;; *) base=0.09 ;; esac
    [ -z "$size" ] || { echo "$kernel: takes --class, not --size" >&2; exit 2; }
    case $class in S) size=100 ;; W) size=200 ;; A) size=300 ;;
      *) echo "$kernel: --class S, W or A is required" >&2; exit 2 ;; esac ;;
  *) echo "$kernel: unknown kernel" >&2; exit 2 ;;
esac
case $variant in
  seq|openmp) factor=1 ;;
  c) factor=0.99 ;;
  naive) factor=20 ;;
  privatized) factor=4 ;;
  tables) factor=1.05 ;;
  auto) factor=1.1 ;;
  cached) factor=2 ;;
  coalesced) factor=1.2 ;;
  cut) factor=10 ;;
  ndarray) factor=0.98 ;;
  blas) factor=0.15 ;;
  library) factor=0.14 ;;
  *) echo "$kernel: unknown variant $variant" >&2; exit 2 ;;
esac
[ "${FAKE_SEQ_SLOW:-0}" = 1 ] && [ "$kernel-$variant" = randomaccess-seq ] && factor=1.1
verified=true
[ "${FAKE_KERNEL_FAILURES:-0}" = 1 ] && case $kernel-$variant-$threads in
  sobel-naive-2) verified=false ;;
  randomaccess-tables-2) echo "randomaccess: about to crash" >&2; kill -SEGV $$ ;;
  matmul-auto-2) exec sleep 30 ;;
esac
seconds=$(awk "BEGIN { printf \"%.6g\", $base * $factor / $threads }")
echo "$kernel: $variant on $threads threads" >&2
printf '{"kernel":"%s","variant":"%s","threads":%s,"size":%s,"seconds":%s,"min_seconds":%s,"max_seconds":%s,"reps":%s,"verified":%s}\n' \
  "$kernel" "$variant" "$threads" "$size" "$seconds" "$seconds" "$seconds" "$reps" "$verified"
if [ $verified = false ]; then
  echo "$kernel: $variant did not verify" >&2
  exit 1
fi
