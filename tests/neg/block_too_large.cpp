// expect: static assertion failed: block size exceeds config::max_block
// A compile-time block above config::max_block (2^sptr_phase_bits): the phase cannot hold it.
#include <pgas/sptr.hpp>

void misuse() {
  pgas::sptr<int, pgas::config::max_block + 1> p;
  (void)p;
}
