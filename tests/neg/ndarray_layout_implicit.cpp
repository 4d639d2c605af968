// expect: to non-scalar type '(pgas::)?ndarray<int, ?2, ?pgas::global, ?pgas::simple>'
// A strided view made simple implicitly (as_layout<pgas::simple>() converts, checked).
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<int, 2>& a) {
  pgas::ndarray<int, 2, pgas::global, pgas::simple> s = a;
  (void)s;
}
