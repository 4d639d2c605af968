#!/usr/bin/env bash
# tests/integration/cmake_package_test.sh — the installed CMake package works as the README
# says: `meson install` into a staging directory, then the CMake project in PROJECT_DIR
# (find_package(pgas 0.1 CONFIG REQUIRED), pgas::pgas) configures with
# -DCMAKE_PREFIX_PATH=<staged prefix>, builds, and its program runs on 2 threads through the
# installed pgasrun, printing the expected sum. A request for a version the install does not
# satisfy is refused.
#
#   cmake_package_test.sh BUILD_DIR PROJECT_DIR
set -uo pipefail
build=$1
project=$2
# shellcheck source=tests/integration/script_common.sh
source "$(dirname "$0")/script_common.sh"

meson install -C "$build" --destdir "$work" --no-rebuild >"$work/install.log" 2>&1 ||
  fail "meson install" "$work/install.log"
config=$(find "$work" -path '*/cmake/pgas/pgasConfig.cmake' | head -1)
[ -n "$config" ] || fail "the install has no <libdir>/cmake/pgas/pgasConfig.cmake"
[ -f "$(dirname "$config")/pgasConfigVersion.cmake" ] || fail "the install has no pgasConfigVersion.cmake"
# <stage><prefix>/<libdir>/cmake/pgas → <stage><prefix>: the package finds it the same way.
prefix=$(cd "$(dirname "$config")" && cd "$(sed -n 's|.*CMAKE_CURRENT_LIST_DIR}/\([./]*\)".*|\1|p' "$config")" && pwd)
[ -f "$prefix/include/pgas/pgas.hpp" ] || fail "cannot find the staged prefix from $config"

cmake -S "$project" -B "$work/b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/cmake.log" 2>&1 || fail "cmake cannot configure the project" "$work/cmake.log"
cmake --build "$work/b" >"$work/build.log" 2>&1 || fail "the project does not build" "$work/build.log"

# The staged pgasrun's rpath names the final prefix, not the stage: show it the staged library.
lib=$(find "$prefix" -name 'libpgas.so.*' -type f | head -1)
pgasrun=$prefix/bin/pgasrun
LD_LIBRARY_PATH=$(dirname "$lib") expect_sum "$pgasrun" "$work/b/sum"
# The program finds libpgas by the rpath CMake gave it (no LD_LIBRARY_PATH), and ctest runs it
# through pgas::pgasrun.
[ "$(PGAS_THREADS=2 "$work/b/sum" 2>&1)" = "cmake package: 2 threads, sum 3" ] ||
  fail "the program does not run on its own (rpath to the imported libpgas?)"
(cd "$work/b" && LD_LIBRARY_PATH=$(dirname "$lib") PGAS_THREADS= ctest --output-on-failure) \
  >"$work/ctest.log" 2>&1 || fail "ctest (pgas::pgasrun -n 2 sum) failed" "$work/ctest.log"

# Version requests: 0.1 (above) is satisfied; 1.0 and 99 are not, and say so.
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$(dirname "$config")/pgasConfigVersion.cmake")
mkdir -p "$work/v"
for want in 1.0 99; do
  cat >"$work/v/CMakeLists.txt" <<EOF2
cmake_minimum_required(VERSION 3.16)
project(v CXX)
find_package(pgas $want CONFIG REQUIRED)
EOF2
  if cmake -S "$work/v" -B "$work/v/b$want" -DCMAKE_PREFIX_PATH="$prefix" >"$work/v.log" 2>&1; then
    fail "find_package(pgas $want) accepted version $version"
  fi
  grep -q "pgasConfig.cmake, version: $version" "$work/v.log" ||
    fail "find_package(pgas $want) failed without naming the version it found" "$work/v.log"
done
echo "ok: find_package(pgas CONFIG) from a staged install; built, ran on 2 threads via pgasrun and ctest; versions checked"
