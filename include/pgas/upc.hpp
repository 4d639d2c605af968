// pgas/upc.hpp — UPC's names for pgas, so that porting a UPC program changes its declarations
// and leaves its statements alone (UPC 1.3 language §6, required libraries §7, and the optional
// atomics, castability, collectives, non-blocking and tick libraries).
//
//   #include <pgas/upc.hpp>
//   int main(int argc, char** argv) {
//     return pgas::run(argc, argv, [] {
//       pgas::shared_array<long, 1, 1> sum({(size_t)THREADS});   // was: shared long sum[THREADS]
//       upc_lock_t* l = upc_all_lock_alloc();                    // unchanged from here on
//       for (int i = MYTHREAD; i < 100 * THREADS; i += THREADS) sum[MYTHREAD] += i;
//       upc_barrier;
//       upc_lock(l);
//       printf("thread %d of %d: %ld\n", MYTHREAD, THREADS, sum[MYTHREAD]);
//       upc_unlock(l);
//       upc_barrier(1);
//       if (MYTHREAD == 0) upc_lock_free(l);
//     });
//   }
//
// Opt-in. This header is not included by <pgas/pgas.hpp>: it puts UPC's names in the global
// namespace, as UPC's own headers do (upc.h, upc_collective.h, upc_atomic.h, upc_nb.h,
// upc_castable.h, upc_tick.h), and defines these macros, which a program that includes it
// cannot use as its own identifiers:
//   MYTHREAD, THREADS        (::pgas::mythread()) and (::pgas::threads()): int expressions,
//                            usable wherever UPC uses them (loop bounds, printf arguments);
//                            as an array extent, which is a size_t in braces, write
//                            `{(size_t)THREADS}` or `{N * (size_t)THREADS}` (no narrowing)
//   upc_barrier, upc_notify, upc_wait
//                            statements, with or without an id: `upc_barrier;` and
//                            `upc_barrier(id);` (UPC's `upc_barrier id;` needs the parentheses)
//   upc_fence                the statement `upc_fence;`
// It also includes what a UPC program's declarations and loops become: shared arrays
// (pgas/shared_array.hpp), pgas::forall (pgas/forall.hpp) and pgas::strict (pgas/strict.hpp).
// From the include on, a function that falls off the end of a non-void body is a compile
// error (-Wreturn-type as an error): a ported main becomes `static auto upc_main(...)`, void
// (status 0) when it has no return, and an int one must return on every path (runtime.hpp).
// Everything else is an inline function, a type alias or a constant in the global namespace,
// each forwarding to the pgas call named beside it below (whose header is its manual: errors,
// collectiveness, memory ordering and thread safety are those of the pgas call, and misuse is
// reported at the UPC call's file:line, which each function takes as a defaulted
// std::source_location). The full map, with what has no UPC-named equivalent (upc_forall,
// shared declarations, strict and relaxed qualifiers), is in the manual page pgas(7).
//
//   UPC                          pgas                                   header
//   MYTHREAD, THREADS            mythread(), threads()                  runtime.hpp
//   UPC_MAX_BLOCK_SIZE           config::max_block                      config.hpp
//   upc_barrier, upc_notify, upc_wait [ (id) ], upc_fence, upc_poll()
//                                barrier, notify, wait, fence, poll     sync.hpp
//   upc_global_exit(status)      exit(status)                           runtime.hpp
//   upc_lock_t *                 lock_t (a value handle)                lock.hpp
//   upc_all_lock_alloc, upc_global_lock_alloc, upc_lock_free, upc_all_lock_free, upc_lock,
//   upc_unlock, upc_lock_attempt all_lock_alloc, …, lock_t::lock, unlock, try_lock
//   upc_all_alloc, upc_global_alloc, upc_alloc, upc_free, upc_all_free
//                                all_alloc, global_alloc, local_alloc, free, all_free
//                                                                       alloc.hpp
//   upc_memcpy, upc_memget, upc_memput, upc_memset
//                                memcpy, memget, memput, memset         bulk.hpp
//   upc_threadof, upc_phaseof, upc_addrfield, upc_resetphase, upc_affinitysize
//                                threadof, phaseof, addrfield, resetphase, affinitysize
//                                                                       sptr.hpp
//   upc_localsizeof, upc_blocksizeof, upc_elemsizeof (of an array object)
//                                shared_array::localsizeof, blocksizeof, elemsizeof
//                                                                       shared_array.hpp
//   upc_all_broadcast … upc_all_permute, upc_all_reduceT, upc_all_prefix_reduceT, upc_flag_t,
//   UPC_IN_/OUT_ NOSYNC/MYSYNC/ALLSYNC, upc_op_t, UPC_ADD … UPC_NONCOMM_FUNC
//                                all_broadcast …, all_reduce<TYPE>, coll_flags, reduce_op
//                                                                       upc_collectives.hpp
//   upc_atomicdomain_t, upc_all_atomicdomain_alloc/free, upc_atomic_strict/relaxed,
//   upc_atomic_isfast, upc_type_t UPC_INT … UPC_PTS, upc_atomichint_t, UPC_GET … UPC_FMAX
//                                atomicdomain, all_atomicdomain_alloc …, atomic_op, atomic_type
//                                                                       atomic.hpp
//   upc_handle_t, UPC_COMPLETE_HANDLE, upc_mem*_nb, upc_mem*_nbi, upc_sync, upc_sync_attempt,
//   upc_synci, upc_synci_attempt nb_handle, complete_handle, mem*_nb, …, sync, test, synci, testi
//                                                                       nb.hpp
//   upc_cast, upc_thread_info, upc_thread_info_t, UPC_CASTABLE_*
//                                cast, thread_info, thread_info_t, castable_*   castable.hpp
//   upc_tick_t, UPC_TICK_MAX, upc_ticks_now, upc_ticks_to_ns
//                                tick_t, tick_max, ticks_now, ticks_to_ns   ticks.hpp
//
// Contract.
//   * Collective: exactly the calls whose pgas call is (upc_all_*, upc_barrier, upc_notify,
//     upc_wait, the collectives); they take part in the same agreement check, named at the
//     UPC call.
//   * Errors: those of the pgas call, reported at the UPC call's file:line; and, here, a
//     collective given an operation it does not know, an atomic domain given an unknown type
//     or hint or an operation of the collectives, upc_atomic_strict/relaxed on a typed
//     pointer-to-shared to another type than the domain's (a target passed as `shared void *`
//     is not checked), and upc_all_free of a pointer upc_all_alloc or upc_global_alloc did not
//     return (misuse, pgas/error.hpp).
//   * Outside a job: as the pgas calls (most throw pgas::usage_error; so does the statement
//     `upc_barrier;`, from the end of the statement).
//   * Memory ordering and thread safety: those of the pgas calls. upc_free and upc_all_free
//     look the allocation up in a process-wide record under a mutex.
//
// Where the names behave differently from UPC's (the types are C++ ones):
//   * Pointers-to-shared are pgas::sptr<T, B>; upc_all_alloc, upc_global_alloc and upc_alloc
//     return the generic pgas::sptr<void> (UPC's `shared void *`), which converts to a typed
//     pointer by assignment as in UPC, `pgas::sptr<int> p = upc_all_alloc(n, sizeof(int))`,
//     or by a cast. upc_free and upc_all_free accept any pointer-to-shared that one of those
//     three calls returned (upc_all_alloc and upc_global_alloc memory is recognised by its
//     pointer: the one returned, which has affinity to thread 0); anything else is misuse.
//   * upc_lock_t is an opaque type whose pointer carries a pgas::lock_t; a
//     `upc_lock_t *` may be stored anywhere (shared data included) and compared, never
//     dereferenced.
//   * upc_handle_t is a plain value, as in UPC (pgas::nb_handle, the C++ API's, is move-only):
//     handles are copied and stored freely; completing one twice is misuse.
//   * upc_op_t is one integer type for both libraries, as in UPC: UPC_ADD, UPC_MULT, UPC_AND,
//     UPC_OR, UPC_XOR, UPC_MIN and UPC_MAX serve both the collectives and the atomics. A
//     collective given an atomics-only operation (UPC_GET, UPC_FADD, …) or an atomic given a
//     collectives-only one (UPC_LOGAND, UPC_LOGOR, UPC_FUNC, UPC_NONCOMM_FUNC) is misuse.
//   * upc_localsizeof, upc_blocksizeof and upc_elemsizeof are operators on types and
//     expressions in UPC; here they are functions of a shared array object (a shared_array,
//     a static_array: anything with localsizeof(), blocksizeof() and elemsizeof() members).
//   * upc_forall has no spelling as a macro; it is pgas::forall(lo, hi, affinity, body) (see
//     pgas/forall.hpp, and pgas(7) for each form). `strict` and `relaxed` qualifiers are
//     pgas::strict(x) at the access (pgas/strict.hpp); relaxed is the default.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include <pgas/alloc.hpp>
#include <pgas/atomic.hpp>
#include <pgas/bulk.hpp>
#include <pgas/castable.hpp>
#include <pgas/collectives.hpp>
#include <pgas/config.hpp>
#include <pgas/detail/upc_arg.hpp>
#include <pgas/detail/upc_call.hpp>
#include <pgas/detail/upc_statement.hpp>
#include <pgas/error.hpp>
#include <pgas/forall.hpp>
#include <pgas/lock.hpp>
#include <pgas/nb.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sptr.hpp>
#include <pgas/static_shared.hpp>
#include <pgas/strict.hpp>
#include <pgas/sync.hpp>
#include <pgas/ticks.hpp>
#include <pgas/upc_collectives.hpp>

