// expect: no match for 'operator\+' \(operand types are 'pgas::point<2>' and 'pgas::point<3>'\)
// Points of different ranks do not mix.
#include <pgas/point.hpp>

void misuse(pgas::point<2> p, pgas::point<3> q) {
  (void)(p + q);
}
