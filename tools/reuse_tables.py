#!/usr/bin/env python3
"""Records, predicts and evaluates every row of README's reuse-distance tables.

Usage: tools/reuse_tables.py [--build DIR] [--work DIR] [--only NAME]

For each row it records the training and target runs with `pgasrun --reuse`
(element tracing kernels, --variant naive --reps 1), predicts the target from
the two training runs with `pgas-reuse predict`, evaluates the prediction with
`pgas-reuse evaluate --json` and prints one Markdown table row: operations,
coverage and accuracy in total, and the per-thread accuracy's minimum, average
and maximum. Recordings are kept under --work (default a fresh temporary
folder), so a row can be looked at with `pgas-reuse show` afterwards.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

# name, kernel, kernel arguments, threads of the runs: (train A, train B, target),
# sizes (train A, train B, target), predict arguments.
SIZE_ROWS = [
    ("matmul", "matmul", [], (4, 4, 4), (64, 128, 256)),
    ("jacobi", "jacobi", [], (4, 4, 4), (64, 128, 512)),
    ("stencil2d-4", "stencil2d", ["--points", "4"], (4, 4, 4), (64, 128, 512)),
    ("stencil2d-8", "stencil2d", ["--points", "8"], (4, 4, 4), (64, 128, 512)),
    ("lu-8", "lu", ["--block", "8"], (4, 4, 4), (128, 256, 512)),
    ("lu-16", "lu", ["--block", "16"], (4, 4, 4), (128, 256, 512)),
    ("lu-32", "lu", ["--block", "32"], (4, 4, 4), (256, 512, 1024)),
]

# name, kernel, kernel arguments, size, training thread counts, targets, --pattern. Two
# threads have no inner thread of --pattern line: its inner threads come from a stand-in that
# behaves alike or from the other run alone (tools/reuse_threads.hpp); diagonal needs squares.
THREAD_ROWS = [
    ("matmul", "matmul", [], 144, (2, 4), (8, 16), "line"),
    ("matmul", "matmul", [], 144, (3, 4), (8, 16), "line"),
    ("matmul", "matmul", [], 144, (4, 9), (16,), "diagonal"),
    ("jacobi", "jacobi", [], 144, (2, 4), (8, 16), "line"),
    ("jacobi", "jacobi", [], 144, (3, 4), (8, 16), "line"),
    ("stencil2d-4", "stencil2d", ["--points", "4"], 144, (2, 4), (8, 16), "line"),
    ("stencil2d-4", "stencil2d", ["--points", "4"], 144, (3, 4), (8, 16), "line"),
    ("stencil2d-8", "stencil2d", ["--points", "8"], 144, (2, 4), (8, 16), "line"),
    ("stencil2d-8", "stencil2d", ["--points", "8"], 144, (3, 4), (8, 16), "line"),
]


def record(args, kernel, kargs, threads, size):
    out = os.path.join(args.work, f"{kernel}{''.join(kargs)}-n{threads}-s{size}.reuse")
    if os.path.exists(out):
        return out
    exe = os.path.join(args.build, "kernels", kernel + "-traced")
    cmd = [os.path.join(args.build, "tools", "pgasrun"), "-n", str(threads),
           f"--reuse={out}", exe, "--variant", "naive", "--size", str(size),
           "--reps", "1"] + kargs
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def evaluate(args, train, target, predict_args):
    tool = os.path.join(args.build, "tools", "pgas-reuse")
    pred = target[:-len(".reuse")] + "-predicted.reuse"
    subprocess.run([tool, "predict", "--train", train[0], train[1], "-o", pred] + predict_args,
                   check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([tool, "evaluate", "--json", pred, target], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def row(label, ev):
    t = ev["total"]
    acc = ev.get("accuracy", {})
    def pct(key):
        return f"{acc[key]:.2f} %" if key in acc else "-"
    return (f"| {label} | {t['operations']} | {t['coverage']:.2f} % | {t['accuracy']:.2f} % "
            f"| {pct('minimum')} | {pct('average')} | {pct('maximum')} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default="build", help="meson build folder (default build)")
    p.add_argument("--work", help="folder for the recordings (default a new temporary one)")
    p.add_argument("--only", help="only the rows whose kernel name starts with this")
    args = p.parse_args()
    args.work = args.work or tempfile.mkdtemp(prefix="reuse_tables.")
    os.makedirs(args.work, exist_ok=True)
    head = ("| operations | coverage | accuracy | thread accuracy min | avg | max |\n"
            "|---|---|---|---|---|---|")
    print("Size scaling (4 threads; trained on the first two sizes)\n")
    print("| kernel, sizes -> target " + head.replace("\n", "\n|---"))
    for name, kernel, kargs, threads, sizes in SIZE_ROWS:
        if args.only and not name.startswith(args.only):
            continue
        runs = [record(args, kernel, kargs, t, s) for t, s in zip(threads, sizes)]
        ev = evaluate(args, runs[:2], runs[2], ["--size", str(sizes[2])])
        print(row(f"{name}, {sizes[0]} {sizes[1]} -> {sizes[2]}", ev), flush=True)
    print("\nThread scaling (one size; trained on two thread counts)\n")
    print("| kernel, size, threads -> target " + head.replace("\n", "\n|---"))
    for name, kernel, kargs, size, train_threads, targets, pattern in THREAD_ROWS:
        if args.only and not name.startswith(args.only):
            continue
        train = [record(args, kernel, kargs, t, size) for t in train_threads]
        for target in targets:
            obs = record(args, kernel, kargs, target, size)
            ev = evaluate(args, train, obs, ["--threads", str(target), "--pattern", pattern])
            label = f"{name}, {size}, {train_threads[0]} {train_threads[1]} -> {target} ({pattern})"
            print(row(label, ev), flush=True)
    print(f"\nrecordings in {args.work}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
