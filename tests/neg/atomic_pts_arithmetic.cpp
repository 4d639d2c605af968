// expect: atomic_arithmetic_target
// An arithmetic operation on a UPC_PTS domain (pointers-to-shared support GET, SET and CSWAP
// only): the member does not exist for it.
#include <pgas/atomic.hpp>

void misuse(pgas::atomic_domain<pgas::sptr<int>>& d, pgas::sptr<pgas::sptr<int>> slot) {
  (void)d.fetch_add(slot, pgas::sptr<int>());
}
