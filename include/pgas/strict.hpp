// pgas/strict.hpp — strict shared accesses (UPC 1.3 §6.5 "strict" and §5.1.2.3), readable at
// the access:
//
//   pgas::strict(A(i)) = 1;                 // a strict store to any thread's element
//   int x = pgas::strict(A(i));             // a strict load
//   pgas::strict_store(p, 1);               // the same through a pointer-to-shared
//   int y = pgas::strict_load(p);
//   pgas::strict(flag) = 1;                 // a shared scalar (pgas::static_scalar<int> flag)
//   pgas::strict(count) += 2;               // a strict load, then a strict store (as UPC's)
//   if (pgas::strict(head)) upc_free(pgas::strict(head));  // UPC's `shared void *strict
//                                           // shared head`: static_scalar<sptr<void>> head
//
// A strict view of a shared pointer-to-shared (a static_scalar<sptr<T>>, an element of type
// sptr<T>) reads and writes the pointer itself: load(), `if`, `!` and its conversions (to
// sptr<const void>, as upc_free takes it) test or pass the pointer, never what it points to.
// Only strict_load(p) and strict_store(p, v) of a pointer p itself access its target.
//
// Relaxed is the default. Every other shared access of pgas — *p, p[n], A(i, j), bulk copies —
// is relaxed: it compiles to an ordinary C++ load or store of the element, with exactly the
// guarantees of C++'s non-atomic accesses. The compiler and the processor may reorder relaxed
// accesses to different locations, and two threads accessing one location, one of them
// writing, without ordering between them is a data race (undefined behaviour in C++, as a
// conflicting pair of relaxed accesses has no defined result in UPC). A program orders relaxed
// accesses of different threads with a barrier (pgas/sync.hpp), a lock (pgas/lock.hpp), a
// value collective (pgas/collectives.hpp), or a strict access or pgas::fence together with
// happens-before they establish — this is UPC's model of relaxed accesses.
//
// A strict access is sequentially consistent with every other strict access and every
// pgas::fence (UPC's strict accesses and upc_fence): all threads see all strict accesses in
// one total order consistent with each thread's program order, and a thread's relaxed accesses
// before a strict access are ordered before it, those after it after it (a strict store
// publishes the relaxed stores before it to a thread whose strict load reads it).
//
// How. For a type the hardware accesses atomically (std::atomic_ref<T>::is_always_lock_free,
// and the element aligned as atomic_ref needs: int, double, pointers, 8- and 16-byte
// trivially copyable structs suitably aligned, …) a strict access is a
// std::atomic_ref<T> load or store with memory_order_seq_cst: atomic and sequentially
// consistent. For any other T it is a plain copy between two sequentially consistent fences:
// ordered exactly like a strict access, but NOT atomic — a strict load that races with a
// strict store of the same element may see a mix of the old and new bytes, and in C++ terms
// that pair is a data race. UPC does not promise that strict accesses are atomic either; use a
// lock for such values.
//
// Contract.
//   * Collective: no.
//   * Errors (pgas/error.hpp): as the access the argument names — *p's checks for a
//     pointer-to-shared in a checked build (config::bounds_check), A(i)'s for an element.
//   * Outside a job: a strict access to ordinary (private) memory works; there is no shared
//     memory to point to.
//   * Thread safety: any thread may strictly access any element at any time (atomic types);
//     see above for the others.
//   * Cost: a strict store is an xchg (or mov + mfence) on x86, tens of cycles; a strict load
//     is a plain load on x86 (seq_cst loads need no fence there). The non-atomic form pays two
//     mfences.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

#include <pgas/detail/forall_affinity.hpp>  // detail::is_sptr
#include <pgas/detail/sync_listener.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// True when strict accesses to a T are atomic (see the top of this header); otherwise they
/// are ordered but may tear.
template <class T>
inline constexpr bool strict_is_atomic = std::atomic_ref<T>::is_always_lock_free &&
                                         alignof(T) >= std::atomic_ref<T>::required_alignment;

