// expect: static assertion failed: pgas::copy: the destination is a const view
// pgas::copy_nb into a read-only view.
#include <pgas/ndarray_copy.hpp>

void misuse(const pgas::ndarray<const double, 2>& dst, const pgas::ndarray<double, 2>& src) {
  pgas::nb_handle h = pgas::copy_nb(dst, src);
  pgas::sync(h);
}

// errors: 1
