// pgas/forall.hpp — work sharing by affinity: UPC's upc_forall (UPC 1.3 §6.6.2).
//
//   pgas::forall(0, n, [&](long i) { … });                          // affinity i
//   pgas::forall(0, n, [&](long i) { return A.ptr(i); }, body);     // affinity &A[i]
//   pgas::forall(0, n, [&](long i) { return i / 4; }, body);       // any integer
//   pgas::forall(0, n, pgas::everyone, body);                      // UPC `continue`
//
// Every thread calls forall with the same bounds; thread t runs the iterations whose
// affinity names it: an integer affinity e selects thread e mod THREADS (the non-negative
// remainder), a pointer-to-shared affinity selects upc_threadof(p). With the integer
// affinity i itself, each thread steps straight through its own iterations (no test per
// iteration).
//
// As in UPC, a forall that runs inside the body of another forall (on the same thread)
// ignores its affinity and runs every iteration: the outer loop already shares the work.
// A pgas::everyone loop shares nothing, so it does not count as an outer loop (UPC: only a
// loop whose affinity is not `continue` controls its nested loops).
//
// Contract.
//   * Collective: no. forall has no barrier and no agreement check; the work is shared only
//     if every thread calls it with the same bounds and affinity, which is not checked.
//   * Errors: forall has none of its own. An exception from the body or the affinity leaves
//     the loop (and the nesting count) as any exception leaves a loop; uncaught, it ends the
//     job (pgas/error.hpp).
//   * Outside a job THREADS is 1 and MYTHREAD 0, so every forall runs every iteration on the
//     calling thread.
//   * Memory ordering: none. The body's accesses are relaxed; follow the loop with
//     pgas::barrier() when other threads must see its results.
//   * Thread safety: the body runs on the calling thread only; the nesting count is per
//     thread.
#pragma once

#include <concepts>
#include <type_traits>
#include <utility>

#include <pgas/detail/forall_affinity.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// The `continue` affinity: every thread runs every iteration.
struct everyone_t {
  explicit everyone_t() = default;
};
inline constexpr everyone_t everyone{};

/// upc_forall (i = lo; i < hi; ++i; i): thread t runs the i with i mod THREADS == t.
template <std::integral I, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, F&& body) {
  detail::forall_scope scope;
  if (detail::forall_depth > 1) {
    for (I i = lo; i < hi; ++i)
      body(i);
    return;
  }
  if (!(lo < hi)) return;
  // Steps are counted from lo in unsigned arithmetic, so that neither the first iteration
  // (lo + up to THREADS - 1) nor a step past hi can overflow I, at either end of its range.
  using U = std::make_unsigned_t<I>;
  const auto span = static_cast<unsigned long long>(
      static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));  // U: narrow types promote
  const auto n = static_cast<unsigned long long>(threads());
  const auto first = static_cast<unsigned long long>(detail::affinity_thread(lo));
  const auto base = static_cast<unsigned long long>(static_cast<U>(lo));
  for (auto k = (static_cast<unsigned long long>(mythread()) + n - first) % n; k < span; k += n) {
    body(static_cast<I>(static_cast<U>(base + k)));
    if (span - k <= n) break;  // k + n would reach span (and might wrap)
  }
}

/// upc_forall (i = lo; i < hi; ++i; affinity(i)): affinity(i) returns an integer or a
/// pointer-to-shared.
template <std::integral I, class A, class F>
requires std::invocable<F&, I> && std::invocable<A&, I>
void forall(I lo, I hi, A&& affinity, F&& body) {
  detail::forall_scope scope;
  const bool all = detail::forall_depth > 1;
  const int me = mythread();
  for (I i = lo; i < hi; ++i) {
    if (all || detail::affinity_thread(affinity(i)) == me) body(i);
  }
}

/// upc_forall (…; continue): every thread runs every iteration.
template <std::integral I, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, everyone_t, F&& body) {
  // Not a controlling loop (UPC §6.6.2: `continue` affinity), so no forall_scope: a forall
  // in its body still shares its iterations.
  for (I i = lo; i < hi; ++i)
    body(i);
}

}  // namespace pgas
