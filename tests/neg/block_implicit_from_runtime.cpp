// expect: '(pgas::)?sptr<int, ?18446744073709551615>' to non-scalar type '(pgas::)?sptr<int, ?4>'
// A run-time-block pointer does not convert implicitly to a compile-time block: its block may
// differ (explicit: pgas::sptr<int, 4>(d), which resets the phase when it does).
#include <pgas/sptr.hpp>

void misuse(pgas::sptr<int, pgas::dynamic_block> d) {
  pgas::sptr<int, 4> q = d;
  (void)q;
}