// A UPC main without a return returns 0; ported as a function, it is undefined behaviour in
// C++ (g++ -O2 may run on into the next function). Declared `auto` (README.md's porting rule,
// pgas/runtime.hpp) such a body is void and returns 0; what is left, an int function that
// returns on some paths and falls off its end on others, this makes a compile error for the
// rest of the including file ("control reaches end of non-void function"): return a status
// at the end.
#pragma GCC diagnostic error "-Wreturn-type"

// ---- Threads, blocks, synchronisation (upc.h, §6.3, §6.6.1, §7.2.1) ----------------------------

#define MYTHREAD (::pgas::mythread())
#define THREADS (::pgas::threads())

/// The largest block size a layout qualifier or an allocation may use (UPC_MAX_BLOCK_SIZE).
inline constexpr std::size_t UPC_MAX_BLOCK_SIZE = pgas::config::max_block;

#define upc_barrier                                                          \
  ::pgas::detail::upc_statement(::pgas::detail::upc_statement_kind::barrier, \
                                ::std::source_location::current())
#define upc_notify                                                          \
  ::pgas::detail::upc_statement(::pgas::detail::upc_statement_kind::notify, \
                                ::std::source_location::current())
#define upc_wait                                                          \
  ::pgas::detail::upc_statement(::pgas::detail::upc_statement_kind::wait, \
                                ::std::source_location::current())