namespace detail {

// The strict accesses of the object x itself, under names that no pointer-to-shared overload
// shares: strict_ref<sptr<T>> (a shared pointer-to-shared, UPC's `shared void *strict shared
// p`) reads and writes the pointer, where strict_load(p) would read what it points to.
template <class T>
T strict_load_object(const T& x) noexcept {
  sync_point_noexcept();
  if constexpr (strict_is_atomic<T>) {
    return std::atomic_ref<T>(const_cast<T&>(x)).load(std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    alignas(T) unsigned char buf[sizeof(T)];
    std::memcpy(buf, &x, sizeof(T));
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return *std::launder(reinterpret_cast<T*>(buf));
  }
}

template <class T>
void strict_store_object(T& x, const T& v) noexcept {
  sync_point_noexcept();
  if constexpr (strict_is_atomic<T>) {
    std::atomic_ref<T>(x).store(v, std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::memcpy(&x, &v, sizeof(T));
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
}

}  // namespace detail

/// A strict load of `x` (UPC: reading through a `strict` qualified lvalue).
template <class T>
requires std::is_trivially_copyable_v<T> T strict_load(const T& x)
noexcept {
  return detail::strict_load_object(x);
}

/// A strict store of `v` into `x` (UPC: assigning to a `strict` qualified lvalue).
template <class T>
requires(std::is_trivially_copyable_v<T> &&
         !std::is_const_v<T>) void strict_store(T& x, const std::type_identity_t<T>& v) noexcept {
  detail::strict_store_object(x, v);
}

/// A strict load of the element `p` points to (checked like *p).
template <class T, std::size_t B>
std::remove_cv_t<T> strict_load(const sptr<T, B>& p) noexcept(!config::bounds_check) {
  return strict_load(*p);
}

/// A strict store through `p` (checked like *p).
template <class T, std::size_t B>
void strict_store(const sptr<T, B>& p,
                  const std::type_identity_t<T>& v) noexcept(!config::bounds_check) {
  strict_store(*p, v);
}

/// A strict view of one element: converting it to T is a strict load, assigning to it a strict
/// store. Made by pgas::strict(); meant to be used at once, in the expression that makes it.
template <class T>
class strict_ref {
 public:
  explicit strict_ref(T& x) noexcept : x_(&x) {}
  strict_ref(const strict_ref&) = default;

  /// A strict load.
  operator std::remove_cv_t<T>() const noexcept { return detail::strict_load_object(*x_); }
  /// strict_load(), spelled out.
  std::remove_cv_t<T> load() const noexcept { return detail::strict_load_object(*x_); }
  /// A strict load of a shared pointer-to-shared, converted as the pointer converts (to
  /// sptr<const void>, as upc_free(pgas::strict(p)) takes it).
  template <class U>
  requires(detail::is_sptr<std::remove_cv_t<T>>::value && !std::same_as<U, std::remove_cv_t<T>> &&
           std::convertible_to<std::remove_cv_t<T>, U>)
  operator U() const noexcept {
    return load();
  }
  /// A strict load tested as a condition (`if (pgas::strict(p))`, `!pgas::strict(p)` of a
  /// shared pointer-to-shared p: whether the pointer is null, not what it points to).
  explicit operator bool() const noexcept requires requires(const std::remove_cv_t<T>& t) {
    static_cast<bool>(t);
  }
  { return static_cast<bool>(load()); }
  bool operator!() const noexcept requires requires(const std::remove_cv_t<T>& t) {
    static_cast<bool>(t);
  }
  { return !static_cast<bool>(load()); }
  /// A strict store; returns the view (not the value, which would take a second load).
  const strict_ref& operator=(const std::remove_cv_t<T>& v) const noexcept
      requires(!std::is_const_v<T>) {
    detail::strict_store_object(*x_, v);
    return *this;
  }
  /// Copying a strict element into another: a strict load, then a strict store.
  const strict_ref& operator=(const strict_ref& o) const noexcept requires(!std::is_const_v<T>) {
    detail::strict_store_object(*x_, o.load());
    return *this;
  }

  /// UPC's compound assignments and increments on a strict object: a strict load, the
  /// operation, then a strict store (two strict accesses, as in UPC: not one atomic step; use
  /// pgas/atomic.hpp for that). Each returns the view; the postfix forms the old value.
#define PGASI_STRICT_COMPOUND(OP)                                           \
  template <class U>                                                        \
  const strict_ref& operator OP(const U& v) const noexcept requires(        \
      !std::is_const_v<T> && requires(std::remove_cv_t<T> t) { t OP v; }) { \
    std::remove_cv_t<T> t = load();                                         \
    t OP v;                                                                 \
    detail::strict_store_object(*x_, t);                                    \
    return *this;                                                           \
  }
  PGASI_STRICT_COMPOUND(+=)
  PGASI_STRICT_COMPOUND(-=)
  PGASI_STRICT_COMPOUND(*=)
  PGASI_STRICT_COMPOUND(/=)
  PGASI_STRICT_COMPOUND(%=)
  PGASI_STRICT_COMPOUND(&=)
  PGASI_STRICT_COMPOUND(|=)
  PGASI_STRICT_COMPOUND(^=)
  PGASI_STRICT_COMPOUND(<<=)
  PGASI_STRICT_COMPOUND(>>=)
#undef PGASI_STRICT_COMPOUND
  const strict_ref& operator++() const noexcept
      requires(!std::is_const_v<T> && requires(std::remove_cv_t<T> t) { ++t; }) {
    std::remove_cv_t<T> t = load();
    ++t;
    detail::strict_store_object(*x_, t);
    return *this;
  }
  const strict_ref& operator--() const noexcept
      requires(!std::is_const_v<T> && requires(std::remove_cv_t<T> t) { --t; }) {
    std::remove_cv_t<T> t = load();
    --t;
    detail::strict_store_object(*x_, t);
    return *this;
  }
  std::remove_cv_t<T> operator++(int) const noexcept
      requires(!std::is_const_v<T> && requires(std::remove_cv_t<T> t) { t++; }) {
    std::remove_cv_t<T> t = load();
    const std::remove_cv_t<T> old = t;
    ++t;
    detail::strict_store_object(*x_, t);
    return old;
  }
  std::remove_cv_t<T> operator--(int) const noexcept
      requires(!std::is_const_v<T> && requires(std::remove_cv_t<T> t) { t--; }) {
    std::remove_cv_t<T> t = load();
    const std::remove_cv_t<T> old = t;
    --t;
    detail::strict_store_object(*x_, t);
    return old;
  }

 private:
  T* x_;
};

/// The strict view of an element reference: `pgas::strict(A(i)) = v`, `T x = strict(A(i))`.
template <class T>
requires std::is_trivially_copyable_v<std::remove_cv_t<T>> strict_ref<T> strict(T& x)
noexcept {
  return strict_ref<T>(x);
}

/// The strict view of the element `p` points to (checked like *p).
template <class T, std::size_t B>
strict_ref<T> strict(const sptr<T, B>& p) noexcept(!config::bounds_check) {
  return strict_ref<T>(*p);
}

/// The strict view of a shared scalar, UPC's `strict shared T x` ported as
/// pgas::static_scalar<T> x (pgas/static_shared.hpp): `pgas::strict(x) = 1`,
/// `T v = pgas::strict(x)`. Any object whose ptr() gives the pointer-to-shared of its one
/// element qualifies.
template <class S>
requires(!std::is_trivially_copyable_v<S>) && requires(const S& s) {
  s.ptr().thread();
  strict(s.ptr());
}
auto strict(const S& s) {
  return strict(s.ptr());
}

}  // namespace pgas
