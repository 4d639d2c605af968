// expect: static assertion failed: pgas::copy: the destination's and the source's element types
// differ pgas::copy between arrays of different element types (it converts nothing).
#include <pgas/ndarray_copy.hpp>

void misuse(const pgas::ndarray<double, 2>& dst, const pgas::ndarray<float, 2>& src) {
  pgas::copy(dst, src);
}

// errors: 1
