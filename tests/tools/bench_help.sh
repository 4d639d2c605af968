#!/bin/sh
# pgas-bench --help names every kernel pgas-bench runs: the list is taken from the message of
# an unknown --kernels name ("... (expected a, b, c)"), so that a kernel added to the tool and
# not to its help fails here.
# Usage: bench_help.sh PGAS_BENCH
set -u
bench=$1
known=$("$bench" --kernels '?' 2>&1 | sed -n 's/.*(expected \(.*\))$/\1/p' | tr -d ',')
[ -n "$known" ] || { echo "bench_help: no kernel list in pgas-bench's --kernels error"; exit 1; }
help=$("$bench" --help | tr '\n' ' ')
status=0
for k in $known; do
  case "$help" in
    *"$k,"* | *"$k)"* | *"$k "*) ;;
    *) echo "bench_help: --help does not name kernel $k"; status=1 ;;
  esac
done
[ $status -eq 0 ] && echo "bench_help: --help names the $(echo $known | wc -w) kernels"
exit $status
