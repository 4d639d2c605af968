// expect: static assertion failed: pgas::fill_ghosts: the array is a const view
// pgas::fill_ghosts into a read-only view, with the whole-pieces form (a ghost width).
#include <pgas/ndarray_copy.hpp>

#include <vector>

void misuse(const pgas::ndarray<const double, 3>& mine,
            const std::vector<pgas::ndarray<double, 3>>& pieces) {
  pgas::fill_ghosts(mine, pieces, 1);
}

// errors: 1