#define upc_fence ::pgas::fence()

/// upc_poll: pgas::poll.
inline void upc_poll() noexcept {
  pgas::poll();
}

/// upc_global_exit: pgas::exit; its end-of-job line names upc_global_exit(status).
[[noreturn]] inline void upc_global_exit(
    int status, std::source_location where = std::source_location::current()) noexcept {
  const pgas::detail::upc_call_scope call("upc_global_exit", "pgas::exit");
  pgas::exit(status, where);
}

// ---- Locks (§7.2.4) ----------------------------------------------------------------------------

// upc_lock_t, UPC's opaque lock type, is declared in pgas/detail/upc_statement.hpp; only
// `upc_lock_t *` is used (it carries a pgas::lock_t).

/// upc_all_lock_alloc: pgas::all_lock_alloc (collective; every thread gets the same lock).
inline upc_lock_t* upc_all_lock_alloc(
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_lock_alloc", "pgas::all_lock_alloc");
  return pgas::detail::upc_lock_ptr(pgas::all_lock_alloc(where));
}
/// upc_global_lock_alloc: pgas::global_lock_alloc (not collective).
inline upc_lock_t* upc_global_lock_alloc(
    std::source_location where = std::source_location::current()) {
  return pgas::detail::upc_lock_ptr(pgas::global_lock_alloc(where));
}
/// upc_lock_free: pgas::lock_free.
inline void upc_lock_free(upc_lock_t* l,
                          std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_lock_free", "pgas::lock_free");
  pgas::lock_free(pgas::detail::upc_lock_of(l), where);
}
/// upc_all_lock_free: pgas::all_lock_free (collective).
inline void upc_all_lock_free(upc_lock_t* l,
                              std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_lock_free", "pgas::all_lock_free");
  pgas::all_lock_free(pgas::detail::upc_lock_of(l), where);
}
/// upc_lock: pgas::lock_t::lock.
inline void upc_lock(upc_lock_t* l, std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_lock", "pgas::lock_t::lock");
  pgas::detail::upc_lock_of(l).lock(where);
}
/// upc_lock_attempt: pgas::lock_t::try_lock; 1 when the lock was taken, else 0.
inline int upc_lock_attempt(upc_lock_t* l,
                            std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_lock_attempt", "pgas::lock_t::try_lock");
  return pgas::detail::upc_lock_of(l).try_lock(where) ? 1 : 0;
}
/// upc_unlock: pgas::lock_t::unlock.
inline void upc_unlock(upc_lock_t* l,
                       std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_unlock", "pgas::lock_t::unlock");
  pgas::detail::upc_lock_of(l).unlock(where);
}

// ---- Allocation (§7.2.2) -----------------------------------------------------------------------

/// upc_all_alloc: pgas::all_alloc (collective); the pointer to its first block (thread 0).
inline pgas::sptr<void> upc_all_alloc(
    std::size_t nblocks, std::size_t nbytes,
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_alloc", "pgas::all_alloc");
  return pgas::detail::upc_alloc_remember(pgas::all_alloc(nblocks, nbytes, where), where);
}
/// upc_global_alloc: pgas::global_alloc (not collective); the pointer to its first block.
inline pgas::sptr<void> upc_global_alloc(
    std::size_t nblocks, std::size_t nbytes,
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_global_alloc", "pgas::global_alloc");
  return pgas::detail::upc_alloc_remember(pgas::global_alloc(nblocks, nbytes, where), where);
}
/// upc_alloc: pgas::local_alloc; nbytes of the calling thread's memory (the null
/// pointer-to-shared for 0 bytes, as UPC says).
inline pgas::sptr<void> upc_alloc(std::size_t nbytes,
                                  std::source_location where = std::source_location::current()) {
  if (nbytes == 0) return nullptr;
  void* p = pgas::local_alloc(nbytes, where);
  if (p == nullptr) return nullptr;
  return pgas::sptr_from(static_cast<char*>(p), where);
}
/// upc_free: pgas::free, of a pointer upc_global_alloc, upc_all_alloc or upc_alloc returned
/// (not collective; a null pointer does nothing).
inline void upc_free(pgas::detail::upc_shared_arg<const void> ptr,
                     std::source_location where = std::source_location::current()) {
  const pgas::sptr<const void> p = ptr;
  if (!p) return;
  const pgas::detail::upc_call_scope call("upc_free", "pgas::free");
  if (pgas::shared_alloc a = pgas::detail::upc_alloc_forget(p, false)) {
    pgas::free(a, where);
    return;
  }
  pgas::free(const_cast<void*>(static_cast<const void*>(p)), where);
}
/// upc_all_free: pgas::all_free (collective), of a pointer upc_all_alloc or upc_global_alloc
/// returned; a null pointer does nothing (every thread must pass it).
inline void upc_all_free(pgas::detail::upc_shared_arg<const void> ptr,
                         std::source_location where = std::source_location::current()) {
  const pgas::sptr<const void> p = ptr;
  if (!p) return;
  pgas::shared_alloc a = pgas::detail::upc_alloc_forget(p, true);
  if (!a) {
    pgas::detail::misuse(
        "upc_all_free of a pointer that upc_all_alloc or upc_global_alloc did not return", where);
  }
  const pgas::detail::upc_call_scope call("upc_all_free", "pgas::all_free");
  pgas::all_free(a, where);
}

