#!/usr/bin/env bash
# tests/integration/cmake_build_tree_test.sh — the build tree's CMake package works uninstalled,
# as the README says: the CMake project in PROJECT_DIR (find_package(pgas 0.1 CONFIG REQUIRED),
# pgas::pgas) configures with -DCMAKE_PREFIX_PATH=BUILD_DIR/src, takes its headers from
# SOURCE_DIR/include and BUILD_DIR/include and its libpgas from BUILD_DIR/src (not from an
# installed pgas), builds, and runs on 2 threads through the build tree's pgasrun (directly and
# as pgas::pgasrun under ctest), printing the expected sum. -Dpgas_DIR=BUILD_DIR/src finds the
# same package, and a version it does not satisfy is refused.
#
#   cmake_build_tree_test.sh BUILD_DIR SOURCE_DIR PROJECT_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
project=$3
# shellcheck source=tests/integration/script_common.sh
source "$(dirname "$0")/script_common.sh"

package=$build/src
[ -f "$package/pgasConfig.cmake" ] || fail "the build tree has no src/pgasConfig.cmake"
[ -f "$package/pgasConfigVersion.cmake" ] || fail "the build tree has no src/pgasConfigVersion.cmake"

cmake -S "$project" -B "$work/b" -DCMAKE_PREFIX_PATH="$package" -DCMAKE_BUILD_TYPE=Release \
  >"$work/cmake.log" 2>&1 || fail "cmake cannot configure the project" "$work/cmake.log"
found=$(sed -n 's/^pgas_DIR:PATH=//p' "$work/b/CMakeCache.txt")
[ "$found" = "$package" ] || fail "find_package(pgas) used $found, not the build tree's $package"
cmake --build "$work/b" --verbose >"$work/build.log" 2>&1 ||
  fail "the project does not build" "$work/build.log"
# The compile line names the source tree's headers and the build tree's generated ones.
for dir in "$source/include" "$build/include"; do
  grep -q -- "-isystem $dir " "$work/build.log" ||
    fail "the compile does not use $dir" "$work/build.log"
done

# The program finds the build tree's libpgas by the rpath CMake gave it.
ldd "$work/b/sum" >"$work/ldd.log" 2>&1
grep -q "libpgas.so.0 => $build/src/libpgas.so.0 " "$work/ldd.log" ||
  fail "sum does not load $build/src/libpgas.so.0" "$work/ldd.log"

expect_sum "$build/tools/pgasrun" "$work/b/sum"
# ctest runs it through pgas::pgasrun, which is the build tree's pgasrun.
grep -q "$build/tools/pgasrun" "$work/b/CTestTestfile.cmake" ||
  fail "pgas::pgasrun is not $build/tools/pgasrun" "$work/b/CTestTestfile.cmake"
(cd "$work/b" && PGAS_THREADS='' ctest --output-on-failure) >"$work/ctest.log" 2>&1 ||
  fail "ctest (pgas::pgasrun -n 2 sum) failed" "$work/ctest.log"

# -Dpgas_DIR names the package directory itself; a version the build does not satisfy is
# refused, naming the version it found.
cmake -S "$project" -B "$work/d" -Dpgas_DIR="$package" >"$work/dir.log" 2>&1 ||
  fail "cmake -Dpgas_DIR=$package cannot configure the project" "$work/dir.log"
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$package/pgasConfigVersion.cmake")
mkdir -p "$work/v"
cat >"$work/v/CMakeLists.txt" <<EOF2
cmake_minimum_required(VERSION 3.16)
project(v CXX)
find_package(pgas 99 CONFIG REQUIRED)
EOF2
if cmake -S "$work/v" -B "$work/v/b" -DCMAKE_PREFIX_PATH="$package" >"$work/v.log" 2>&1; then
  fail "find_package(pgas 99) accepted the build tree's version $version"
fi
grep -q "pgasConfig.cmake, version: $version" "$work/v.log" ||
  fail "find_package(pgas 99) failed without naming the version it found" "$work/v.log"
echo "ok: find_package(pgas CONFIG) from the build tree $build; built, ran on 2 threads via pgasrun and ctest; pgas_DIR and versions checked"
