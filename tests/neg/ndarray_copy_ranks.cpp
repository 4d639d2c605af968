// expect: pgas::copy: the destination and the source have different ranks \(slice\(\) the one
// pgas::copy between arrays of different ranks.
#include <pgas/ndarray_copy.hpp>

void misuse(const pgas::ndarray<double, 3>& dst, const pgas::ndarray<double, 2>& src) {
  pgas::copy(dst, src);
}

// errors: 1
