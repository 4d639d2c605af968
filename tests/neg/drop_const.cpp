// expect: from '(pgas::)?sptr<const int, ?4>' to non-scalar type '(pgas::)?sptr<int, ?4>'
// Dropping const implicitly.
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<const int, 4> c) {
  pgas::sptr<int, 4> p = c;
  (void)p;
}
