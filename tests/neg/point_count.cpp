// expect: no matching function for call to 'pgas::point<3>::point\(int, int\)'
// A point of rank 3 from two integers: exactly N are needed.
#include <pgas/point.hpp>

pgas::point<3> misuse() {
  return pgas::point<3>(1, 2);
}