// ---- Pointers-to-shared and sizes (§6.4, §7.2.3) -----------------------------------------------

/// upc_threadof: pgas::threadof.
template <class T, std::size_t B>
int upc_threadof(const pgas::sptr<T, B>& p) noexcept {
  return p.thread();
}
/// A plain pointer (`&A[i]` of a pgas array is the element's T*) has no thread: write
/// upc_threadof(A.ptr(i)).
template <class T>
int upc_threadof(T*) noexcept {
  static_assert(pgas::detail::plain_pointer_affinity<T>,
                "upc_threadof needs a pointer-to-shared: for UPC's &A[i] write A.ptr(i); &A[i] "
                "is a plain T*");
  return 0;
}
/// upc_phaseof: pgas::phaseof.
template <class T, std::size_t B>
std::size_t upc_phaseof(const pgas::sptr<T, B>& p) noexcept {
  return p.phase();
}
/// upc_addrfield: pgas::addrfield.
template <class T, std::size_t B>
std::size_t upc_addrfield(const pgas::sptr<T, B>& p) noexcept {
  return p.addrfield();
}
/// upc_resetphase: pgas::resetphase.
template <class T, std::size_t B>
pgas::sptr<T, B> upc_resetphase(const pgas::sptr<T, B>& p) noexcept {
  return pgas::resetphase(p);
}
/// upc_affinitysize: pgas::affinitysize.
inline std::size_t upc_affinitysize(std::size_t totalsize, std::size_t nbytes, int threadid,
                                    std::source_location where = std::source_location::current()) {
  return pgas::affinitysize(totalsize, nbytes, threadid, where);
}
/// upc_localsizeof(A): bytes of A's part on each thread (shared_array::localsizeof).
template <class A>
requires requires(const A& a) {
  a.localsizeof();
}
std::size_t upc_localsizeof(const A& a) noexcept {
  return a.localsizeof();
}
/// upc_blocksizeof(A): A's block size in elements, 0 for indefinite (shared_array::blocksizeof).
template <class A>
requires requires(const A& a) {
  a.blocksizeof();
}
std::size_t upc_blocksizeof(const A& a) noexcept {
  return a.blocksizeof();
}
/// upc_elemsizeof(A): the size of A's element type (shared_array::elemsizeof).
template <class A>
requires requires(const A& a) {
  a.elemsizeof();
}
constexpr std::size_t upc_elemsizeof(const A& a) noexcept {
  return a.elemsizeof();
}

// ---- Bulk copies (§7.2.5) ----------------------------------------------------------------------

/// upc_memcpy: pgas::memcpy.
inline void upc_memcpy(pgas::detail::upc_shared_arg<void> dst,
                       pgas::detail::upc_shared_arg<const void> src, std::size_t n,
                       std::source_location where = std::source_location::current()) {
  pgas::detail::bulk_copy(dst, src, n,
                          {"upc_memcpy", "upc_memcpy source", "upc_memcpy destination"}, where);
}
/// upc_memget: pgas::memget.
inline void upc_memget(void* dst, pgas::detail::upc_shared_arg<const void> src, std::size_t n,
                       std::source_location where = std::source_location::current()) {
  pgas::detail::bulk_get(dst, src, n, {"upc_memget", "upc_memget source", "upc_memget destination"},
                         where);
}
/// upc_memput: pgas::memput.
inline void upc_memput(pgas::detail::upc_shared_arg<void> dst, const void* src, std::size_t n,
                       std::source_location where = std::source_location::current()) {
  pgas::detail::bulk_put(dst, src, n, {"upc_memput", "upc_memput source", "upc_memput destination"},
                         where);
}
/// upc_memset: pgas::memset.
inline void upc_memset(pgas::detail::upc_shared_arg<void> dst, int c, std::size_t n,
                       std::source_location where = std::source_location::current()) {
  pgas::detail::bulk_set(dst, c, n, {"upc_memset", "upc_memset source", "upc_memset destination"},
                         where);
}

// ---- Operations and flags shared by the collectives and atomics (upc_types.h) -------------------

