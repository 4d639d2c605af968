// pgas/upc_collectives.hpp — UPC's collectives library on pointers-to-shared (UPC 1.3 required
// library §7.4, <upc_collective.h>): relocalisation (broadcast, scatter, gather, gather_all,
// exchange, permute) and computation (reduce, prefix reduce) over shared memory.
//
// UPC names: upc_all_broadcast → pgas::all_broadcast, upc_all_scatter → all_scatter,
// upc_all_gather → all_gather, upc_all_gather_all → all_gather_all, upc_all_exchange →
// all_exchange, upc_all_permute → all_permute, upc_all_reduceT → all_reduce<TYPE>,
// upc_all_prefix_reduceT → all_prefix_reduce<TYPE> (T = C, UC, S, US, I, UI, L, UL, F, D, LD:
// TYPE = signed char, unsigned char, short, unsigned short, int, unsigned, long, unsigned long,
// float, double, long double; plain char is accepted too), upc_flag_t → pgas::coll_flags,
// UPC_IN_NOSYNC → pgas::in_nosync (and in_mysync, in_allsync, out_nosync, out_mysync,
// out_allsync), upc_op_t → pgas::reduce_op (UPC_ADD → reduce_op::add, UPC_MULT → mult, UPC_AND →
// bit_and, UPC_OR → bit_or, UPC_XOR → bit_xor, UPC_LOGAND → log_and, UPC_LOGOR → log_or,
// UPC_MIN → min, UPC_MAX → max, UPC_FUNC → func, UPC_NONCOMM_FUNC → noncomm_func).
// (The C++ value collectives — broadcast(v), allreduce(v) — are in pgas/collectives.hpp.)
//
// Layouts, as UPC specifies them (n = nbytes, N = THREADS). A pointer "on every thread" names
// the same address field in each thread's segment (the layout of `shared [b] char[b*N]` whose
// first element has affinity to thread 0), so such a pointer must have affinity to thread 0 and
// its phase is ignored; a pointer "on one thread" names n (or n*N) consecutive bytes of one
// thread, whatever its block size:
//   all_broadcast   src: n bytes on one thread (the root)  dst: n bytes on every thread
//   all_scatter     src: n*N bytes on one thread           dst: n bytes on every thread;
//                   thread i gets bytes [i*n, (i+1)*n) of src
//   all_gather      src: n bytes on every thread           dst: n*N bytes on one thread;
//                   thread i's block lands at dst + i*n
//   all_gather_all  src: n bytes on every thread           dst: n*N bytes on every thread;
//                   every thread gets every block i at dst + i*n
//   all_exchange    src, dst: n*N bytes on every thread; block j of thread i's src goes to
//                   block i of thread j's dst
//   all_permute     src, dst: n bytes on every thread; thread i's block goes to thread
//                   perm[i]'s dst; perm is `shared int[THREADS]`-like (perm + i names element i),
//                   and must hold a permutation of 0..N-1
//   all_reduce<T>   src: nelems elements of T as `shared [blk_size] T` starting at src, whose
//                   phase is respected (blk_size 0: indefinite, all on src's thread); dst: one T
//                   anywhere, set to src[0] op src[1] op ... op src[nelems-1]
//   all_prefix_reduce<T>  src as for all_reduce; dst: nelems elements laid out like src but
//                   starting at dst (its own thread and phase); dst[i] = src[0] op ... op src[i]
// nbytes must be > 0; nelems == 0 leaves dst untouched.
//
// Operations: add, mult, min, max, log_and, log_or (result 1 or 0) for every TYPE; bit_and,
// bit_or, bit_xor only for the integer types (misuse on float, double, long double); func and
// noncomm_func call `func`, which must be non-null (and is ignored by the other operations).
// func is taken as associative and commutative, noncomm_func as associative only. How they run:
//   * all_reduce with any op but noncomm_func: each thread folds its own elements in element
//     order, and the thread with affinity to dst folds those partial results in thread order
//     (so add and mult on floating types may round differently from a left-to-right fold);
//   * all_reduce with noncomm_func, and every all_prefix_reduce: the thread with affinity to
//     dst (dst's first element) folds all elements strictly left to right, ((src[0] f src[1])
//     f src[2]) ..., reading the other threads' elements in place.
//
// Synchronisation (flags = one in_* | one out_*; a missing half means *_allsync, so 0 is
// in_allsync | out_allsync, as in UPC):
//   in_nosync    the call may read and write data as soon as the calling thread enters it:
//                the program has made the data ready (e.g. by an earlier barrier);
//   in_mysync    a thread reads or writes data with affinity to thread t only after t has
//                entered the call: each thread waits for exactly the threads whose data it
//                touches (per-thread entry epochs, no barrier);
//   in_allsync   a barrier among all threads first;
//   out_nosync   a thread returns when its own part of the data movement is done; others
//                may still read its src or write its dst until they return;
//   out_mysync   a thread returns once every access to data with affinity to it is complete:
//                it waits for exactly the threads that read or write its data;
//   out_allsync  a barrier among all threads last.
// Who touches what: in broadcast and scatter each thread copies its own dst block from the
// root's src (in_mysync waits for the root; the root's out_mysync waits for every thread); in
// gather each thread copies its src block into the root's dst (the mirror image); in
// gather_all and exchange each thread fills its own dst from every thread's src (both mysync
// waits cover every thread); in permute each thread reads all of perm, then copies its dst
// block from the thread i with perm[i] == itself (in_mysync waits for perm's owners and i;
// out_mysync for perm[itself], which reads its src, and for every thread when it holds part of
// perm); in all_reduce but noncomm_func each thread reads only its own elements and the
// computing thread writes only its own dst, so mysync waits for nobody (the computing thread
// waits for the others' partial results in every mode); in the left-to-right reductions the
// computing thread reads every element (in_mysync: it waits for their owners and dst's;
// out_mysync: every owner of src or dst data waits for it).
//
// Contract.
//   * Collective: every call, with the same arguments on every thread (single-valued, as UPC
//     requires). The runtime checks it on every call, without a barrier: each thread publishes
//     its call's name, arguments (nbytes, flags, op, nelems, blk_size, type, root thread and
//     phases) and how many barriers it has passed, and compares them with the other threads'
//     same call; the allsync barriers check them too. A disagreement ends the job naming both
//     threads' calls with their file:line. The check of two nosync|nosync calls can be missed
//     only when one thread is 8 or more collective calls ahead of the other. A call that one
//     thread skips (or repeats) is reported at the next barrier or collective that meets
//     through the barrier (every arrival carries the thread's count of UPC collective calls,
//     modulo 4), or else when the last thread returns from its body, with each thread's count.
//   * Errors (pgas/error.hpp), misuse naming the thread and the call site: a null dst, src or
//     perm; nbytes == 0; a pointer "on every thread" without affinity to thread 0; a range that
//     runs past the end of a thread's segment or is not inside one live shared allocation
//     (nbytes beyond the object; for a pointer "on every thread" the check looks at thread 0's
//     part, and at every thread's in checked builds); src and dst that overlap (UPC declares them
//     restrict); perm that is not a permutation; invalid flags; a bitwise op on a floating type;
//     func or noncomm_func with a null func; a src or dst phase not below blk_size; a call between
//     pgas::notify() and pgas::wait(). A thread that waits in a mysync call for a thread that
//     returned from its body or waits at a barrier ends the job too. Outside a job every call
//     throws pgas::usage_error.
//   * Memory ordering: a thread's writes before it enters a call are visible to the threads that
//     read them in the call when they wait for it (in_mysync: entry is a release, the wait an
//     acquire) or in_allsync is used; the call's writes are visible to a thread after an
//     out_mysync wait that covers their writer or out_allsync. nosync orders nothing.
//   * Performance: data moves with memcpy, each thread copying its own part in parallel (all
//     segments are one address space); no intermediate buffer.
//   * Thread safety: each call acts for the calling thread; one call at a time per thread.
#pragma once

