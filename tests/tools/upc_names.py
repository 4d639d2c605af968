#!/usr/bin/env python3
"""The UPC-to-pgas map of pgas(7) and <pgas/upc.hpp> agree, and the unit test uses every name.

Usage: upc_names.py docs/pgas.7 include/pgas/upc.hpp tests/unit/include/upc_test.cpp

Every UPC name in the manual page's section UPC NAMES must be defined by upc.hpp and used by
upc_test.cpp (so each one compiles and is exercised); every name upc.hpp defines at global scope
must be listed in that section. Exit status 1 lists what is missing where.
"""
import re
import sys

NAME = re.compile(r"\b(upc_[A-Za-z0-9_]+|UPC_[A-Z0-9_]+|MYTHREAD|THREADS)\b(?!\.hpp)")
# What upc.hpp defines at global scope: macros, functions, aliases, constants, types.
DEFINED = [
    re.compile(r"^#define (\w+)", re.M),
    re.compile(r"^(?:\[\[\w+\]\] )?(?:inline |constexpr )+[\w:<>* ]+?\b(upc_\w+)\(", re.M),
    re.compile(r"^template <[^>]*>\n(?:requires [^\n]*\n)?(?:constexpr )?[\w:<>, ]+? (upc_\w+)\(", re.M),
    re.compile(r"^using (\w+) =", re.M),
    re.compile(r"^inline constexpr [\w:]+ (\w+)\b", re.M),
    re.compile(r"^struct (upc_\w+);", re.M),
    re.compile(r"^  inline void (upc_all_(?:prefix_)?reduce)##SUFFIX", re.M),
]


def main(page_path, header_path, test_path):
    page = open(page_path, encoding="utf-8").read()
    header = open(header_path, encoding="utf-8").read()
    test = open(test_path, encoding="utf-8").read()
    m = re.search(r"^\.SH UPC NAMES\n(.*?)^\.SH ", page, re.M | re.S)
    if not m:
        print(f"{page_path}: no section UPC NAMES")
        return 1
    listed = set(NAME.findall(m.group(1)))
    problems = []
    for name in sorted(listed):
        if not re.search(r"\b" + name + r"\b", header):
            # The typed reductions are made by a macro: upc_all_reduce##SUFFIX(..., TYPE).
            r = re.fullmatch(r"(upc_all_(?:prefix_)?reduce)(C|UC|S|US|I|UI|L|UL|F|D|LD)", name)
            if not (r and re.search(r"PGASI_UPC_REDUCE\(" + r.group(2) + ",", header)):
                problems.append(f"{name}: listed in {page_path} but not defined by {header_path}")
        if not re.search(r"\b" + name + r"\b", test):
            problems.append(f"{name}: listed in {page_path} but not used by {test_path}")
    defined = set()
    for pattern in DEFINED:
        defined.update(pattern.findall(header))
    defined = {d for d in defined if NAME.fullmatch(d)}
    for name in sorted(defined):
        if name in ("upc_all_reduce", "upc_all_prefix_reduce"):
            if not any(n.startswith(name) and n[len(name):] in ("C", "LD") for n in listed):
                problems.append(f"{name}T: defined by {header_path} but not listed in {page_path}")
        elif name not in listed:
            problems.append(f"{name}: defined by {header_path} but not listed in {page_path}")
    for p in problems:
        print(p)
    print(f"upc_names: {len(listed)} names listed, {len(defined)} defined, {len(problems)} problems")
    return 1 if problems or len(listed) < 100 else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
