// tests/tools/data/no_globals_prog.cpp — a program whose only globals are thread-local or
// constant: `pgasrun --check-globals` finds nothing and exits 0 (tests/tools/meson.build).
#include <cstdio>

thread_local int calls = 0;
const int primes[4] = {2, 3, 5, 7};

int main() {
  ++calls;
  std::printf("%d\n", primes[calls]);
  return 0;
}
