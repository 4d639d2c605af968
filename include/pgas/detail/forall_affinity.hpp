// pgas/detail/forall_affinity.hpp — the inline machinery of pgas::forall (pgas/forall.hpp):
// the per-thread nesting depth that makes an inner forall run every iteration, and the thread
// an affinity expression names. Not part of the API.
#pragma once

#include <concepts>
#include <cstddef>
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

}  // namespace pgas::detail
