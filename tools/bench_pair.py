#!/usr/bin/env python3
"""tools/bench_pair.py — one kernel, two ways, interleaved: the ratio of their medians.

Runs `pgasrun -n N KERNEL_DIR_A/NAME --variant V ARGS` and the same with KERNEL_DIR_B (or with
extra pgasrun options for B, such as --trace), A B A B ..., and prints for each kernel and
variant the median of the kernels' own `seconds` (the kernel contract of kernels/harness.hpp)
on each side and the median of the pair-by-pair ratios A/B. Pairing keeps a ratio meaningful on
a machine whose speed drifts; the figures of the README's tracing table come from it:

  tools/bench_pair.py --a build/kernels --b build-notrace/kernels -n 2 --pairs 7 \\
      matmul:naive,auto sobel:naive,auto cc:naive,coalesced
  tools/bench_pair.py --a build/kernels --b-pgasrun=--trace=/tmp/x.trace -n 2 cc:naive
  tools/bench_pair.py --a build/kernels --b-variant library -n 2 matmul_tiled:blas
  tools/bench_pair.py --a build/kernels --a-env PGAS_SPIN=0 -n 2 npb_mg:ndarray

Exit status 0, or 1 when a run fails or does not verify.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys


def run(pgasrun, opts, threads, kernel, variant, extra, env):
    cmd = [pgasrun, *opts, "-n", str(threads), kernel, "--variant", variant, "--json", *extra]
    p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        sys.exit(f"bench_pair: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-400:]}")
    r = json.loads(lines[-1])
    if not r.get("verified", False):
        sys.exit(f"bench_pair: {' '.join(cmd)} did not verify")
    return float(r["seconds"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--pgasrun", default="build/tools/pgasrun")
    ap.add_argument("--a", required=True, help="kernel directory of A")
    ap.add_argument("--b", help="kernel directory of B (default: A's)")
    ap.add_argument("--b-pgasrun", default="", help="extra pgasrun options for B, comma-separated")
    ap.add_argument("--a-pgasrun", default="", help="extra pgasrun options for A, comma-separated")
    ap.add_argument("--a-env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for A's runs only (repeatable)")
    ap.add_argument("--b-env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for B's runs only (repeatable)")
    ap.add_argument("--b-variant", help="B runs this variant instead of A's (blas against library)")
    ap.add_argument("-n", "--threads", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--args", default="", help="kernel arguments, space-separated (e.g. '--size 512')")
    ap.add_argument("items", nargs="+", help="KERNEL:VARIANT[,VARIANT...]")
    o = ap.parse_args()
    b_dir = o.b or o.a
    a_opts = [x for x in o.a_pgasrun.split(",") if x]
    b_opts = [x for x in o.b_pgasrun.split(",") if x]
    extra = o.args.split()
    a_env, b_env = ({k: v for k, _, v in (x.partition("=") for x in xs)} for xs in (o.a_env, o.b_env))
    print(f"{'kernel':<12} {'variant':<11} {'A median s':>11} {'B median s':>11} {'A/B':>7}")
    for item in o.items:
        kernel, _, variants = item.partition(":")
        for variant in variants.split(","):
            a, b, ratios = [], [], []
            for _ in range(o.pairs):
                ta = run(o.pgasrun, a_opts, o.threads, os.path.join(o.a, kernel), variant, extra, a_env)
                tb = run(o.pgasrun, b_opts, o.threads, os.path.join(b_dir, kernel),
                         o.b_variant or variant, extra, b_env)
                a.append(ta)
                b.append(tb)
                ratios.append(ta / tb)
            shown = f"{variant}/{o.b_variant}" if o.b_variant else variant
            print(f"{kernel:<12} {shown:<11} {statistics.median(a):>11.4f} "
                  f"{statistics.median(b):>11.4f} {statistics.median(ratios):>7.3f}", flush=True)


if __name__ == "__main__":
    main()
