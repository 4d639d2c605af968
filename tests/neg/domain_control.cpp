// expect: compiles
// The positive control of the point/rectdomain/domain cases: their correct forms.
#include <pgas/domain.hpp>

void control(pgas::point<2> p, const pgas::domain<2>& d, const pgas::rectdomain<3>& r) {
  const pgas::point<3> q(1, 2, 3);
  const pgas::point<2> f(static_cast<long>(1.5), 2);
  (void)(p + pgas::point<2>(q[0], q[1]) + f);
  (void)r.slice(0);
  (void)(d + r.slice(0));
  (void)(pgas::rectdomain<1>(0, 4) + pgas::rectdomain<1>(6, 8));
}
