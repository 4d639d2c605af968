// expect: static assertion failed: pgas::copy: the source is not a pgas::ndarray
// pgas::copy from a std::vector: copy() moves elements between ndarrays only.
#include <pgas/ndarray_copy.hpp>

#include <vector>

void misuse(const pgas::ndarray<double, 1>& dst, const std::vector<double>& src) {
  pgas::copy(dst, src);
}

// errors: 1
