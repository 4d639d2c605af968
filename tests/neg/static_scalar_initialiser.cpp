// expect: pgas::static_scalar takes no initialiser: it is zero when each job starts
// UPC's `shared int sum = 0;` ported with its initialiser.
#include <pgas/static_shared.hpp>

pgas::static_scalar<int> sum = 0;
