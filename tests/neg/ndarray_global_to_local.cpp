// expect: to non-scalar type '(pgas::)?ndarray<int, ?2, ?pgas::local>'
// A local ndarray made implicitly from a global one, which may be another thread's piece
// (as_local() converts, checked at run time).
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<int, 2, pgas::global>& g) {
  pgas::ndarray<int, 2, pgas::local> l = g;
  (void)l;
}
