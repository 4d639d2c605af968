// pgas/pgas.hpp — the whole public API of pgas in one include.
//
//   #include <pgas/pgas.hpp>
//   int main(int argc, char** argv) {
//     return pgas::run(argc, argv, [](int, char**) {
//       std::printf("hello from thread %d of %d\n", pgas::mythread(), pgas::threads());
//       pgas::barrier();
//       return 0;
//     });
//   }
//
// Build with `c++ prog.cpp $(pkg-config --cflags --libs pgas)` and launch with
// `pgasrun -n 4 ./prog`. Each header is the manual for its part and states its contract:
// collective or not, errors, behaviour outside a job, memory ordering and thread safety. The
// error model they share — misuse ends the job inside one and throws pgas::usage_error
// outside — is stated once, in error.hpp. UPC's own names (MYTHREAD, upc_barrier, upc_lock_t,
// upc_all_alloc, …) come from <pgas/upc.hpp>, which is not included here: it is opt-in, as it
// defines macros and global names. The manual page pgas(7) maps every UPC name to its pgas one.
#pragma once

#include <pgas/alloc.hpp>
#include <pgas/atomic.hpp>
#include <pgas/bulk.hpp>
#include <pgas/cache.hpp>
#include <pgas/castable.hpp>
#include <pgas/coalesce.hpp>
#include <pgas/collectives.hpp>
#include <pgas/config.hpp>
#include <pgas/cuts.hpp>
#include <pgas/domain.hpp>
#include <pgas/error.hpp>
#include <pgas/forall.hpp>
#include <pgas/foreach.hpp>
#include <pgas/layout.hpp>
#include <pgas/lock.hpp>
#include <pgas/nb.hpp>
#include <pgas/ndarray.hpp>
#include <pgas/ndarray_copy.hpp>
#include <pgas/owned_range.hpp>
#include <pgas/point.hpp>
#include <pgas/privatize.hpp>
#include <pgas/rectdomain.hpp>
#include <pgas/reuse.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/shared_storable.hpp>
#include <pgas/sptr.hpp>
#include <pgas/static_shared.hpp>
#include <pgas/strict.hpp>
#include <pgas/sync.hpp>
#include <pgas/table_model.hpp>
#include <pgas/ticks.hpp>
#include <pgas/topology.hpp>
#include <pgas/trace.hpp>
#include <pgas/upc_collectives.hpp>
