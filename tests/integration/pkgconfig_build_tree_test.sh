#!/usr/bin/env bash
# tests/integration/pkgconfig_build_tree_test.sh — the build tree's pkg-config file works
# uninstalled, as the README says: with PKG_CONFIG_PATH=BUILD_DIR/meson-uninstalled,
# `pkg-config --cflags --libs pgas-uninstalled` names the source tree's public headers, the
# build tree's generated ones and the build tree's libpgas, and the CMake test project's
# PROGRAM (a plain C++ file) built with those flags alone runs on 2 threads through the build
# tree's pgasrun, printing the expected sum.
#
#   pkgconfig_build_tree_test.sh BUILD_DIR SOURCE_DIR PROGRAM
set -uo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
program=$3
# shellcheck source=tests/integration/script_common.sh
source "$(dirname "$0")/script_common.sh"

export PKG_CONFIG_PATH=$build/meson-uninstalled
flags=$(pkg-config --cflags --libs pgas-uninstalled 2>"$work/pc.log") ||
  fail "pkg-config does not find pgas-uninstalled in $PKG_CONFIG_PATH" "$work/pc.log"
for want in "-I$source/include" "-I$build/include" "-L$build/src"; do
  case " $flags " in
    *" $want "*) ;;
    *) fail "pkg-config --cflags --libs pgas-uninstalled lacks $want: $flags" ;;
  esac
done

# shellcheck disable=SC2086 # the flags are words
c++ -O2 "$program" $flags -Wl,-rpath,"$build/src" -o "$work/sum" >"$work/build.log" 2>&1 ||
  fail "c++ PROGRAM \$(pkg-config --cflags --libs pgas-uninstalled) does not build" "$work/build.log"
expect_sum "$build/tools/pgasrun" "$work/sum"
echo "ok: built with pkg-config pgas-uninstalled from $build and ran on 2 threads"
