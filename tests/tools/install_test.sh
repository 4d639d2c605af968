#!/usr/bin/env bash
# tests/tools/install_test.sh — an installed pgas is usable as the README says: `meson install`
# into a staging directory, then a program that includes <pgas/pgas.hpp> builds with nothing but
# `pkg-config --cflags --libs pgas`, and with the README's CMake recipe, and runs (through the
# installed pgasrun). libpgas exports only the API: no internal function is a dynamic symbol.
#
#   install_test.sh BUILD_DIR SOURCE_FILE
set -uo pipefail
build=$1
source=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail=0

if ! meson install -C "$build" --destdir "$stage" --no-rebuild >"$stage/install.log" 2>&1; then
  echo "FAIL: meson install"
  cat "$stage/install.log"
  exit 1
fi
pc=$(find "$stage" -name pgas.pc | head -1)
lib=$(find "$stage" -name 'libpgas.so' | head -1)
if [ -z "$pc" ] || [ -z "$lib" ]; then
  echo "FAIL: the install has no pgas.pc or libpgas.so"
  exit 1
fi
# The library's manual page and the opt-in UPC header are installed with the rest.
for f in 'man7/pgas.7' 'include/pgas/upc.hpp' 'include/pgas/detail/upc_statement.hpp'; do
  if [ -z "$(find "$stage" -path "*/$f" | head -1)" ]; then
    echo "FAIL: the install has no $f"
    fail=1
  fi
done
# The .pc's prefix, moved to where it was staged.
prefix=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=prefix pgas)
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$stage$prefix" \
  --cflags --libs pgas)
if ! c++ -O2 "$source" $flags -o "$stage/hello" 2>"$stage/cc.log"; then
  echo "FAIL: a program does not build with pkg-config --cflags --libs pgas ($flags):"
  cat "$stage/cc.log"
  fail=1
else
  pgasrun=$(find "$stage" -name pgasrun -type f | head -1)
  out=$(LD_LIBRARY_PATH=$(dirname "$lib") PGAS_THREADS= "$pgasrun" -n 2 "$stage/hello" 2>&1)
  if [ "$(grep -c '^hello from thread' <<<"$out")" -ne 2 ]; then
    echo "FAIL: the installed program did not greet from 2 threads:"
    echo "$out"
    fail=1
  fi
fi

# The README's CMake recipe, through the same pgas.pc (copied with its prefix moved to the stage).
mkdir -p "$stage/pc" "$stage/cmake"
sed "s|^prefix=.*|prefix=$stage$prefix|" "$pc" >"$stage/pc/pgas.pc"
cp "$source" "$stage/cmake/hello.cpp"
cat >"$stage/cmake/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(hello CXX)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PGAS REQUIRED IMPORTED_TARGET pgas)
add_executable(hello hello.cpp)
target_compile_features(hello PRIVATE cxx_std_20)
target_link_libraries(hello PRIVATE PkgConfig::PGAS)
EOF
if ! PKG_CONFIG_PATH="$stage/pc" cmake -S "$stage/cmake" -B "$stage/cmake/b" >"$stage/cmake.log" 2>&1 ||
  ! cmake --build "$stage/cmake/b" >>"$stage/cmake.log" 2>&1; then
  echo "FAIL: the README's CMake recipe does not build:"
  cat "$stage/cmake.log"
  fail=1
elif [ "$(LD_LIBRARY_PATH=$(dirname "$lib") PGAS_THREADS=2 "$stage/cmake/b/hello" | grep -c '^hello from thread')" -ne 2 ]; then
  echo "FAIL: the program built with CMake did not greet from 2 threads"
  fail=1
fi

# Internals stay hidden: the OS door, env table, faults, space, arenas, barrier internals. The
# symbol list is read whole first: `grep -q` on a pipe would close it early, and under pipefail
# nm's SIGPIPE would read as a missing symbol.
symbols=$(nm -D --defined-only "$lib" | c++filt)
leaked=$(grep -E 'pgas::detail::(os_|env_|fault|space_|arena|barrier_|job_current|collective|agreement|segment_|symmetric)' <<<"$symbols" || true)
if [ -n "$leaked" ]; then
  echo "FAIL: libpgas exports internal symbols:"
  echo "$leaked"
  fail=1
fi
if ! grep -q ' pgas::run(int, char\*\*' <<<"$symbols"; then
  echo "FAIL: libpgas does not export pgas::run"
  fail=1
fi
[ "$fail" -eq 0 ] && echo "ok: installed, built with pkg-config alone and with CMake, ran on 2 threads; internals hidden"
exit "$fail"
