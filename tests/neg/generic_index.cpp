// expect: no match for 'operator\[\]'.*sptr<(const )?void
// Indexing the generic pointer-to-shared.
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<const void> g) {
  (void)g[1];
}
