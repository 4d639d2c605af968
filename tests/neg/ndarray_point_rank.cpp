// expect: no match for 'operator\[\]' \(operand types are '[^']*ndarray<int, ?2[^']*>' and
// A 3-D point indexing a 2-D ndarray.
#include <pgas/ndarray.hpp>

void misuse(const pgas::ndarray<int, 2>& a) {
  a[pgas::point<3>(1, 2, 3)] = 0;
}