#include <pgas/detail/export.hpp>

#include <cstddef>
#include <source_location>
#include <type_traits>

#include <pgas/sptr.hpp>

namespace pgas {

/// UPC upc_flag_t.
using coll_flags = unsigned int;
inline constexpr coll_flags in_nosync = 1u << 0;
inline constexpr coll_flags in_mysync = 1u << 1;
inline constexpr coll_flags in_allsync = 1u << 2;
inline constexpr coll_flags out_nosync = 1u << 3;
inline constexpr coll_flags out_mysync = 1u << 4;
inline constexpr coll_flags out_allsync = 1u << 5;

/// UPC upc_op_t.
enum class reduce_op {
  add,
  mult,
  bit_and,
  bit_or,
  bit_xor,
  log_and,
  log_or,
  min,
  max,
  func,
  noncomm_func
};

/// "add", "mult", ... "noncomm_func".
PGAS_API const char* to_string(reduce_op op) noexcept;

namespace detail {
template <class T>
inline constexpr bool reduce_type =
    std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char> ||
    std::is_same_v<T, short> || std::is_same_v<T, unsigned short> || std::is_same_v<T, int> ||
    std::is_same_v<T, unsigned int> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
    std::is_same_v<T, long double>;
}  // namespace detail

/// UPC upc_all_broadcast: every thread's dst block gets src's nbytes. Collective.
PGAS_API void all_broadcast(sptr<void> dst, sptr<const void> src, std::size_t nbytes,
                            coll_flags flags = 0,
                            std::source_location where = std::source_location::current());

/// UPC upc_all_scatter: thread i's dst block gets bytes [i*nbytes, (i+1)*nbytes) of src.
/// Collective.
PGAS_API void all_scatter(sptr<void> dst, sptr<const void> src, std::size_t nbytes,
                          coll_flags flags = 0,
                          std::source_location where = std::source_location::current());

/// UPC upc_all_gather: thread i's src block goes to dst + i*nbytes. Collective.
PGAS_API void all_gather(sptr<void> dst, sptr<const void> src, std::size_t nbytes,
                         coll_flags flags = 0,
                         std::source_location where = std::source_location::current());

/// UPC upc_all_gather_all: every thread's dst gets thread i's src block at i*nbytes.
/// Collective.
PGAS_API void all_gather_all(sptr<void> dst, sptr<const void> src, std::size_t nbytes,
                             coll_flags flags = 0,
                             std::source_location where = std::source_location::current());

/// UPC upc_all_exchange: block j of thread i's src goes to block i of thread j's dst.
/// Collective.
PGAS_API void all_exchange(sptr<void> dst, sptr<const void> src, std::size_t nbytes,
                           coll_flags flags = 0,
                           std::source_location where = std::source_location::current());

/// UPC upc_all_permute: thread i's src block goes to thread perm[i]'s dst block. Collective.
PGAS_API void all_permute(sptr<void> dst, sptr<const void> src, sptr<const int> perm,
                          std::size_t nbytes, coll_flags flags = 0,
                          std::source_location where = std::source_location::current());

/// UPC upc_all_reduceT: *dst = src[0] op ... op src[nelems-1] (see the top for layouts and
/// operations). Collective.
template <class T>
requires detail::reduce_type<T> PGAS_API void all_reduce(
    sptr<void> dst, sptr<const void> src, reduce_op op, std::size_t nelems, std::size_t blk_size,
    T (*func)(T, T), coll_flags flags = 0,
    std::source_location where = std::source_location::current());

/// UPC upc_all_prefix_reduceT: dst[i] = src[0] op ... op src[i] for i < nelems. Collective.
template <class T>
requires detail::reduce_type<T> PGAS_API void all_prefix_reduce(
    sptr<void> dst, sptr<const void> src, reduce_op op, std::size_t nelems, std::size_t blk_size,
    T (*func)(T, T), coll_flags flags = 0,
    std::source_location where = std::source_location::current());

}  // namespace pgas
