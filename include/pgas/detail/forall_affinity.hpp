// pgas/detail/forall_affinity.hpp — the inline machinery of pgas::forall (pgas/forall.hpp):
// the per-thread nesting depth that makes an inner forall run every iteration, the thread an
// affinity expression names, and where a thread's iterations of a stepped loop are. Not part
// of the API.
#pragma once

#include <concepts>
#include <cstddef>
#include <numeric>
#include <type_traits>

#include <pgas/runtime.hpp>
#include <pgas/sptr.hpp>

namespace pgas::detail {

// How many controlling foralls the calling thread is inside (UPC 1.3 §6.6.2: a forall in
// the body of another runs every iteration).
inline thread_local int forall_depth = 0;

// Counts one controlling forall for as long as it runs.
struct forall_scope {
  forall_scope() noexcept { ++forall_depth; }
  ~forall_scope() { --forall_depth; }
  forall_scope(const forall_scope&) = delete;
  forall_scope& operator=(const forall_scope&) = delete;
};

template <class T>
struct is_sptr : std::false_type {};
template <class T, std::size_t B>
struct is_sptr<sptr<T, B>> : std::true_type {};

// The thread an integer affinity names: e mod THREADS, the non-negative remainder.
template <std::integral E>
int affinity_thread(E e) noexcept {
  if constexpr (std::is_unsigned_v<E>) {
    // Not through long long: unsigned values of 2^63 and more would turn negative.
    return static_cast<int>(static_cast<unsigned long long>(e) %
                            static_cast<unsigned long long>(threads()));
  } else {
    const auto n = static_cast<long long>(threads());
    const long long r = static_cast<long long>(e) % n;
    return static_cast<int>(r < 0 ? r + n : r);
  }
}
// The thread a pointer-to-shared affinity names: upc_threadof(p).
template <class P>
requires is_sptr<std::remove_cvref_t<P>>::value int affinity_thread(const P& p) noexcept {
  return p.thread();
}

// A plain pointer names no thread. UPC's `&A[i]` of a pgas array is a T* (the element's
// address), so the affinity must be the pointer-to-shared A.ptr(i).
template <class T>
inline constexpr bool plain_pointer_affinity = false;
template <class T>
int affinity_thread(T*) noexcept {
  static_assert(plain_pointer_affinity<T>,
                "a forall affinity must be an integer or a pointer-to-shared: for UPC's &A[i] "
                "write A.ptr(i) (or p + i for a pgas::sptr p); &A[i] is a plain T*");
  return 0;
}

// Where a thread's iterations of forall(lo, hi, step(k), body) are, as distances from lo:
// the first at `first`, then every `stride` (ULLONG_MAX: none, or no second one). Iteration m
// (i = lo + m k) names thread (lo + m k) mod THREADS, a sequence of period
// p = THREADS / gcd(k, THREADS); the first m < p that names `me` is found by stepping the
// thread, and the stride is p k. No divisions per iteration: p steps per call.
struct forall_stride {
  unsigned long long first;
  unsigned long long stride;
};
inline forall_stride forall_stride_of(int lo_thread, unsigned long long k, int me) noexcept {
  constexpr unsigned long long none = ~0ull;
  const auto n = static_cast<unsigned long long>(threads());
  const unsigned long long km = k % n;
  const unsigned long long period = n / std::gcd(km, n);
  forall_stride s{none, none};
  unsigned long long r = static_cast<unsigned long long>(lo_thread);
  for (unsigned long long m = 0; m < period; ++m) {
    if (r == static_cast<unsigned long long>(me)) {
      if (__builtin_mul_overflow(m, k, &s.first)) return s;
      if (__builtin_mul_overflow(period, k, &s.stride)) s.stride = none;
      return s;
    }
    r += km;
    if (r >= n) r -= n;
  }
  return s;
}

// The step of the general forall: next(i) returns the next value, or next(i&) updates i.
template <class N, class I>
concept forall_next = (std::invocable<N&, I&> && std::is_void_v<std::invoke_result_t<N&, I&>>) ||
                      (std::invocable<N&, I> &&
                       std::convertible_to<std::invoke_result_t<N&, I>, I>);

template <class N, class I>
void forall_advance(N& next, I& i) {
  if constexpr (std::invocable<N&, I&> && std::is_void_v<std::invoke_result_t<N&, I&>>) {
    next(i);
  } else {
    i = static_cast<I>(next(i));
  }
}

}  // namespace pgas::detail
