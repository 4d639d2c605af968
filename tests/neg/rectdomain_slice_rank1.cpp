// expect: no matching function for call to 'pgas::rectdomain<1>::slice\(int\) const'
// slice() drops a dimension: a rank-1 domain has none to spare.
#include <pgas/rectdomain.hpp>

void misuse(const pgas::rectdomain<1>& r) {
  (void)r.slice(0);
}