/// upc_op_t: one integer type for both libraries. The operations the atomics know have
/// pgas::atomic_op's bits; the four only the collectives know come after them.
using upc_op_t = unsigned int;
inline constexpr upc_op_t UPC_GET = static_cast<upc_op_t>(pgas::atomic_op::get);
inline constexpr upc_op_t UPC_SET = static_cast<upc_op_t>(pgas::atomic_op::set);
inline constexpr upc_op_t UPC_CSWAP = static_cast<upc_op_t>(pgas::atomic_op::cswap);
inline constexpr upc_op_t UPC_ADD = static_cast<upc_op_t>(pgas::atomic_op::add);
inline constexpr upc_op_t UPC_SUB = static_cast<upc_op_t>(pgas::atomic_op::sub);
inline constexpr upc_op_t UPC_MULT = static_cast<upc_op_t>(pgas::atomic_op::mult);
inline constexpr upc_op_t UPC_INC = static_cast<upc_op_t>(pgas::atomic_op::inc);
inline constexpr upc_op_t UPC_DEC = static_cast<upc_op_t>(pgas::atomic_op::dec);
inline constexpr upc_op_t UPC_AND = static_cast<upc_op_t>(pgas::atomic_op::and_);
inline constexpr upc_op_t UPC_OR = static_cast<upc_op_t>(pgas::atomic_op::or_);
inline constexpr upc_op_t UPC_XOR = static_cast<upc_op_t>(pgas::atomic_op::xor_);
inline constexpr upc_op_t UPC_MIN = static_cast<upc_op_t>(pgas::atomic_op::min);
inline constexpr upc_op_t UPC_MAX = static_cast<upc_op_t>(pgas::atomic_op::max);
inline constexpr upc_op_t UPC_FADD = static_cast<upc_op_t>(pgas::atomic_op::fadd);
inline constexpr upc_op_t UPC_FSUB = static_cast<upc_op_t>(pgas::atomic_op::fsub);
inline constexpr upc_op_t UPC_FMULT = static_cast<upc_op_t>(pgas::atomic_op::fmult);
inline constexpr upc_op_t UPC_FINC = static_cast<upc_op_t>(pgas::atomic_op::finc);
inline constexpr upc_op_t UPC_FDEC = static_cast<upc_op_t>(pgas::atomic_op::fdec);
inline constexpr upc_op_t UPC_FAND = static_cast<upc_op_t>(pgas::atomic_op::fand);
inline constexpr upc_op_t UPC_FOR = static_cast<upc_op_t>(pgas::atomic_op::for_);
inline constexpr upc_op_t UPC_FXOR = static_cast<upc_op_t>(pgas::atomic_op::fxor);
inline constexpr upc_op_t UPC_FMIN = static_cast<upc_op_t>(pgas::atomic_op::fmin);
inline constexpr upc_op_t UPC_FMAX = static_cast<upc_op_t>(pgas::atomic_op::fmax);
inline constexpr upc_op_t UPC_LOGAND = 1u << 23;
inline constexpr upc_op_t UPC_LOGOR = 1u << 24;
inline constexpr upc_op_t UPC_FUNC = 1u << 25;
inline constexpr upc_op_t UPC_NONCOMM_FUNC = 1u << 26;

// ---- Collectives (upc_collective.h, §7.4) -------------------------------------------------------

/// upc_flag_t and the synchronisation modes: pgas::coll_flags, pgas::in_nosync, ….
using upc_flag_t = pgas::coll_flags;
inline constexpr upc_flag_t UPC_IN_NOSYNC = pgas::in_nosync;
inline constexpr upc_flag_t UPC_IN_MYSYNC = pgas::in_mysync;
inline constexpr upc_flag_t UPC_IN_ALLSYNC = pgas::in_allsync;
inline constexpr upc_flag_t UPC_OUT_NOSYNC = pgas::out_nosync;
inline constexpr upc_flag_t UPC_OUT_MYSYNC = pgas::out_mysync;
inline constexpr upc_flag_t UPC_OUT_ALLSYNC = pgas::out_allsync;

/// upc_all_broadcast: pgas::all_broadcast (collective).
inline void upc_all_broadcast(pgas::detail::upc_shared_arg<void> dst,
                              pgas::detail::upc_shared_arg<const void> src, std::size_t nbytes,
                              upc_flag_t flags,
                              std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_broadcast", "pgas::all_broadcast");
  pgas::all_broadcast(dst, src, nbytes, flags, where);
}
/// upc_all_scatter: pgas::all_scatter (collective).
inline void upc_all_scatter(pgas::detail::upc_shared_arg<void> dst,
                            pgas::detail::upc_shared_arg<const void> src, std::size_t nbytes,
                            upc_flag_t flags,
                            std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_scatter", "pgas::all_scatter");
  pgas::all_scatter(dst, src, nbytes, flags, where);
}
/// upc_all_gather: pgas::all_gather (collective).
inline void upc_all_gather(pgas::detail::upc_shared_arg<void> dst,
                           pgas::detail::upc_shared_arg<const void> src, std::size_t nbytes,
                           upc_flag_t flags,
                           std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_gather", "pgas::all_gather");
  pgas::all_gather(dst, src, nbytes, flags, where);
}
/// upc_all_gather_all: pgas::all_gather_all (collective).
inline void upc_all_gather_all(pgas::detail::upc_shared_arg<void> dst,
                               pgas::detail::upc_shared_arg<const void> src, std::size_t nbytes,
                               upc_flag_t flags,
                               std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_gather_all", "pgas::all_gather_all");
  pgas::all_gather_all(dst, src, nbytes, flags, where);
}
/// upc_all_exchange: pgas::all_exchange (collective).
inline void upc_all_exchange(pgas::detail::upc_shared_arg<void> dst,
                             pgas::detail::upc_shared_arg<const void> src, std::size_t nbytes,
                             upc_flag_t flags,
                             std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_exchange", "pgas::all_exchange");
  pgas::all_exchange(dst, src, nbytes, flags, where);
}
/// upc_all_permute: pgas::all_permute (collective).
inline void upc_all_permute(pgas::detail::upc_shared_arg<void> dst,
                            pgas::detail::upc_shared_arg<const void> src,
                            pgas::detail::upc_shared_arg<const int> perm, std::size_t nbytes,
                            upc_flag_t flags,
                            std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_permute", "pgas::all_permute");
  pgas::all_permute(dst, src, perm, nbytes, flags, where);
}

