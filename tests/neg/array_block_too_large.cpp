// expect: static assertion failed: block size exceeds config::max_block
// A shared array with a compile-time block above config::max_block.
#include <pgas/shared_array.hpp>

void misuse() {
  pgas::shared_array<int, 1, pgas::config::max_block + 1> a({10});
}
