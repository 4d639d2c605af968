// expect: static assertion failed: pgas::fill_ghosts: the pieces' element type differs from the
// array's pgas::fill_ghosts of a double grid from a directory of float pieces.
#include <pgas/ndarray_copy.hpp>

#include <vector>

void misuse(const pgas::ndarray<double, 2>& mine, const std::vector<pgas::ndarray<float, 2>>& dir) {
  pgas::fill_ghosts(mine, dir);
}

// errors: 1
