// expect: no match for 'operator\+' \(operand types are 'const pgas::domain<2>' and 'const
// pgas::rectdomain<3>'\) Domains of different ranks do not combine.
#include <pgas/domain.hpp>

void misuse(const pgas::domain<2>& d, const pgas::rectdomain<3>& r) {
  (void)(d + r);
}
