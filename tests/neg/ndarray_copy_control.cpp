// expect: compiles
// The correct uses of pgas/ndarray_copy.hpp that the ndarray_copy_* cases get wrong.
#include <pgas/ndarray_copy.hpp>

void fine(const pgas::ndarray<double, 2>& dst, const pgas::ndarray<const double, 2>& src,
          const pgas::ndarray<double, 2, pgas::local, pgas::simple>& mine) {
  pgas::copy(dst, src);
  pgas::copy(mine, dst.transpose());
  pgas::nb_handle h = pgas::copy_nb(dst, mine);
  pgas::sync(h);
  const std::vector<pgas::ndarray<double, 2>> dir = pgas::exchange(mine);
  pgas::fill_ghosts(mine, dir, 1);
  pgas::fill_ghosts(mine, dir, pgas::ghost_sync::entry);
}
