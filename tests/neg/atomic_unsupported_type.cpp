// expect: static assertion failed: pgas::atomic_domain: T must be int, unsigned, long
// UPC's atomics are defined for int, unsigned, long, unsigned long, (u)int32_t, (u)int64_t,
// float and double (UPC_INT ... UPC_DOUBLE); a domain for short does not compile.
#include <pgas/atomic.hpp>

void misuse() {
  pgas::atomic_domain<short> d(pgas::atomic_op::fadd);
}
