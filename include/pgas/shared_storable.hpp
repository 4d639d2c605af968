// pgas/shared_storable.hpp — which types may be shared data: the elements of shared arrays
// and static shared objects (UPC 1.3 §6.5.1: any object type but those holding private
// pointers' meaning, e.g. `shared int *shared p[THREADS]`, `upc_lock_t *shared l`).
//
// Shared memory is never constructed nor destroyed element by element: it starts as zero
// bytes (UPC zero-initialises static shared data, and pgas does the same for every array),
// bulk operations copy it with memcpy, and it is freed without running destructors. So a type
// may be shared data when
//   * it is trivially copyable and trivially destructible, and
//   * an object whose bytes are all zero is a valid object equal to a default-constructed one
//     (pgas::zero_default<T>).
// zero_default holds for trivially default constructible types (ints, doubles, plain structs
// and arrays of them), for pointers-to-shared (pgas::sptr: the zero word is the null pointer,
// with block 1 for a run-time block) and lock handles (pgas::lock_t: zero is the null
// handle), and for aggregates (structs with public members and no constructors) all of whose
// members are shared data, so `struct node { pgas::sptr<node> next; long key; };` needs
// nothing more. A type with a constructor that sets other values (std::string, a class with
// a user-written default constructor) is rejected at compile time with the static assertion
// "shared data must be trivially copyable, trivially destructible and valid as zero bytes".
//
// Specialise pgas::zero_default<T> as std::true_type for a class of your own whose zero
// bytes are its default value but which is not an aggregate (private members, say):
//
//   template <> struct pgas::zero_default<my_handle> : std::true_type {};
//
// Caveat: the check cannot see an aggregate's default member initializers (`int x = 5;`);
// in shared memory such a member starts as 0, as every member does.
//
// Thread safety and memory ordering: compile-time traits only. Errors: none at run time.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace pgas {

/// True when an object of T whose bytes are all zero is valid and equal to T{} (see above).
/// Users may specialise it for their own types (never for a type that owns resources).
template <class T>
struct zero_default;

/// True when T may be an element of shared memory (see above).
template <class T>
inline constexpr bool is_shared_storable_v = std::is_trivially_copyable_v<T>&&
    std::is_trivially_destructible_v<T>&& zero_default<std::remove_cv_t<T>>::value;

namespace detail {

// Converts to any shared-storable type: T{f, f, …} compiles exactly when every member it
// initialises is shared data.
struct storable_field {
  template <class U>
  requires is_shared_storable_v<U>
  operator U() const noexcept;  // only named in unevaluated operands
};

template <class T, std::size_t... I>
constexpr bool brace_init_n(std::index_sequence<I...>) noexcept {
  return requires {
    T{(static_cast<void>(I), storable_field{})...};
  };
}

// An aggregate's members (array members counted element by element, through brace elision)
// are all shared data when T{f × n} compiles for some n while T{f × (n + 1)} does not:
// that n initialises every member from a storable_field. Aggregates of more than 64 scalar
// members are not examined (specialise zero_default for them).
template <class T, std::size_t N = 1>
constexpr bool aggregate_members_storable() noexcept {
  if constexpr (N > 64) {
    return false;
  } else if constexpr (!brace_init_n<T>(std::make_index_sequence<N>{})) {
    return false;
  } else if constexpr (!brace_init_n<T>(std::make_index_sequence<N + 1>{})) {
    return true;
  } else {
    return aggregate_members_storable<T, N + 1>();
  }
}

template <class T>
constexpr bool zero_default_by_default() noexcept {
  if constexpr (std::is_trivially_default_constructible_v<T>) {
    return true;
  } else if constexpr (std::is_array_v<T>) {
    return zero_default<std::remove_cv_t<std::remove_all_extents_t<T>>>::value;
  } else if constexpr (std::is_aggregate_v<T> && std::is_class_v<T>) {
    return aggregate_members_storable<T>();
  } else {
    return false;
  }
}

}  // namespace detail

template <class T>
struct zero_default : std::bool_constant<detail::zero_default_by_default<T>()> {};

}  // namespace pgas
