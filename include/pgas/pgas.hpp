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
// `pgasrun -n 4 ./prog`. Each header is the manual for its part; the error model is stated
// once at the top of runtime.hpp.
#pragma once

#include <pgas/alloc.hpp>
#include <pgas/bulk.hpp>
#include <pgas/config.hpp>
#include <pgas/error.hpp>
#include <pgas/forall.hpp>
#include <pgas/layout.hpp>
#include <pgas/lock.hpp>
#include <pgas/privatize.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sptr.hpp>
#include <pgas/sync.hpp>
#include <pgas/table_model.hpp>
#include <pgas/topology.hpp>
