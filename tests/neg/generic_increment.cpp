// expect: no match for 'operator\+\+'.*sptr<void
// ++ on the generic pointer-to-shared: no element or block size to step by.
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<void> g) {
  ++g;
}
