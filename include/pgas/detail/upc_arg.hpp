// pgas/detail/upc_arg.hpp — the parameters that <pgas/upc.hpp>'s functions declare as
// pointers-to-shared (upc_shared_arg: what converts to one, a compile-time hint for a plain
// pointer, and the element type of a typed argument), and the check of a UPC atomic's target
// type against its domain's. Not part of the API.
#pragma once

#include <concepts>
#include <cstddef>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <pgas/atomic.hpp>
#include <pgas/detail/forall_affinity.hpp>
#include <pgas/error.hpp>
#include <pgas/sptr.hpp>

namespace pgas::detail {

template <class T>
inline constexpr bool plain_pointer_argument = false;

/// What a pointer-to-shared argument pointed to before it became a `shared void *`, for the
/// functions that need the element's type (the atomics check it against their domain's).
struct element_type_info {
  std::size_t size = 0;  // 0: unknown (a shared void *, or nothing typed was passed)
  char kind =
      0;  // 's' signed integer, 'u' unsigned, 'f' floating, 'p' pointer-to-shared, 'o' other
  const char* name = nullptr;  // the type's name, for the common ones
};

template <class T>
constexpr element_type_info element_type_of() noexcept {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_void_v<U>) {
    return {};
  } else {
    const char kind = std::is_floating_point_v<U> ? 'f'
                      : std::is_integral_v<U>     ? (std::is_signed_v<U> ? 's' : 'u')
                      : is_sptr<U>::value         ? 'p'
                                                  : 'o';
    const char* name = std::is_same_v<U, int>                  ? "int"
                       : std::is_same_v<U, unsigned>           ? "unsigned int"
                       : std::is_same_v<U, long>               ? "long"
                       : std::is_same_v<U, unsigned long>      ? "unsigned long"
                       : std::is_same_v<U, long long>          ? "long long"
                       : std::is_same_v<U, unsigned long long> ? "unsigned long long"
                       : std::is_same_v<U, short>              ? "short"
                       : std::is_same_v<U, unsigned short>     ? "unsigned short"
                       : std::is_same_v<U, char>               ? "char"
                       : std::is_same_v<U, signed char>        ? "signed char"
                       : std::is_same_v<U, unsigned char>      ? "unsigned char"
                       : std::is_same_v<U, float>              ? "float"
                       : std::is_same_v<U, double>             ? "double"
                       : std::is_same_v<U, long double>        ? "long double"
                       : is_sptr<U>::value                     ? "pointer-to-shared"
                                                               : nullptr;
    return {sizeof(U), kind, name};
  }
}

// The element type behind an argument: a pgas::sptr<T, B>, or an object whose `pointer` type
// is one (a static_array).
template <class P>
constexpr element_type_info shared_arg_element() noexcept {
  if constexpr (requires { typename P::element_type; } && is_sptr<P>::value) {
    return element_type_of<typename P::element_type>();
  } else if constexpr (requires { typename P::pointer::element_type; }) {
    if constexpr (is_sptr<typename P::pointer>::value) {
      return element_type_of<typename P::pointer::element_type>();
    } else {
      return {};
    }
  } else {
    return {};
  }
}

/// A parameter that UPC declares a pointer-to-shared (the frees', bulk copies', collectives',
/// atomics'): it takes whatever converts to pgas::sptr<V> (a pgas::sptr, a static_array, a
/// static_scalar's &x, a shared_alloc, what upc_all_alloc returns) and a null pointer constant
/// (nullptr, 0, NULL, {}), and stops a plain pointer at compile time with a hint: in pgas,
/// `&A[i]` is the element's plain T*, not its pointer-to-shared. (Unlike the old plain
/// pgas::sptr parameters, the functions' addresses have these parameter types.)
template <class V>
class upc_shared_arg {
 public:
  upc_shared_arg() noexcept = default;
  upc_shared_arg(std::nullptr_t) noexcept {}  // NOLINT: implicit, as a null pointer constant
  template <class U>
  requires std::convertible_to<U, pgas::sptr<V>> &&
      (!std::is_pointer_v<std::remove_cvref_t<U>>)upc_shared_arg(U&& u)
      : p_(std::forward<U>(u)),
        element_(shared_arg_element<std::remove_cvref_t<U>>()) {}  // NOLINT: implicit
  template <class T>
  upc_shared_arg(T*) {  // NOLINT
    static_assert(plain_pointer_argument<T*>,
                  "a UPC function that takes a pointer-to-shared got a plain pointer: in pgas, "
                  "&A[i] is the element's plain T*; pass A.ptr(i) (A.ptr(0) for &A[0]; a "
                  "pgas::static_array converts itself, as an array name does in UPC) or a "
                  "pgas::sptr");
  }
  operator pgas::sptr<V>() const noexcept { return p_; }  // NOLINT
  /// The element type the argument pointed to, when it was typed.
  element_type_info element() const noexcept { return element_; }

 private:
  pgas::sptr<V> p_{};
  element_type_info element_{};
};

/// upc_atomic_strict/relaxed's target must point to the domain's type (UPC 1.3 §7.4.2): a typed
/// pointer-to-shared to another type (a UPC_INT domain on a `shared long`) is misuse naming
/// both. A target passed as `shared void *`, and a null or freed domain (reported by the
/// operation), are not checked here.
inline void atomic_check_target_type(const pgas::atomicdomain* d, element_type_info t,
                                     const char* call, const std::source_location& where) {
  if (t.size == 0 || d == nullptr || d->ops_.load(std::memory_order_relaxed) == 0) return;
  struct domain_type {
    std::size_t size;
    char kind;
    const char* name;
  };
  const auto [size, kind, name] = [&]() -> domain_type {
    switch (d->type_) {
      case atomic_type::int_:
        return {sizeof(int), 's', "int (UPC_INT)"};
      case atomic_type::uint_:
        return {sizeof(unsigned), 'u', "unsigned int (UPC_UINT)"};
      case atomic_type::long_:
        return {sizeof(long), 's', "long (UPC_LONG)"};
      case atomic_type::ulong_:
        return {sizeof(unsigned long), 'u', "unsigned long (UPC_ULONG)"};
      case atomic_type::int32:
        return {4, 's', "int32_t (UPC_INT32)"};
      case atomic_type::uint32:
        return {4, 'u', "uint32_t (UPC_UINT32)"};
      case atomic_type::int64:
        return {8, 's', "int64_t (UPC_INT64)"};
      case atomic_type::uint64:
        return {8, 'u', "uint64_t (UPC_UINT64)"};
      case atomic_type::float_:
        return {sizeof(float), 'f', "float (UPC_FLOAT)"};
      case atomic_type::pts:
        return {8, 'p', "shared void * (UPC_PTS)"};
      case atomic_type::double_:
        break;
    }
    return {sizeof(double), 'f', "double (UPC_DOUBLE)"};
  }();
  if (t.size == size && t.kind == kind) return;
  misuse(std::string(call) + ": the target points to " +
             (t.name == nullptr
                  ? std::string("an element of ") + std::to_string(t.size) + " bytes"
                  : std::string(std::string_view("aeiou").find(t.name[0]) != std::string_view::npos
                                    ? "an "
                                    : "a ") +
                        t.name) +
             ", not to the domain's type " + name +
             ": UPC requires the target to have the domain's type",
         where);
}

}  // namespace pgas::detail
