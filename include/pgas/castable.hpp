// pgas/castable.hpp — casting pointers-to-shared to plain pointers and asking which threads'
// data can be cast (the UPC 1.3 castability library, <upc_castable.h>: upc_cast,
// upc_thread_info, UPC_CASTABLE_*).
//
// In pgas every thread of a job lives in one process and all shared memory is one mapping, so
// every element of every thread — however it was allocated (all_alloc, global_alloc,
// local_alloc, shared arrays) — has an ordinary address that any thread may use:
// thread_info() reports everything castable, and cast() fails only for the null
// pointer-to-shared. (UPC allows an implementation to refuse casts to other threads' data; a
// portable program checks; one written for pgas need not.)
//
// Contract.
//   * Collective: no. Thread-safe.
//   * Errors (pgas/error.hpp): thread_info() of a thread outside [0, THREADS) is misuse.
//     cast() checks nothing (as to_local).
//   * Outside a job: THREADS is 1, so thread_info(0) is valid; there is no shared memory, so
//     the only pointer-to-shared to cast is the null one.
//   * Memory ordering: none. Accesses through the plain pointer are relaxed accesses, like
//     *p (pgas/strict.hpp says what that means).
#pragma once

#include <cstddef>
#include <source_location>
#include <string>

#include <pgas/error.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// UPC UPC_CASTABLE_*: kinds of shared data, as bits of thread_info_t's masks.
inline constexpr int castable_all_alloc = 1 << 0;     // from all_alloc (upc_all_alloc)
inline constexpr int castable_global_alloc = 1 << 1;  // from global_alloc (upc_global_alloc)
inline constexpr int castable_alloc = 1 << 2;         // from local_alloc (upc_alloc)
inline constexpr int castable_static = 1 << 3;        // shared arrays (UPC's static shared data)
inline constexpr int castable_all =
    castable_all_alloc | castable_global_alloc | castable_alloc | castable_static;

/// UPC upc_thread_info_t: which kinds of another thread's shared data the calling thread can
/// cast: certainly (guaranteed_castable) or probably, to be checked with cast()'s result
/// (probably_castable, a superset).
struct thread_info_t {
  int guaranteed_castable = 0;
  int probably_castable = 0;
};

/// UPC upc_thread_info: what the calling thread can cast of `thread`'s data — in pgas,
/// castable_all in both masks for every thread. Misuse: thread outside [0, THREADS).
inline thread_info_t thread_info(int thread,
                                 std::source_location where = std::source_location::current()) {
  if (thread < 0 || thread >= threads()) {
    detail::misuse("pgas::thread_info: thread " + std::to_string(thread) +
                       " is not a thread of this job (THREADS is " + std::to_string(threads()) +
                       ")",
                   where);
  }
  return {castable_all, castable_all};
}

/// UPC upc_cast: the plain address of the element `p` points to, whichever thread has
/// affinity to it; nullptr for the null pointer-to-shared. The same as to_local(p).
template <class T, std::size_t B>
T* cast(const sptr<T, B>& p) noexcept {
  return static_cast<T*>(p);
}

}  // namespace pgas