// upc_all_reduceT and upc_all_prefix_reduceT for the eleven types of §7.4.3: pgas::all_reduce<T>
// and pgas::all_prefix_reduce<T> (collective).
#define PGASI_UPC_REDUCE(SUFFIX, TYPE)                                                             \
  inline void upc_all_reduce##SUFFIX(                                                              \
      pgas::detail::upc_shared_arg<void> dst, pgas::detail::upc_shared_arg<const void> src,        \
      upc_op_t op, std::size_t nelems, std::size_t blk_size, TYPE (*func)(TYPE, TYPE),             \
      upc_flag_t flags, std::source_location where = std::source_location::current()) {            \
    const pgas::detail::upc_call_scope call("upc_all_reduce" #SUFFIX, "pgas::all_reduce");         \
    pgas::all_reduce<TYPE>(dst, src,                                                               \
                           pgas::detail::upc_reduce_op(op, "upc_all_reduce" #SUFFIX, where),       \
                           nelems, blk_size, func, flags, where);                                  \
  }                                                                                                \
  inline void upc_all_prefix_reduce##SUFFIX(                                                       \
      pgas::detail::upc_shared_arg<void> dst, pgas::detail::upc_shared_arg<const void> src,        \
      upc_op_t op, std::size_t nelems, std::size_t blk_size, TYPE (*func)(TYPE, TYPE),             \
      upc_flag_t flags, std::source_location where = std::source_location::current()) {            \
    const pgas::detail::upc_call_scope call("upc_all_prefix_reduce" #SUFFIX,                       \
                                            "pgas::all_prefix_reduce");                            \
    pgas::all_prefix_reduce<TYPE>(                                                                 \
        dst, src, pgas::detail::upc_reduce_op(op, "upc_all_prefix_reduce" #SUFFIX, where), nelems, \
        blk_size, func, flags, where);                                                             \
  }
PGASI_UPC_REDUCE(C, signed char)
PGASI_UPC_REDUCE(UC, unsigned char)
PGASI_UPC_REDUCE(S, short)
PGASI_UPC_REDUCE(US, unsigned short)
PGASI_UPC_REDUCE(I, int)
PGASI_UPC_REDUCE(UI, unsigned int)
PGASI_UPC_REDUCE(L, long)
PGASI_UPC_REDUCE(UL, unsigned long)
PGASI_UPC_REDUCE(F, float)
PGASI_UPC_REDUCE(D, double)
PGASI_UPC_REDUCE(LD, long double)
#undef PGASI_UPC_REDUCE

// ---- Atomics (upc_atomic.h) --------------------------------------------------------------------

/// upc_atomicdomain_t: pgas::atomicdomain (used as `upc_atomicdomain_t *`).
using upc_atomicdomain_t = pgas::atomicdomain;
/// upc_type_t and its values: pgas::atomic_type.
using upc_type_t = int;
inline constexpr upc_type_t UPC_INT = static_cast<int>(pgas::atomic_type::int_);
inline constexpr upc_type_t UPC_UINT = static_cast<int>(pgas::atomic_type::uint_);
inline constexpr upc_type_t UPC_LONG = static_cast<int>(pgas::atomic_type::long_);
inline constexpr upc_type_t UPC_ULONG = static_cast<int>(pgas::atomic_type::ulong_);
inline constexpr upc_type_t UPC_INT32 = static_cast<int>(pgas::atomic_type::int32);
inline constexpr upc_type_t UPC_UINT32 = static_cast<int>(pgas::atomic_type::uint32);
inline constexpr upc_type_t UPC_INT64 = static_cast<int>(pgas::atomic_type::int64);
inline constexpr upc_type_t UPC_UINT64 = static_cast<int>(pgas::atomic_type::uint64);
inline constexpr upc_type_t UPC_FLOAT = static_cast<int>(pgas::atomic_type::float_);
inline constexpr upc_type_t UPC_DOUBLE = static_cast<int>(pgas::atomic_type::double_);
/// UPC_PTS: `shared void *` values (pgas::sptr<void>); GET, SET and CSWAP only (atomic.hpp).
inline constexpr upc_type_t UPC_PTS = static_cast<int>(pgas::atomic_type::pts);
/// upc_atomichint_t and its values: pgas::atomic_hint.
using upc_atomichint_t = int;
inline constexpr upc_atomichint_t UPC_ATOMIC_HINT_DEFAULT =
    static_cast<int>(pgas::atomic_hint::default_);
inline constexpr upc_atomichint_t UPC_ATOMIC_HINT_LATENCY =
    static_cast<int>(pgas::atomic_hint::latency);
inline constexpr upc_atomichint_t UPC_ATOMIC_HINT_THROUGHPUT =
    static_cast<int>(pgas::atomic_hint::throughput);

/// upc_all_atomicdomain_alloc: pgas::all_atomicdomain_alloc (collective).
[[nodiscard]] inline upc_atomicdomain_t* upc_all_atomicdomain_alloc(
    upc_type_t type, upc_op_t ops, upc_atomichint_t hints,
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_atomicdomain_alloc",
                                          "pgas::all_atomicdomain_alloc");
  return pgas::all_atomicdomain_alloc(pgas::detail::upc_atomic_type(type, where),
                                      pgas::detail::upc_atomic_ops(ops, where),
                                      pgas::detail::upc_atomic_hint(hints, where), where);
}
/// upc_all_atomicdomain_free: pgas::all_atomicdomain_free (collective).
inline void upc_all_atomicdomain_free(
    upc_atomicdomain_t* domain, std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_all_atomicdomain_free",
                                          "pgas::all_atomicdomain_free");
  pgas::all_atomicdomain_free(domain, where);
}
/// upc_atomic_strict: pgas::atomic_strict.
inline void upc_atomic_strict(upc_atomicdomain_t* domain, void* fetch_ptr, upc_op_t op,
                              pgas::detail::upc_shared_arg<void> target, const void* operand1,
                              const void* operand2,
                              std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_atomic_strict", "pgas::atomic_strict");
  pgas::detail::atomic_check_target_type(domain, target.element(), "upc_atomic_strict", where);
  pgas::atomic_strict(domain, fetch_ptr, pgas::detail::upc_atomic_op(op, where), target, operand1,
                      operand2, where);
}
/// upc_atomic_relaxed: pgas::atomic_relaxed.
inline void upc_atomic_relaxed(upc_atomicdomain_t* domain, void* fetch_ptr, upc_op_t op,
                               pgas::detail::upc_shared_arg<void> target, const void* operand1,
                               const void* operand2,
                               std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_atomic_relaxed", "pgas::atomic_relaxed");
  pgas::detail::atomic_check_target_type(domain, target.element(), "upc_atomic_relaxed", where);
  pgas::atomic_relaxed(domain, fetch_ptr, pgas::detail::upc_atomic_op(op, where), target, operand1,
                       operand2, where);
}
/// upc_atomic_isfast: pgas::atomic_isfast; 1 or 0.
[[nodiscard]] inline int upc_atomic_isfast(
    upc_type_t type, upc_op_t ops, pgas::detail::upc_shared_arg<void> addr,
    std::source_location where = std::source_location::current()) {
  return pgas::atomic_isfast(pgas::detail::upc_atomic_type(type, where),
                             pgas::atomic_ops::from_bits(ops), addr)
             ? 1
             : 0;
}

