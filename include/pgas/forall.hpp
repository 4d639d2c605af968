// pgas/forall.hpp — work sharing by affinity: UPC's upc_forall (UPC 1.3 §6.6.2).
//
//   pgas::forall(0, n, [&](long i) { … });                          // affinity i
//   pgas::forall(0, n, [&](long i) { return A.ptr(i); }, body);     // affinity &A[i]
//   pgas::forall(0, n, [&](long i) { return i / 4; }, body);       // any integer
//   pgas::forall(0, n, pgas::everyone, body);                      // UPC `continue`
//   pgas::forall(0, n, pgas::step(2), body);                       // i += 2; affinity i
//   pgas::forall(0, n, pgas::step(3), [&](long i) { return A.ptr(i); }, body);
//
//   // upc_forall (i = 1; i < n; i <<= 1; &A[i]): a first value, a condition, a step
//   pgas::forall(1L, [&](long i) { return i < n; }, [](long i) { return i << 1; },
//                [&](long i) { return A.ptr(i); }, body);
//
// Every thread calls forall with the same bounds; thread t runs the iterations whose
// affinity names it: an integer affinity e selects thread e mod THREADS (the non-negative
// remainder), a pointer-to-shared affinity — UPC's `&A[i]` — selects upc_threadof(p). The
// forms without an affinity argument use the integer affinity i itself (UPC
// `upc_forall (…; i)`); with it, each thread steps straight through its own iterations (no
// test per iteration), for any pgas::step(k).
//
// Iterations. forall(lo, hi, …) runs i = lo, lo + 1, … below hi; forall(lo, hi, step(k), …)
// runs i = lo, lo + k, lo + 2k, … below hi (UPC `i += k`; k >= 1, and no step past hi
// overflows the index type); the general form forall(first, cond, next, …) runs
// `for (i = first; cond(i); i = next(i))` for any loop UPC can write (`i <<= 1`, `i -= 2`,
// …). `next` either returns the next value (`[](long i) { return i << 1; }`) or updates its
// argument in place (`[](long& i) { i <<= 1; }`). Iteration values are the same on every
// thread, so cond and next must not depend on the thread.
//
// As in UPC, a forall that runs inside the body of another forall (on the same thread)
// ignores its affinity and runs every iteration: the outer loop already shares the work.
// A pgas::everyone loop shares nothing, so it does not count as an outer loop (UPC: only a
// loop whose affinity is not `continue` controls its nested loops). This holds for every
// form, stepped or not.
//
// Contract.
//   * Collective: no. forall has no barrier and no agreement check; the work is shared only
//     if every thread calls it with the same bounds and affinity, which is not checked.
//   * Errors (pgas/error.hpp): pgas::step(k) with k < 1 is misuse named at the step's call
//     site (a loop that would never end). Otherwise forall has none of its own: an exception
//     from the body, the affinity, the condition or the step leaves the loop (and the nesting
//     count) as any exception leaves a loop; uncaught, it ends the job.
//   * Outside a job THREADS is 1 and MYTHREAD 0, so every forall runs every iteration on the
//     calling thread.
//   * Memory ordering: none. The body's accesses are relaxed; follow the loop with
//     pgas::barrier() when other threads must see its results.
//   * Thread safety: the body runs on the calling thread only; the nesting count is per
//     thread.
#pragma once

#include <concepts>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

#include <pgas/detail/forall_affinity.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// The `continue` affinity: every thread runs every iteration.
struct everyone_t {
  explicit everyone_t() = default;
};
inline constexpr everyone_t everyone{};

namespace detail {

// What the stepped and general forms take as an affinity: a function of the index (integer or
// pointer-to-shared), or pgas::everyone.
template <class A, class I>
concept forall_affinity = std::invocable<A&, I> || std::same_as<std::remove_cvref_t<A>, everyone_t>;

// Runs body(i) for the iterations `loop` visits whose affinity names the calling thread (every
// one inside a controlling forall); an everyone loop runs them all and controls nothing.
template <class Loop, class A, class F>
void forall_each(Loop&& loop, A& affinity, F& body) {
  if constexpr (std::same_as<std::remove_cvref_t<A>, everyone_t>) {
    loop([&](auto i) { body(i); });
  } else {
    forall_scope scope;
    const bool all = forall_depth > 1;
    const int me = mythread();
    loop([&](auto i) {
      if (all || affinity_thread(affinity(i)) == me) body(i);
    });
  }
}

}  // namespace detail

