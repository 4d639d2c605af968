// tests/tools/data/globals_prog.cpp — a program with known globals, the input of the
// `pgasrun --check-globals` golden tests (tests/tools/golden/check_globals_*.out) and of
// tests/unit/tools/elf_data_test.cpp. It is built with -g and without, never run by the tests.
// Keep the line numbers in the goldens in step when editing.
//
// Listed: every writable object below marked "listed". Not listed: thread_local objects,
// constant tables, objects of the C and C++ runtime this program uses (stderr, std::cout), and
// a pgas static shared object, recognised by its type's name (pgas::static_*) where DWARF has it.
#include <cstdio>
#include <iostream>
#include <string>

// A stand-in for a static shared object of <pgas/static_shared.hpp>: the check only reads the
// type's qualified name, so this program needs no runtime.
namespace pgas {
template <class T>
struct static_scalar {
  T* where = nullptr;
};
}  // namespace pgas

int counter;          // listed: .bss
int seeded = 42;      // listed: .data
double grid[64][64];  // listed: .bss, 32768 bytes
struct stats {
  long hits;
  long misses;
  double ratio;
} totals = {1, 2, 0.5};                    // listed: .data, 24 bytes
thread_local int per_thread_seed = 7;      // thread-local: not listed
thread_local long per_thread_sum;          // thread-local (.tbss): not listed
const int table[4] = {1, 2, 3, 4};         // read-only: not listed
const char* const names[] = {"a", "b"};    // read-only after relocation: not listed
static int file_static = 3;                // listed: a file-scope static
pgas::static_scalar<long> shared_counter;  // shared data on purpose: not listed with -g

namespace app {
std::string label = "globals";  // listed: a std::string at namespace scope
long histogram[16];             // listed
}  // namespace app

int next_id() {
  static int id = 0;  // listed: a function-local static
  return ++id;
}

int main() {
  per_thread_sum += next_id();
  std::printf("%d %d %s\n", file_static, table[per_thread_seed & 3], names[0]);
  std::cout << app::label << shared_counter.where << '\n';
  std::fprintf(stderr, "%ld\n", app::histogram[0] + per_thread_sum);
  return counter + seeded + static_cast<int>(grid[1][1]) + static_cast<int>(totals.hits);
}