// ---- Non-blocking copies (upc_nb.h) ------------------------------------------------------------

/// upc_handle_t: a plain value, as in UPC: trivially copyable, so handles may be copied,
/// returned, and kept in arrays (malloc'd ones included, whatever bytes they held before a
/// handle is stored). Compare with `==` and `!=`. UPC_COMPLETE_HANDLE (all bits 0) is the
/// handle of a transfer completed in its initiating call. Any other value names one transfer of
/// a copy engine (pgas/nb.hpp): upc_sync or a successful upc_sync_attempt completes it once, on
/// the thread that started it. Misuse, reported naming the call: completing a value again (a
/// copy of a completed handle included), another thread's handle, or a value no upc_mem*_nb
/// call returned. A handle never completed is reported as a warning when the job ends (pgas/
/// nb.hpp). pgas::nb_handle, the C++ API's handle, stays move-only.
struct upc_handle_t {
  std::uint64_t bits_;
  friend constexpr bool operator==(upc_handle_t, upc_handle_t) noexcept = default;
};
inline constexpr upc_handle_t UPC_COMPLETE_HANDLE{0};

/// upc_memcpy_nb: pgas::memcpy_nb.
[[nodiscard]] inline upc_handle_t upc_memcpy_nb(
    pgas::detail::upc_shared_arg<void> dst, pgas::detail::upc_shared_arg<const void> src,
    std::size_t n, std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memcpy_nb", "pgas::memcpy_nb");
  return upc_handle_t{pgas::detail::nb_handle_value(pgas::memcpy_nb(dst, src, n, where))};
}
/// upc_memget_nb: pgas::memget_nb.
[[nodiscard]] inline upc_handle_t upc_memget_nb(
    void* dst, pgas::detail::upc_shared_arg<const void> src, std::size_t n,
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memget_nb", "pgas::memget_nb");
  return upc_handle_t{pgas::detail::nb_handle_value(pgas::memget_nb(dst, src, n, where))};
}
/// upc_memput_nb: pgas::memput_nb.
[[nodiscard]] inline upc_handle_t upc_memput_nb(
    pgas::detail::upc_shared_arg<void> dst, const void* src, std::size_t n,
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memput_nb", "pgas::memput_nb");
  return upc_handle_t{pgas::detail::nb_handle_value(pgas::memput_nb(dst, src, n, where))};
}
/// upc_memset_nb: pgas::memset_nb.
[[nodiscard]] inline upc_handle_t upc_memset_nb(
    pgas::detail::upc_shared_arg<void> dst, int c, std::size_t n,
    std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memset_nb", "pgas::memset_nb");
  return upc_handle_t{pgas::detail::nb_handle_value(pgas::memset_nb(dst, c, n, where))};
}
/// upc_sync: pgas::sync.
inline void upc_sync(upc_handle_t h, std::source_location where = std::source_location::current()) {
  if (h != UPC_COMPLETE_HANDLE)
    (void)pgas::detail::nb_value_complete(h.bits_, true, "upc_sync", where);
}
/// upc_sync_attempt: pgas::test; 1 when the transfer is complete, else 0.
[[nodiscard]] inline int upc_sync_attempt(
    upc_handle_t h, std::source_location where = std::source_location::current()) {
  if (h == UPC_COMPLETE_HANDLE) return 1;
  return pgas::detail::nb_value_complete(h.bits_, false, "upc_sync_attempt", where) ? 1 : 0;
}
/// upc_memcpy_nbi: pgas::memcpy_nbi.
inline void upc_memcpy_nbi(pgas::detail::upc_shared_arg<void> dst,
                           pgas::detail::upc_shared_arg<const void> src, std::size_t n,
                           std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memcpy_nbi", "pgas::memcpy_nbi");
  pgas::memcpy_nbi(dst, src, n, where);
}
/// upc_memget_nbi: pgas::memget_nbi.
inline void upc_memget_nbi(void* dst, pgas::detail::upc_shared_arg<const void> src, std::size_t n,
                           std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memget_nbi", "pgas::memget_nbi");
  pgas::memget_nbi(dst, src, n, where);
}
/// upc_memput_nbi: pgas::memput_nbi.
inline void upc_memput_nbi(pgas::detail::upc_shared_arg<void> dst, const void* src, std::size_t n,
                           std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memput_nbi", "pgas::memput_nbi");
  pgas::memput_nbi(dst, src, n, where);
}
/// upc_memset_nbi: pgas::memset_nbi.
inline void upc_memset_nbi(pgas::detail::upc_shared_arg<void> dst, int c, std::size_t n,
                           std::source_location where = std::source_location::current()) {
  const pgas::detail::upc_call_scope call("upc_memset_nbi", "pgas::memset_nbi");
  pgas::memset_nbi(dst, c, n, where);
}
/// upc_synci: pgas::synci.
inline void upc_synci(std::source_location where = std::source_location::current()) {
  pgas::synci(where);
}
/// upc_synci_attempt: pgas::testi; 1 when every implicit transfer is complete, else 0.
[[nodiscard]] inline int upc_synci_attempt(
    std::source_location where = std::source_location::current()) {
  return pgas::testi(where) ? 1 : 0;
}