/// The step of forall(lo, hi, step(k), …): UPC's `i += k`. Misuse when k < 1 (named at the
/// call site of step(k)).
class step {
 public:
  template <std::integral K>
  explicit step(K k, std::source_location where = std::source_location::current()) {
    if (k < 1) {
      detail::misuse("pgas::step(" + std::to_string(k) + "): a forall step must be at least 1",
                     where);
    }
    k_ = static_cast<unsigned long long>(k);
  }
  unsigned long long value() const noexcept { return k_; }

 private:
  unsigned long long k_ = 1;
};

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

/// upc_forall (i = lo; i < hi; i += k; i): thread t runs the i with i mod THREADS == t,
/// stepping straight through them (every THREADS / gcd(k, THREADS)-th iteration).
template <std::integral I, class F>
requires std::invocable<F&, I>
void forall(I lo, I hi, step s, F&& body) {
  if (s.value() == 1) return forall(lo, hi, std::forward<F>(body));
  detail::forall_scope scope;
  if (!(lo < hi)) return;
  using U = std::make_unsigned_t<I>;
  const auto span =
      static_cast<unsigned long long>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));
  const auto base = static_cast<unsigned long long>(static_cast<U>(lo));
  const detail::forall_stride st =
      detail::forall_depth > 1
          ? detail::forall_stride{0, s.value()}
          : detail::forall_stride_of(detail::affinity_thread(lo), s.value(), mythread());
  for (auto d = st.first; d < span; d += st.stride) {
    body(static_cast<I>(static_cast<U>(base + d)));
    if (span - d <= st.stride) break;  // d + stride would reach span (and might wrap)
  }
}

/// upc_forall (i = lo; i < hi; i += k; affinity(i)), and with pgas::everyone (`continue`).
template <std::integral I, class A, class F>
requires std::invocable<F&, I> && detail::forall_affinity<A, I>
void forall(I lo, I hi, step s, A&& affinity, F&& body) {
  using U = std::make_unsigned_t<I>;
  const auto span =
      lo < hi
          ? static_cast<unsigned long long>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)))
          : 0ull;
  const auto base = static_cast<unsigned long long>(static_cast<U>(lo));
  detail::forall_each(
      [&](auto&& visit) {
        for (unsigned long long d = 0; d < span; d += s.value()) {
          visit(static_cast<I>(static_cast<U>(base + d)));
          if (span - d <= s.value()) break;
        }
      },
      affinity, body);
}

/// upc_forall (i = first; cond(i); i = next(i); affinity(i)): any loop, with an integer or
/// pointer-to-shared affinity, or pgas::everyone (`continue`). next(i) returns the next value,
/// or next(i&) updates i in place.
template <std::integral I, class C, class N, class A, class F>
requires std::predicate<C&, I> && detail::forall_next<N, I> && std::invocable<F&, I> &&
    detail::forall_affinity<A, I>
void forall(I first, C&& cond, N&& next, A&& affinity, F&& body) {
  detail::forall_each(
      [&](auto&& visit) {
        for (I i = first; cond(i); detail::forall_advance(next, i))
          visit(i);
      },
      affinity, body);
}

/// upc_forall (i = first; cond(i); i = next(i); i): the general loop with affinity i.
template <std::integral I, class C, class N, class F>
requires std::predicate<C&, I> && detail::forall_next<N, I> && std::invocable<F&, I>
void forall(I first, C&& cond, N&& next, F&& body) {
  forall(
      first, std::forward<C>(cond), std::forward<N>(next), [](I i) { return i; },
      std::forward<F>(body));
}

}  // namespace pgas
