// expect: static assertion failed: pgas::copy: the destination is not a pgas::ndarray
// pgas::copy_nb into a std::vector: copy_nb() moves elements between ndarrays only.
#include <pgas/ndarray_copy.hpp>

#include <vector>

pgas::nb_handle misuse(std::vector<double>& dst, const pgas::ndarray<double, 1>& src) {
  return pgas::copy_nb(dst, src);
}

// errors: 1
