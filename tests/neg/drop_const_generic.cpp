// expect: from '(pgas::)?sptr<const int, ?4>' to non-scalar type '(pgas::)?sptr<void(, ?1)?>'
// Dropping const on the way to the generic pointer-to-shared (UPC: `shared const void *` only).
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<const int, 4> c) {
  pgas::sptr<void> g = c;
  (void)g;
}
