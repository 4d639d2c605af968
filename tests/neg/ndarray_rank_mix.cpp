// expect: from '(pgas::)?ndarray<int, ?2[^']*>' to non-scalar type '(pgas::)?ndarray<int, ?3
// An ndarray of one rank where another is expected.
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<int, 2>& a) {
  pgas::ndarray<int, 3> b = a;
  (void)b;
}
