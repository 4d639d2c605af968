// expect: assignment of read-only location
// Writing through a const view of an ndarray.
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<int, 2>& a) {
  const pgas::ndarray<const int, 2> c = a;
  c(1, 1) = 3;
}