// ---- Castability (upc_castable.h) --------------------------------------------------------------

/// upc_thread_info_t and UPC_CASTABLE_*: pgas::thread_info_t and pgas::castable_*.
using upc_thread_info_t = pgas::thread_info_t;
inline constexpr int UPC_CASTABLE_ALL_ALLOC = pgas::castable_all_alloc;
inline constexpr int UPC_CASTABLE_GLOBAL_ALLOC = pgas::castable_global_alloc;
inline constexpr int UPC_CASTABLE_ALLOC = pgas::castable_alloc;
inline constexpr int UPC_CASTABLE_STATIC = pgas::castable_static;
inline constexpr int UPC_CASTABLE_ALL = pgas::castable_all;

/// upc_cast: pgas::cast; the plain address of the pointed-to byte (null for the null pointer).
inline void* upc_cast(pgas::sptr<const void> p) noexcept {
  return const_cast<void*>(static_cast<const void*>(p));
}
/// upc_thread_info: pgas::thread_info.
inline upc_thread_info_t upc_thread_info(
    int thread, std::source_location where = std::source_location::current()) {
  return pgas::thread_info(thread, where);
}

// ---- Ticks (upc_tick.h) ------------------------------------------------------------------------

/// upc_tick_t, UPC_TICK_MAX, upc_ticks_now, upc_ticks_to_ns: pgas::tick_t, tick_max, ….
using upc_tick_t = pgas::tick_t;
inline constexpr upc_tick_t UPC_TICK_MAX = pgas::tick_max;
inline upc_tick_t upc_ticks_now() noexcept {
  return pgas::ticks_now();
}
constexpr std::uint64_t upc_ticks_to_ns(upc_tick_t ticks) noexcept {
  return pgas::ticks_to_ns(ticks);
}
