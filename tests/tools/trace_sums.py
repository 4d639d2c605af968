#!/usr/bin/env python3
"""pgas-trace's breakdowns add up: for each trace given, `pgas-trace --json` (whole, and with
each issuing thread, owner and class filter) must show tables that each sum to what it shows,
and the whole report must show the trace file's own totals.

Per line, per array, per class and per thread pair, the calls and bytes sum to "shown"; each
line's threads sum to the line and each thread's owners to the thread; the waits sum to the
shown waits; every filtered report's lines are the matching subset, so the reports filtered by
each thread (or owner, or class) sum to the unfiltered one.

Usage: trace_sums.py PGAS_TRACE FILE...
"""
import json
import subprocess
import sys


def report(tool, path, *options):
    out = subprocess.run([tool, "--json", *options, path], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def total(rows, key="calls"):
    return sum(r[key] for r in rows)


def check_tables(r, where):
    problems = []
    shown = r["shown"]
    for table in ("lines", "arrays", "classes", "pairs"):
        for key in ("calls", "bytes"):
            if total(r[table], key) != shown[key]:
                problems.append(f"{where}: {table} sum to {total(r[table], key)} {key}, "
                                f"shown {shown[key]}")
    for line in r["lines"]:
        for key in ("calls", "bytes"):
            if total(line["threads"], key) != line[key]:
                problems.append(f"{where}: {line['site']} {line['kind']}: threads' {key}")
            for t in line["threads"]:
                if total(t["owners"], key) != t[key]:
                    problems.append(f"{where}: {line['site']} thread {t['thread']}: owners' {key}")
    if total(r["waits"], "calls") != shown["waits"] or total(r["waits"], "ns") != shown["wait_ns"]:
        problems.append(f"{where}: waits do not sum to the shown waits")
    return problems


def main():
    tool, files = sys.argv[1], sys.argv[2:]
    problems = []
    for path in files:
        trace = json.load(open(path))
        whole = report(tool, path)
        problems += check_tables(whole, path)
        if whole["shown"] != whole["totals"]:
            problems.append(f"{path}: the unfiltered report shows {whole['shown']}, "
                            f"not the totals {whole['totals']}")
        for key in ("calls", "bytes", "waits", "wait_ns"):
            if whole["totals"][key] != trace["totals"][key]:
                problems.append(f"{path}: totals.{key} {whole['totals'][key]} is not the file's")
        classes = sorted({a["class"] for a in trace["accesses"]})
        for option, values in (("--thread", range(trace["threads"])),
                               ("--owner", range(trace["threads"])), ("--class", classes)):
            parts = [report(tool, path, option, str(v)) for v in values]
            for v, part in zip(values, parts):
                problems += check_tables(part, f"{path} {option} {v}")
            summed = {k: sum(p["shown"][k] for p in parts) for k in ("calls", "bytes")}
            # Owner -1 (no owner) belongs to no --owner filter.
            expected = {k: whole["shown"][k] for k in ("calls", "bytes")}
            if option == "--owner":
                for a in trace["accesses"]:
                    if a["to"] < 0:
                        expected["calls"] -= a["calls"]
                        expected["bytes"] -= a["bytes"]
            if summed != expected:
                problems.append(f"{path}: the {option} reports sum to {summed}, not {expected}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"trace_sums: every breakdown of {len(files)} traces sums to its totals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
