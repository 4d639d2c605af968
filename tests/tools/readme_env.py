#!/usr/bin/env python3
"""tests/tools/readme_env.py — the README's list of PGAS_* variables agrees with pgasrun.

`pgasrun --help-env` prints the one table of variables (src/base/env.cpp); the README's
"Environment variables" section lists them by hand. This test fails, naming each difference,
when the two disagree on the names (and their order), on a default, or on the pgasrun option
that sets a variable. It also checks that every option --help-env names is one `pgasrun --help`
offers, and, so that it cannot pass by reading nothing, that its comparison catches a dropped
row, a changed default and a changed option.

Usage: readme_env.py README.md PGASRUN. Exits 0 when they agree, 1 otherwise.
"""

import re
import subprocess
import sys

SECTION = "## Environment variables"


def readme_rows(path):
    """{name: (default, option)} in order, from the section's table. Option is "" when none."""
    text = open(path, encoding="utf-8").read()
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        sys.exit(f"FAIL: {path} has no '{SECTION}' section")
    section = text[start + len(SECTION) + 2 :]
    end = section.find("\n## ")
    section = section if end < 0 else section[:end]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not re.fullmatch(r"`PGAS_[A-Z0-9_]+`", cells[0]):
            continue
        name = cells[0].strip("`")
        default = "" if cells[1] in ("—", "-", "") else cells[1].strip("`")
        # The option is the meaning's last words, as "(`--option`)".
        option = re.search(r"\(`(-[^`]*)`\)$", cells[-1])
        rows[name] = (default, option.group(1) if option else "")
    return rows


def help_env_rows(pgasrun):
    """{name: (default, option)} in order, from `pgasrun --help-env`."""
    out = subprocess.run([pgasrun, "--help-env"], capture_output=True, text=True, check=True).stdout
    rows = {}
    name = None
    for line in out.splitlines():
        m = re.fullmatch(r"  (PGAS_[A-Z0-9_]+)", line)
        if m:
            name = m.group(1)
            continue
        m = re.fullmatch(r"\s+accepted: .*   default: (\S+)(?:   pgasrun: (\S+))?", line)
        if m and name is not None:
            default = "" if m.group(1) == "(unset)" else m.group(1)
            rows[name] = (default, m.group(2) or "")
            name = None
    return rows


def compare(readme, table):
    """The differences between the README's rows and the table's, one line each."""
    problems = []
    for name in table:
        if name not in readme:
            problems.append(f"{name} is in pgasrun --help-env but not in the README")
    for name in readme:
        if name not in table:
            problems.append(f"{name} is in the README but not in pgasrun --help-env")
    common = [n for n in table if n in readme]
    if common != [n for n in readme if n in table]:
        problems.append("the README lists the variables in another order than pgasrun --help-env")
    for name in common:
        (rd, ro), (td, to) = readme[name], table[name]
        if rd != td:
            problems.append(f"{name}: the README's default is '{rd}', the table's '{td}'")
        if ro != to:
            problems.append(f"{name}: the README's pgasrun option is '{ro}', the table's '{to}'")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    readme_path, pgasrun = sys.argv[1], sys.argv[2]
    readme = readme_rows(readme_path)
    table = help_env_rows(pgasrun)
    failed = False
    if len(table) < 2:
        print(f"FAIL: read {len(table)} variables from pgasrun --help-env")
        failed = True
    for problem in compare(readme, table):
        print(f"FAIL: {problem}")
        failed = True

    usage = subprocess.run([pgasrun, "--help"], capture_output=True, text=True, check=True).stdout
    for name, (_, option) in table.items():
        if option and not re.search(r"(^|[\s,])" + re.escape(option) + r"([\s,]|$)", usage, re.M):
            print(f"FAIL: {name} names pgasrun option '{option}', which pgasrun --help lacks")
            failed = True

    # The comparison itself: each of these must be caught.
    if table:
        first, last = next(iter(table)), list(table)[-1]
        broken = {
            "a dropped row": {n: r for n, r in table.items() if n != last},
            "a changed default": {**table, first: ("42", table[first][1])},
            "a changed option": {**table, first: (table[first][0], "--bogus")},
            "two rows swapped": dict(reversed(list(table.items()))),
        }
        for what, rows in broken.items():
            if not compare(rows, table):
                print(f"FAIL: the comparison misses {what}")
                failed = True

    if not failed:
        print(f"ok: {len(table)} variables agree")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
