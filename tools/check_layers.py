#!/usr/bin/env python3
"""tools/check_layers.py — fails when an #include goes against the layers.

The tree is layered (docs/architecture.md):

    base  <-  models  <-  job  <-  objects  <-  tools, kernels, tests
      ^                    |
      +---- alloc  <-------+

A file may include headers of its own layer and of the layers it is allowed to use, never
one above: the shared space (alloc/) uses only the base; the models use only the base; the job
uses everything below it. Internal headers are included by their path from the top of the tree
("src/base/os.hpp", "alloc/space.hpp"); public headers (<pgas/...>) belong to the layer the
table below gives them, so that a public header cannot pull a higher layer in either.

Usage: check_layers.py [--root DIR]. Prints one line per violation ("FILE:LINE: LAYER file
includes HEADER of layer LAYER") and exits 1 when there is any, 0 otherwise, 2 on a bad tree.
"""

import argparse
import os
import re
import sys

# Which layers each layer may include (its own included).
ALLOWED = {
    "base": {"base"},
    "models": {"base", "models"},
    "alloc": {"base", "alloc"},
    "job": {"base", "models", "alloc", "job"},
    "objects": {"base", "models", "alloc", "job", "objects"},
    "top": {"base", "models", "alloc", "job", "objects", "top"},
}

# The layer of every public header. A new public header must be added here.
PUBLIC = {
    "config.hpp": "base",
    "ticks.hpp": "base",
    "error.hpp": "base",
    "detail/export.hpp": "base",
    "detail/build_config.hpp": "base",
    "detail/identity.hpp": "base",
    "detail/upc_call.hpp": "base",
    "shared_storable.hpp": "base",
    "topology.hpp": "models",
    "layout.hpp": "models",
    "owned_range.hpp": "models",
    "table_model.hpp": "models",
    "cut_model.hpp": "models",
    "point.hpp": "models",
    "rectdomain.hpp": "models",
    "domain.hpp": "models",
    "detail/geometry.hpp": "alloc",
    "runtime.hpp": "job",
    "sync.hpp": "job",
    "lock.hpp": "job",
    "collectives.hpp": "job",
    "detail/value_exchange.hpp": "job",
    "detail/static_registry.hpp": "job",
    "trace.hpp": "job",
    "reuse.hpp": "job",
    "detail/trace_hook.hpp": "job",
    "detail/sync_listener.hpp": "job",
    "alloc.hpp": "objects",
    "atomic.hpp": "objects",
    "cache.hpp": "objects",
    "coalesce.hpp": "objects",
    "detail/atomic_apply.hpp": "objects",
    "sptr.hpp": "objects",
    "bulk.hpp": "objects",
    "castable.hpp": "objects",
    "strict.hpp": "objects",
    "nb.hpp": "objects",
    "forall.hpp": "objects",
    "foreach.hpp": "objects",
    "ndarray.hpp": "objects",
    "ndarray_copy.hpp": "objects",
    "cuts.hpp": "objects",
    "shared_array.hpp": "objects",
    "static_shared.hpp": "objects",
    "privatize.hpp": "objects",
    "upc_collectives.hpp": "objects",
    "upc.hpp": "objects",
    "detail/block.hpp": "objects",
    "detail/bulk_check.hpp": "objects",
    "detail/forall_affinity.hpp": "objects",
    "detail/shared_array_impl.hpp": "objects",
    "detail/sptr_word.hpp": "objects",
    "detail/table_index.hpp": "objects",
    "detail/upc_statement.hpp": "objects",
    "detail/upc_arg.hpp": "objects",
    "pgas.hpp": "top",
}

# Third-party headers a layer must not use (each has its own door).
FORBIDDEN_EXTERNAL = {
    "alloc": {"hwloc.h": "hwloc belongs to the base (os) and the models (topology)"},
}

FOLDERS = [
    ("src/base/", "base"),
    ("src/models/", "models"),
    ("src/job/", "job"),
    ("src/objects/", "objects"),
    ("alloc/", "alloc"),
    ("tools/", "top"),
    ("kernels/", "top"),
    ("tests/", "top"),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCES = (".cpp", ".hpp", ".h", ".hpp.in")


def layer_of(path):
    """The layer of a file given by its path from the top of the tree, or None."""
    if path.startswith("include/pgas/"):
        name = path[len("include/pgas/"):]
        if name.endswith(".in"):
            name = name[:-3]
        return PUBLIC.get(name, "unknown")
    for prefix, layer in FOLDERS:
        if path.startswith(prefix):
            return layer
    return None


def resolve(including, kind, name, root):
    """The included file's path from the top of the tree, or None for a third-party header."""
    if name.startswith("pgas/"):
        return "include/" + name
    if kind == '"':
        for candidate in (name, os.path.normpath(os.path.join(os.path.dirname(including), name))):
            if os.path.exists(os.path.join(root, candidate)) or candidate.startswith(
                    ("src/", "alloc/")):
                return candidate
    return None


def check(root):
    problems = []
    for top in ("include", "src", "alloc", "tools", "kernels", "tests"):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCES):
                    continue
                path = os.path.relpath(os.path.join(folder, f), root)
                mine = layer_of(path)
                if mine is None:
                    continue
                if mine == "unknown":
                    problems.append(f"{path}:1: public header has no layer: add it to "
                                    f"PUBLIC in tools/check_layers.py")
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as src:
                    for number, line in enumerate(src, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        kind, name = m.groups()
                        target = resolve(path, kind, name, root)
                        if target is None:
                            why = FORBIDDEN_EXTERNAL.get(mine, {}).get(name)
                            if why:
                                problems.append(f"{path}:{number}: {mine} file includes <{name}>: "
                                                f"{why}")
                            continue
                        theirs = layer_of(target)
                        if theirs is None:
                            continue
                        if theirs == "unknown":
                            problems.append(f"{path}:{number}: includes {name}, a public header "
                                            f"with no layer")
                        elif theirs not in ALLOWED[mine]:
                            problems.append(f"{path}:{number}: {mine} file includes {name} of "
                                            f"layer {theirs}")
    return problems


def main():
    parser = argparse.ArgumentParser(description="Fails when an #include goes against the layers.")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="top of the tree to check (default: this script's tree)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "include", "pgas")):
        print(f"check_layers: {root} has no include/pgas: not a pgas tree", file=sys.stderr)
        return 2
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the layers "
              f"(see docs/architecture.md)", file=sys.stderr)
        return 1
    print("check_layers: every include follows the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
