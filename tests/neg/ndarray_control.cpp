// expect: compiles
// The positive control of the ndarray cases: the correct form of each of their misuses.
#include <pgas/ndarray.hpp>

void control(const pgas::ndarray<int, 2>& a, const pgas::ndarray<int, 3>& a3) {
  const pgas::ndarray<const int, 2> c = a;  // a const view: reading only
  const int x = c(1, 1) + c[pgas::point<2>(0, 1)];
  a(1, 1) = x;                         // writing through a non-const one
  const pgas::ndarray<int, 3> b = a3;  // same rank
  a3(1, 2, 3) = 0;
  b[pgas::point<3>(1, 2, 3)] = 0;
  const pgas::ndarray<int, 2, pgas::local> l = a.as_local();         // checked at run time
  const pgas::ndarray<int, 2, pgas::global> g = l;                   // local to global: implicit
  const auto s = a.as_layout<pgas::simple>();                        // checked at run time
  const pgas::ndarray<int, 2, pgas::global, pgas::unstrided> u = s;  // simple to unstrided
  const pgas::ndarray<int, 2> back = u;                              // to strided: implicit
  (void)g;
  (void)back;
}
