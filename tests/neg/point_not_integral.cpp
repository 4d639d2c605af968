// expect: no matching function for call to 'pgas::point<2>::point\(double, int\)'
// A point from a floating-point index: indices are integers (no silent truncation).
#include <pgas/point.hpp>

pgas::point<2> misuse() {
  return pgas::point<2>(1.5, 2);
}
