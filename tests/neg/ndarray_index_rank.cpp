// expect: no match for call to '\(const (pgas::)?ndarray<int, ?2[^']*>\) \(int, int, int\)'
// Three indices for a 2-D ndarray.
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<int, 2>& a) {
  a(1, 2, 3) = 0;
}
