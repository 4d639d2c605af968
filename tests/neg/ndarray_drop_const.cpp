// expect: from '(pgas::)?ndarray<const int, ?2[^']*>' to non-scalar type '(pgas::)?ndarray<int
// Dropping const from an ndarray's elements.
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<const int, 2>& c) {
  pgas::ndarray<int, 2> a = c;
  (void)a;
}
