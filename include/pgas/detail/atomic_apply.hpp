// pgas/detail/atomic_apply.hpp — the inline machinery of <pgas/atomic.hpp>: the operation and
// type codes, a domain's state as the fast path reads it, the one check every operation makes,
// and the operations themselves on std::atomic_ref. Not part of the API.
//
// Every operation is lock-free: add, sub, inc, dec, and, or, xor, get, set and (integer) cswap
// are one hardware instruction on the element (lock xadd, lock and, cmpxchg, ...); mult, min,
// max and every floating-point read-modify-write are compare-and-swap loops on the element. No
// lock is ever taken.
#pragma once

#include <atomic>
#include <cstdint>
#include <source_location>
#include <type_traits>

#include <pgas/config.hpp>
#include <pgas/detail/export.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/detail/trace_hook.hpp>

namespace pgas {

/// UPC upc_op_t: one bit per operation, so a set of them is their bitwise or.
enum class atomic_op : std::uint32_t {
  get = 1u << 0,     // UPC_GET
  set = 1u << 1,     // UPC_SET
  cswap = 1u << 2,   // UPC_CSWAP
  add = 1u << 3,     // UPC_ADD
  sub = 1u << 4,     // UPC_SUB
  mult = 1u << 5,    // UPC_MULT
  inc = 1u << 6,     // UPC_INC
  dec = 1u << 7,     // UPC_DEC
  and_ = 1u << 8,    // UPC_AND
  or_ = 1u << 9,     // UPC_OR
  xor_ = 1u << 10,   // UPC_XOR
  min = 1u << 11,    // UPC_MIN
  max = 1u << 12,    // UPC_MAX
  fadd = 1u << 13,   // UPC_FADD
  fsub = 1u << 14,   // UPC_FSUB
  fmult = 1u << 15,  // UPC_FMULT
  finc = 1u << 16,   // UPC_FINC
  fdec = 1u << 17,   // UPC_FDEC
  fand = 1u << 18,   // UPC_FAND
  for_ = 1u << 19,   // UPC_FOR
  fxor = 1u << 20,   // UPC_FXOR
  fmin = 1u << 21,   // UPC_FMIN
  fmax = 1u << 22,   // UPC_FMAX
};

/// UPC upc_type_t: the element types an atomic domain can be made for.
enum class atomic_type : std::uint8_t {
  int_ = 1,  // UPC_INT
  uint_,     // UPC_UINT
  long_,     // UPC_LONG
  ulong_,    // UPC_ULONG
  int32,     // UPC_INT32
  uint32,    // UPC_UINT32
  int64,     // UPC_INT64
  uint64,    // UPC_UINT64
  float_,    // UPC_FLOAT
  double_,   // UPC_DOUBLE
  pts,       // UPC_PTS: a pointer-to-shared (GET, SET and CSWAP only)
};

/// UPC upc_atomichint_t. Accepted and recorded; every domain is implemented the same way
/// (hardware atomics on the element), which is best for both latency and throughput here.
enum class atomic_hint : std::uint8_t {
  default_ = 0,  // UPC_ATOMIC_HINT_DEFAULT
  latency,       // UPC_ATOMIC_HINT_LATENCY
  throughput,    // UPC_ATOMIC_HINT_THROUGHPUT
};

/// UPC's two flavours of access (upc_atomic_strict, upc_atomic_relaxed); see atomic.hpp.
enum class atomic_order : std::uint8_t { strict, relaxed };

/// UPC upc_atomicdomain_t. Opaque: its fields are the runtime's. A domain lives in a
/// process-wide pool and is never unmapped, so a freed domain is recognised (ops_ reads 0).
struct atomicdomain {
  std::atomic<std::uint32_t> ops_{0};  // the domain's set; 0 once freed (and for the null one)
  atomic_type type_ = atomic_type::int_;
  atomic_hint hint_ = atomic_hint::default_;
  std::atomic<bool> freed_{false};  // freed (rather than never allocated): for reports
  std::uint32_t serial_ = 0;        // which domain, in reports
  std::source_location allocated_at_;
};

namespace detail {

inline constexpr std::uint32_t atomic_bitwise_ops = 0x7u << 8 | 0x7u << 18;
inline constexpr std::uint32_t atomic_fetching_ops = 0x3ffu << 13;
inline constexpr std::uint32_t atomic_all_ops = (1u << 23) - 1;
/// The operations UPC_PTS supports: GET, SET and CSWAP (UPC 1.3 atomics).
inline constexpr std::uint32_t atomic_pts_ops = 0x7u;

template <class T>
inline constexpr bool atomic_supported =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, long> ||
    std::is_same_v<T, unsigned long> || std::is_same_v<T, std::int32_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;

/// The UPC type code of T (int64_t is long on LP64, so atomic_domain<std::int64_t> is
/// atomic_domain<long> and says UPC_LONG).
template <class T>
constexpr atomic_type atomic_type_of() noexcept {
  if constexpr (std::is_same_v<T, int>)
    return atomic_type::int_;
  else if constexpr (std::is_same_v<T, unsigned>)
    return atomic_type::uint_;
  else if constexpr (std::is_same_v<T, long>)
    return atomic_type::long_;
  else if constexpr (std::is_same_v<T, unsigned long>)
    return atomic_type::ulong_;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return atomic_type::int64;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return atomic_type::uint64;
  else if constexpr (std::is_same_v<T, float>)
    return atomic_type::float_;
  else
    return atomic_type::double_;
}

/// The domain a default-constructed or moved-from pgas::atomic_domain names: ops_ is 0, so the
/// fast path's one bit test rejects it like a freed domain.
PGAS_API extern atomicdomain atomic_null_domain;

/// Misuse: ends the job (or throws outside one) saying which check `op` on `target` failed:
/// a null, freed or never-made domain, an op outside the domain's set, a null, misaligned or
/// non-shared target. Only called once the fast check failed.
[[noreturn]] PGAS_API void atomic_refuse(const atomicdomain* d, std::uint32_t op,
                                         const void* target, std::size_t size,
                                         const std::source_location& where);

/// A traced job counts the operation: GET reads, SET writes, the others update.
inline void atomic_trace(std::uint32_t op, const void* target, std::size_t size,
                         const std::source_location& where) noexcept {
  if (trace_on) [[unlikely]] {
    const trace_dir dir = op == static_cast<std::uint32_t>(atomic_op::get)   ? trace_dir::read
                          : op == static_cast<std::uint32_t>(atomic_op::set) ? trace_dir::write
                                                                             : trace_dir::update;
    trace_access(trace_kind::atomic, dir, target, size, where);
  }
}

/// The one check of every operation: `op` is in the domain's set (which is empty once freed),
/// and the target is an aligned element inside the shared space. One load, one bit test, one
/// subtraction and compare, one mask. Checked builds also require a live allocation.
template <class T>
inline void atomic_check(const atomicdomain& d, std::uint32_t op, const T* target,
                         const std::source_location& where) {
  const auto a = reinterpret_cast<std::uintptr_t>(target);
  const std::uint64_t offset = a - reinterpret_cast<std::uintptr_t>(geometry.base);
  if ((d.ops_.load(std::memory_order_relaxed) & op) == 0 || offset >= geometry.span ||
      (a & (sizeof(T) - 1)) != 0) [[unlikely]] {
    atomic_refuse(&d, op, target, sizeof(T), where);
  }
  if constexpr (config::bounds_check) {
    check_shared_range(offset, sizeof(T), "an atomic operation's target", &where);
  }
}

/// Which operations need a fetch_ptr, an operand1, an operand2 (the table in atomic.hpp).
inline constexpr std::uint32_t atomic_needs_fetch = atomic_fetching_ops | 1u;
inline constexpr std::uint32_t atomic_needs_operand1 =
    atomic_all_ops & ~(1u << 0 | 1u << 6 | 1u << 7 | 1u << 16 | 1u << 17);
inline constexpr std::uint32_t atomic_needs_operand2 = 1u << 2;

/// Misuse of the UPC form: `op` not exactly one operation, or a pointer it needs is null.
[[noreturn]] PGAS_API void atomic_refuse_upc_form(std::uint32_t op, const void* fetch_ptr,
                                                  const void* operand1, const void* operand2,
                                                  const std::source_location& where);

/// The UPC form's own checks, before atomic_check.
inline void atomic_check_upc_form(std::uint32_t op, const void* fetch_ptr, const void* operand1,
                                  const void* operand2, const std::source_location& where) {
  if (op == 0 || (op & (op - 1)) != 0 || (fetch_ptr == nullptr && (op & atomic_needs_fetch)) ||
      (operand1 == nullptr && (op & atomic_needs_operand1)) ||
      (operand2 == nullptr && (op & atomic_needs_operand2))) [[unlikely]] {
    atomic_refuse_upc_form(op, fetch_ptr, operand1, operand2, where);
  }
}

inline constexpr std::memory_order atomic_mo(atomic_order o) noexcept {
  return o == atomic_order::strict ? std::memory_order_seq_cst : std::memory_order_relaxed;
}

// Wrapping integer arithmetic (as std::atomic's): computed in the unsigned type.
template <class T>
inline T atomic_wrap_mul(T a, T b) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// Compare-and-swap loop: replaces the element by f(old) and returns old. A strict loop's
// successful exchange is seq_cst; failed attempts only reload (relaxed).
template <class T, class F>
inline T atomic_cas_loop(std::atomic_ref<T> r, std::memory_order mo, F f) noexcept {
  T old = r.load(std::memory_order_relaxed);
  while (!r.compare_exchange_weak(old, f(old), mo, std::memory_order_relaxed)) {
  }
  return old;
}

// As above for min and max: no write at all when the element already wins.
template <class T, class Better>
inline T atomic_cas_if(std::atomic_ref<T> r, std::memory_order mo, T v, Better better) noexcept {
  T old = r.load(mo);
  while (better(v, old) && !r.compare_exchange_weak(old, v, mo, std::memory_order_relaxed)) {
  }
  return old;
}

/// Applies `op` (one bit) to *target with operands a (operand1) and b (operand2, CSWAP's new
/// value) and returns the element's value before the operation (GET: its value).
template <class T>
inline T atomic_apply(std::uint32_t op, T* target, T a, T b, atomic_order o) noexcept {
  std::atomic_ref<T> r(*target);
  const std::memory_order mo = atomic_mo(o);
  // Operations that may end as a plain load (GET, a MIN or MAX that changes nothing, a
  // floating CSWAP whose comparison fails) complete every earlier access first when strict:
  // a seq_cst load alone is only an acquire, and UPC's strict access is a fence on both sides.
  constexpr std::uint32_t may_only_load =
      static_cast<std::uint32_t>(atomic_op::get) | static_cast<std::uint32_t>(atomic_op::min) |
      static_cast<std::uint32_t>(atomic_op::max) | static_cast<std::uint32_t>(atomic_op::fmin) |
      static_cast<std::uint32_t>(atomic_op::fmax) |
      (std::is_integral_v<T> ? 0u : static_cast<std::uint32_t>(atomic_op::cswap));
  if (o == atomic_order::strict && (op & may_only_load) != 0) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  switch (static_cast<atomic_op>(op)) {
    case atomic_op::get:
      return r.load(mo);
    case atomic_op::set:
      // exchange, not store: a strict SET is then also an acquire, so later accesses cannot
      // be performed before it.
      return r.exchange(a, mo);
    case atomic_op::cswap:
      if constexpr (std::is_integral_v<T>) {
        r.compare_exchange_strong(a, b, mo,
                                  mo == std::memory_order_seq_cst ? std::memory_order_seq_cst
                                                                  : std::memory_order_relaxed);
        return a;
      } else {
        // UPC compares values (0.0 == -0.0, a NaN equals nothing); atomic_ref compares bits.
        T old = r.load(mo);
        while (old == a && !r.compare_exchange_weak(old, b, mo, std::memory_order_relaxed)) {
        }
        return old;
      }
    case atomic_op::add:
    case atomic_op::fadd:
      if constexpr (std::is_integral_v<T>)
        return r.fetch_add(a, mo);
      else
        return atomic_cas_loop(r, mo, [a](T v) { return v + a; });
    case atomic_op::sub:
    case atomic_op::fsub:
      if constexpr (std::is_integral_v<T>)
        return r.fetch_sub(a, mo);
      else
        return atomic_cas_loop(r, mo, [a](T v) { return v - a; });
    case atomic_op::inc:
    case atomic_op::finc:
      if constexpr (std::is_integral_v<T>)
        return r.fetch_add(1, mo);
      else
        return atomic_cas_loop(r, mo, [](T v) { return v + T(1); });
    case atomic_op::dec:
    case atomic_op::fdec:
      if constexpr (std::is_integral_v<T>)
        return r.fetch_sub(1, mo);
      else
        return atomic_cas_loop(r, mo, [](T v) { return v - T(1); });
    case atomic_op::mult:
    case atomic_op::fmult:
      return atomic_cas_loop(r, mo, [a](T v) { return atomic_wrap_mul(v, a); });
    case atomic_op::min:
    case atomic_op::fmin:
      return atomic_cas_if(r, mo, a, [](T x, T y) { return x < y; });
    case atomic_op::max:
    case atomic_op::fmax:
      return atomic_cas_if(r, mo, a, [](T x, T y) { return y < x; });
    case atomic_op::and_:
    case atomic_op::fand:
      if constexpr (std::is_integral_v<T>) return r.fetch_and(a, mo);
      break;
    case atomic_op::or_:
    case atomic_op::for_:
      if constexpr (std::is_integral_v<T>) return r.fetch_or(a, mo);
      break;
    case atomic_op::xor_:
    case atomic_op::fxor:
      if constexpr (std::is_integral_v<T>) return r.fetch_xor(a, mo);
      break;
  }
  // Unreachable: the domain's set holds exactly one of the cases above for T (bitwise ops are
  // refused for floating types when the domain is made).
  __builtin_unreachable();
}

/// GET, SET and CSWAP on a pointer-to-shared P (UPC_PTS): P is one packed 64-bit word, so
/// these are the hardware's load, exchange and compare-and-swap on it. CSWAP compares the
/// words: thread, address and phase (pointers of one type to one element have one phase).
template <class P>
inline P atomic_apply_pts(std::uint32_t op, P* target, P a, P b, atomic_order o) noexcept {
  static_assert(sizeof(P) == sizeof(std::uint64_t) && std::is_trivially_copyable_v<P> &&
                std::atomic_ref<P>::is_always_lock_free);
  std::atomic_ref<P> r(*target);
  const std::memory_order mo = atomic_mo(o);
  switch (static_cast<atomic_op>(op)) {
    case atomic_op::get:
      // As atomic_apply's GET: a strict one completes the thread's earlier accesses first.
      if (o == atomic_order::strict) std::atomic_thread_fence(std::memory_order_seq_cst);
      return r.load(mo);
    case atomic_op::set:
      return r.exchange(a, mo);
    default:  // CSWAP: the domain's set holds nothing else (refused when it is made)
      r.compare_exchange_strong(
          a, b, mo,
          mo == std::memory_order_seq_cst ? std::memory_order_seq_cst : std::memory_order_relaxed);
      return a;
  }
}

}  // namespace detail
}  // namespace pgas
