// expect: static assertion failed: shared data must be trivially copyable, trivially destructible
// and valid as zero bytes Shared memory starts as zero bytes and no constructor runs in it: a type
// whose default constructor sets another value cannot be shared data (pgas/shared_storable.hpp).
#include <pgas/static_shared.hpp>

struct starts_at_one {
  starts_at_one() : v(1) {}
  int v;
};

pgas::static_array<starts_at_one> a(pgas::per_thread(1));
