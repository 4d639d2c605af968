// pgas/atomic.hpp — atomic operations on shared data (UPC 1.3 atomics library, <upc_atomic.h>).
//
// An atomic domain is made collectively for one element type and a set of operations; atomic
// operations on an element are made through a domain. UPC's rule is that a location updated
// atomically is accessed only through one domain between two barriers. Here every domain
// acts on the element's own hardware atomics, so two domains on one element are atomic with
// respect to each other; a plain access concurrent with an atomic one is a data race, as in C++.
//
//   pgas::atomic_domain<long> d({pgas::atomic_op::fadd, pgas::atomic_op::cswap});  // collective
//   pgas::shared_array<long> counters({pgas::threads()});
//   long ticket = d.fetch_add(counters.ptr(0), 1);          // UPC_FADD, strict
//   d.fetch_add(counters[0], 1, pgas::atomic_order::relaxed);  // same, relaxed
//   const long one = 1;
//   d.relaxed(&ticket, pgas::atomic_op::fadd, counters.ptr(0), &one, nullptr);  // UPC form
//
// UPC names.
//   upc_all_atomicdomain_alloc(type, ops, hints)  pgas::all_atomicdomain_alloc, or the
//                                                 pgas::atomic_domain<T> constructor
//   upc_all_atomicdomain_free(domain)             pgas::all_atomicdomain_free, or
//                                                 atomic_domain<T>::free() / its destructor
//   upc_atomic_strict(domain, fetch_ptr, op, target, operand1, operand2)
//                                                 pgas::atomic_strict, atomic_domain<T>::strict
//   upc_atomic_relaxed(...)                       pgas::atomic_relaxed, atomic_domain<T>::relaxed
//   upc_atomic_isfast(type, ops, addr)            pgas::atomic_isfast
//   upc_op_t: UPC_GET, UPC_SET, UPC_CSWAP, UPC_ADD, UPC_SUB, UPC_MULT, UPC_INC, UPC_DEC, UPC_AND,
//     UPC_OR, UPC_XOR, UPC_MIN, UPC_MAX, UPC_FADD ... UPC_FMAX
//                                                 pgas::atomic_op::get, set, cswap, add, sub,
//                                                 mult, inc, dec, and_, or_, xor_, min, max,
//                                                 fadd, fsub, fmult, finc, fdec, fand, for_,
//                                                 fxor, fmin, fmax (combine with |)
//   upc_type_t: UPC_INT, UPC_UINT, UPC_LONG, UPC_ULONG, UPC_INT32, UPC_UINT32, UPC_INT64,
//     UPC_UINT64, UPC_FLOAT, UPC_DOUBLE, UPC_PTS  pgas::atomic_type::int_, uint_, long_, ulong_,
//                                                 int32, uint32, int64, uint64, float_, double_,
//                                                 pts (atomic_domain<pgas::sptr<T, B>>)
//   upc_atomichint_t: UPC_ATOMIC_HINT_DEFAULT, _LATENCY, _THROUGHPUT
//                                                 pgas::atomic_hint::default_, latency, throughput
//
// The operations (UPC 1.3 semantics; "old" is the element's value just before the operation,
// and every operation on an element is one indivisible step):
//   op             element becomes                  fetch_ptr        operand1   operand2
//   GET            (unchanged)                      old (required)   -          -
//   SET            *operand1                        old if non-null  required   -
//   CSWAP          *operand2 if old == *operand1    old if non-null  required   required
//   ADD / FADD     old + *operand1                  - / old          required   -
//   SUB / FSUB     old - *operand1                  - / old          required   -
//   MULT / FMULT   old * *operand1                  - / old          required   -
//   INC / FINC     old + 1                          - / old          -          -
//   DEC / FDEC     old - 1                          - / old          -          -
//   AND, OR, XOR / FAND, FOR, FXOR (integer types only)
//                  old & | ^ *operand1              - / old          required   -
//   MIN / FMIN     *operand1 if *operand1 < old     - / old          required   -
//   MAX / FMAX     *operand1 if *operand1 > old     - / old          required   -
// "-" means ignored (UPC says NULL; a non-null pointer there is not read or written). A
// fetching op (GET and the F forms) needs a fetch_ptr. Integer arithmetic wraps (two's
// complement), as std::atomic's does. For float and double, CSWAP compares values (0.0 equals
// -0.0, a NaN equals nothing), MIN and MAX keep the element when either is a NaN, and arithmetic
// is IEEE arithmetic on the element's value.
//
// Pointers-to-shared (UPC_PTS). A domain of type UPC_PTS, atomic_domain<pgas::sptr<T, B>> for
// a compile-time B or pgas::sptr<void> (UPC's `shared void *`; a run-time-B pointer is not one
// word), supports GET, SET and CSWAP only, as UPC 1.3 says: a set with any other operation is
// misuse when the domain is made, naming the operation and UPC_PTS. The element is a
// pointer-to-shared stored in shared memory (`shared void *shared p`: a
// pgas::shared_array<pgas::sptr<void>> element, say), one packed 64-bit word, so each
// operation is one hardware instruction on it. In the UPC form the values (fetch_ptr,
// operand1, operand2) are `shared void *`, pgas::sptr<void>. CSWAP compares the packed words,
// thread, address and phase, where UPC's == ignores the phase: two pointers of one type to one
// element have one phase, so this differs only for pointers cast from another block size.
//
// The C++ members of atomic_domain<T> are the same operations by name (each also takes an
// optional atomic_order, strict by default, and the call site):
//   load(t) GET; store(t, v) SET; exchange(t, v) SET fetching; cswap(t, expected, desired)
//   CSWAP, returning old; compare_exchange(t, expected&, desired) CSWAP in std form (true when
//   it swapped, else expected = old); fetch_add/sub/mult/and_/or_/xor_/min/max(t, v) and
//   fetch_inc/fetch_dec(t) the F forms, returning old; add/sub/mult/and_/or_/xor_/min/max(t, v),
//   inc/dec(t) the non-fetching forms. A target t is a pgas::sptr<T, B> (any block size) or an
//   element reference T& into shared memory (what shared_array's A(i, ...) and A[i] give).
//
// Memory ordering.
//   * Strict (UPC upc_atomic_strict; atomic_order::strict): a sequentially consistent
//     operation on the element (std::memory_order_seq_cst). All strict atomic operations and
//     pgas::fence() calls of all threads take place in one total order that each thread's
//     program order respects, and a strict operation is a fence for its own thread: every
//     memory access the thread made before it (plain, relaxed or atomic) is complete before it
//     takes effect, and none made after it is performed before it. (Read-modify-writes and SET,
//     made as an exchange, are acquire-release; a GET, and a MIN, MAX or floating CSWAP that
//     ends up only reading, is preceded by a seq_cst fence.)
//   * Relaxed (UPC upc_atomic_relaxed; atomic_order::relaxed): std::memory_order_relaxed on
//     the element. Atomic with respect to every other atomic operation on the element, and all
//     operations on one element are seen by every thread in one order (modification order), but
//     nothing orders it with the thread's other accesses: to publish data with a relaxed
//     operation, put a pgas::fence(), a strict operation, a lock or a barrier between.
//
// Contract.
//   * Collective: making and freeing a domain (the constructor, free() and the destructor of
//     atomic_domain<T>; all_atomicdomain_alloc and all_atomicdomain_free). Every thread passes
//     the same type, set of operations and hint (the same domain, to free): a thread that
//     disagrees ends the job with a message naming each thread's call and its file:line.
//     Every other call is local, and any thread may apply any operation to any thread's
//     element through a domain.
//   * Errors (pgas/error.hpp), always checked, each ending the job with status 1 and naming the
//     thread and the call's file:line: making a domain with no operations, unknown operation
//     bits, AND, OR, XOR (or FAND, FOR, FXOR) for float or double, or any operation but GET,
//     SET and CSWAP for UPC_PTS (the report names the operations and the type); an operation
//     outside the domain's set (the check is one bit test); an operation through a freed domain
//     (freed domains keep an empty set, so this costs nothing more) or a null or moved-from one; a
//     null target, a target not aligned to its size, or one outside the shared space; in the UPC
//     form, a value of op that is not exactly one operation, a missing fetch_ptr or operand the
//     table above requires. Checked builds (config::bounds_check) also require the target to be
//     inside a live shared allocation. Running out of memory for a domain throws std::bad_alloc.
//   * Outside a job: a domain can be made and freed (as by a job of one thread), but there is
//     no shared space, so every operation is misuse and throws pgas::usage_error.
//   * Thread safety: operations may be made by any thread concurrently, through the same or
//     different domain objects; atomic_domain<T> itself is not copyable (it owns the domain)
//     and is shared between threads by reference, each thread holding its own object.
//   * Cost: an operation is inline: one relaxed load of the domain's set, one bit test, a
//     range and alignment test, then the hardware atomic instruction (or a CAS loop for MULT,
//     MIN, MAX and float/double arithmetic). No lock is ever taken.
#pragma once

#include <pgas/detail/export.hpp>

#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <type_traits>
#include <utility>

#include <pgas/detail/atomic_apply.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// A set of atomic operations (UPC upc_op_t as a mask). Made from one op, a list of ops, or
/// ops combined with |.
class atomic_ops {
 public:
  constexpr atomic_ops() noexcept = default;
  constexpr atomic_ops(atomic_op op) noexcept : bits_(static_cast<std::uint32_t>(op)) {}
  constexpr atomic_ops(std::initializer_list<atomic_op> ops) noexcept {
    for (const atomic_op op : ops)
      bits_ |= static_cast<std::uint32_t>(op);
  }
  /// The raw mask, and a set from one (any bits; the domain checks them).
  [[nodiscard]] constexpr std::uint32_t bits() const noexcept { return bits_; }
  static constexpr atomic_ops from_bits(std::uint32_t bits) noexcept {
    atomic_ops s;
    s.bits_ = bits;
    return s;
  }
  [[nodiscard]] constexpr bool contains(atomic_op op) const noexcept {
    return (bits_ & static_cast<std::uint32_t>(op)) != 0;
  }
  friend constexpr atomic_ops operator|(atomic_ops a, atomic_ops b) noexcept {
    return from_bits(a.bits_ | b.bits_);
  }
  friend constexpr bool operator==(atomic_ops, atomic_ops) noexcept = default;

 private:
  std::uint32_t bits_ = 0;
};

constexpr atomic_ops operator|(atomic_op a, atomic_op b) noexcept {
  return atomic_ops(a) | atomic_ops(b);
}

namespace detail {
template <class T, class P>
struct is_sptr_to : std::false_type {};
template <class T, std::size_t B>
struct is_sptr_to<T, sptr<T, B>> : std::true_type {};
/// What an operation of atomic_domain<T> takes as its target: a pgas::sptr<T, B> or a T&
/// (never a temporary, a const element or another type). A plain T* (UPC's &A[i] ported as
/// is) is let through only to stop the compile with a hint (atomic_domain::address).
template <class Target, class T>
concept atomic_target =
    std::is_same_v<Target, T&> || is_sptr_to<T, std::remove_cvref_t<Target>>::value ||
    std::is_same_v<std::remove_cvref_t<Target>, T*>;
template <class P>
inline constexpr bool atomic_plain_pointer_target = false;
/// A pointer-to-shared an atomic domain can hold (UPC_PTS): one packed word, so any
/// compile-time block (a run-time-B pointer also carries its block).
template <class P>
inline constexpr bool atomic_pts = false;
template <class T, std::size_t B>
inline constexpr bool atomic_pts<sptr<T, B>> = B != dynamic_block || std::is_void_v<T>;
/// The target of an arithmetic or bitwise member: not for a UPC_PTS domain (GET, SET, CSWAP).
template <class Target, class T>
concept atomic_arithmetic_target = atomic_target<Target, T> && !atomic_pts<T>;
}  // namespace detail

/// UPC upc_all_atomicdomain_alloc. Collective: every thread passes the same arguments and gets
/// the same domain. Misuse: no operations, unknown bits, bitwise operations for float/double,
/// or threads that disagree. Throws std::bad_alloc when memory is exhausted.
[[nodiscard]] PGAS_API atomicdomain* all_atomicdomain_alloc(
    atomic_type type, atomic_ops ops, atomic_hint hints = atomic_hint::default_,
    std::source_location where = std::source_location::current());

/// UPC upc_all_atomicdomain_free. Collective: every thread passes the same domain; it is freed
/// after every thread has called and before any returns. Misuse: a null or freed domain.
PGAS_API void all_atomicdomain_free(atomicdomain* domain,
                                    std::source_location where = std::source_location::current());

/// UPC upc_atomic_strict and upc_atomic_relaxed: applies `op` (exactly one operation, in the
/// domain's set) to the element of the domain's type at `target`, as in the table at the top
/// of this header; fetch_ptr, operand1 and operand2 point to values of that type.
PGAS_API void atomic_strict(atomicdomain* domain, void* fetch_ptr, atomic_op op, sptr<void> target,
                            const void* operand1, const void* operand2,
                            std::source_location where = std::source_location::current());
PGAS_API void atomic_relaxed(atomicdomain* domain, void* fetch_ptr, atomic_op op, sptr<void> target,
                             const void* operand1, const void* operand2,
                             std::source_location where = std::source_location::current());

/// UPC upc_atomic_isfast: true when every operation of `ops` on an element of `type` at
/// `addr` is made by the processor's atomic instructions without any lock (a single
/// instruction or a compare-and-swap loop), which holds for every supported type at an
/// aligned address in the shared space. False for a misaligned or non-shared address, bits
/// that are no operation, or bitwise operations on float/double. Not collective.
[[nodiscard]] PGAS_API bool atomic_isfast(atomic_type type, atomic_ops ops,
                                          sptr<void> addr) noexcept;

/// A typed atomic domain (UPC upc_atomicdomain_t made for T): owns a domain made collectively
/// by its constructor and freed collectively by free() or its destructor. T is int, unsigned,
/// long, unsigned long, (u)int32_t, (u)int64_t, float or double, or a pointer-to-shared
/// pgas::sptr<U, B> with a compile-time B (UPC_PTS: GET, SET and CSWAP only, so the arithmetic
/// members do not compile for it).
template <class T>
class atomic_domain {
  static_assert(detail::atomic_supported<T> || detail::atomic_pts<T>,
                "pgas::atomic_domain: T must be int, unsigned, long, unsigned long, int32_t, "
                "uint32_t, int64_t, uint64_t, float or double (the UPC atomic types), or a "
                "pgas::sptr<U, B> with a compile-time block B (UPC_PTS)");
  static constexpr atomic_type type_code() noexcept {
    if constexpr (detail::atomic_pts<T>) {
      return atomic_type::pts;
    } else {
      return detail::atomic_type_of<T>();
    }
  }

 public:
  using value_type = T;

  /// No domain (every operation is misuse until a domain is moved in).
  atomic_domain() noexcept = default;

  /// Collective (UPC upc_all_atomicdomain_alloc for T's type): see all_atomicdomain_alloc.
  explicit atomic_domain(atomic_ops ops, atomic_hint hint = atomic_hint::default_,
                         std::source_location where = std::source_location::current())
      : d_(all_atomicdomain_alloc(type_code(), ops, hint, where)) {}
  /// The same from a braced list, `atomic_domain<long> d({atomic_op::get})`: a list of one
  /// would otherwise also match the move constructor.
  explicit atomic_domain(std::initializer_list<atomic_op> ops,
                         atomic_hint hint = atomic_hint::default_,
                         std::source_location where = std::source_location::current())
      : atomic_domain(atomic_ops(ops), hint, where) {}

  atomic_domain(const atomic_domain&) = delete;
  atomic_domain& operator=(const atomic_domain&) = delete;
  atomic_domain(atomic_domain&& o) noexcept
      : d_(std::exchange(o.d_, &detail::atomic_null_domain)) {}
  atomic_domain& operator=(atomic_domain&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }

  /// Collective, like free(), when the domain is still held.
  ~atomic_domain() {
    if (d_ != &detail::atomic_null_domain) all_atomicdomain_free(d_);
  }

  /// Collective (UPC upc_all_atomicdomain_free). Afterwards every operation is misuse.
  void free(std::source_location where = std::source_location::current()) {
    all_atomicdomain_free(std::exchange(d_, &detail::atomic_null_domain), where);
  }

  /// The domain, for the UPC-form free functions; and its set of operations (empty once freed).
  [[nodiscard]] atomicdomain* get() const noexcept { return d_; }
  [[nodiscard]] atomic_ops ops() const noexcept {
    return atomic_ops::from_bits(d_->ops_.load(std::memory_order_relaxed));
  }

  /// UPC upc_atomic_strict / upc_atomic_relaxed on a T: applies `op` (exactly one operation)
  /// as in the table at the top; fetch_ptr, operand1 and operand2 may be null where the table
  /// says they are not used.
  template <detail::atomic_target<T> Target>
  void strict(T* fetch_ptr, atomic_op op, Target&& target, const T* operand1, const T* operand2,
              std::source_location where = std::source_location::current()) const {
    upc_form(fetch_ptr, op, address(target), operand1, operand2, atomic_order::strict, where);
  }
  template <detail::atomic_target<T> Target>
  void relaxed(T* fetch_ptr, atomic_op op, Target&& target, const T* operand1, const T* operand2,
               std::source_location where = std::source_location::current()) const {
    upc_form(fetch_ptr, op, address(target), operand1, operand2, atomic_order::relaxed, where);
  }

  // The operations by name. `t` is a pgas::sptr<T, B> or a T& in shared memory.

  /// GET.
  template <detail::atomic_target<T> Target>
  T load(Target&& t, atomic_order o = atomic_order::strict,
         std::source_location where = std::source_location::current()) const {
    return run(atomic_op::get, address(t), T(), o, where);
  }
  /// SET.
  template <detail::atomic_target<T> Target>
  void store(Target&& t, T v, atomic_order o = atomic_order::strict,
             std::source_location where = std::source_location::current()) const {
    (void)run(atomic_op::set, address(t), v, o, where);
  }
  /// SET, fetching the old value.
  template <detail::atomic_target<T> Target>
  T exchange(Target&& t, T v, atomic_order o = atomic_order::strict,
             std::source_location where = std::source_location::current()) const {
    return run(atomic_op::set, address(t), v, o, where);
  }
  /// CSWAP: stores `desired` when the element equals `expected`; returns the old value.
  template <detail::atomic_target<T> Target>
  T cswap(Target&& t, T expected, T desired, atomic_order o = atomic_order::strict,
          std::source_location where = std::source_location::current()) const {
    return run(atomic_op::cswap, address(t), expected, o, where, desired);
  }
  /// CSWAP in std::atomic's form: true when it stored `desired`; otherwise `expected` becomes
  /// the element's value.
  template <detail::atomic_target<T> Target>
  bool compare_exchange(Target&& t, T& expected, T desired, atomic_order o = atomic_order::strict,
                        std::source_location where = std::source_location::current()) const {
    const T old = run(atomic_op::cswap, address(t), expected, o, where, desired);
    bool swapped = false;
    if constexpr (detail::atomic_pts<T>) {
      swapped = old.word() == expected.word();  // as CSWAP compares: the words
    } else {
      swapped = old == expected;
    }
    expected = old;
    return swapped;
  }

#define PGASI_ATOMIC_BINARY(NAME, OP, FOP)                                             \
  template <detail::atomic_arithmetic_target<T> Target>                                \
  T fetch_##NAME(Target&& t, T v, atomic_order o = atomic_order::strict,               \
                 std::source_location where = std::source_location::current()) const { \
    return run(atomic_op::FOP, address(t), v, o, where);                               \
  }                                                                                    \
  template <detail::atomic_arithmetic_target<T> Target>                                \
  void NAME(Target&& t, T v, atomic_order o = atomic_order::strict,                    \
            std::source_location where = std::source_location::current()) const {      \
    (void)run(atomic_op::OP, address(t), v, o, where);                                 \
  }
  /// FADD/ADD, FSUB/SUB, FMULT/MULT, FAND/AND, FOR/OR, FXOR/XOR, FMIN/MIN, FMAX/MAX: the
  /// fetch_ form returns the old value.
  PGASI_ATOMIC_BINARY(add, add, fadd)
  PGASI_ATOMIC_BINARY(sub, sub, fsub)
  PGASI_ATOMIC_BINARY(mult, mult, fmult)
  PGASI_ATOMIC_BINARY(and_, and_, fand)
  PGASI_ATOMIC_BINARY(or_, or_, for_)
  PGASI_ATOMIC_BINARY(xor_, xor_, fxor)
  PGASI_ATOMIC_BINARY(min, min, fmin)
  PGASI_ATOMIC_BINARY(max, max, fmax)
#undef PGASI_ATOMIC_BINARY

  /// FINC/INC and FDEC/DEC.
  template <detail::atomic_arithmetic_target<T> Target>
  T fetch_inc(Target&& t, atomic_order o = atomic_order::strict,
              std::source_location where = std::source_location::current()) const {
    return run(atomic_op::finc, address(t), T(), o, where);
  }
  template <detail::atomic_arithmetic_target<T> Target>
  void inc(Target&& t, atomic_order o = atomic_order::strict,
           std::source_location where = std::source_location::current()) const {
    (void)run(atomic_op::inc, address(t), T(), o, where);
  }
  template <detail::atomic_arithmetic_target<T> Target>
  T fetch_dec(Target&& t, atomic_order o = atomic_order::strict,
              std::source_location where = std::source_location::current()) const {
    return run(atomic_op::fdec, address(t), T(), o, where);
  }
  template <detail::atomic_arithmetic_target<T> Target>
  void dec(Target&& t, atomic_order o = atomic_order::strict,
           std::source_location where = std::source_location::current()) const {
    (void)run(atomic_op::dec, address(t), T(), o, where);
  }

 private:
  // A pointer-to-shared's address (null for the null pointer-to-shared), or a reference's.
  template <std::size_t B>
  static T* address(const sptr<T, B>& p) noexcept {
    return static_cast<T*>(p);
  }
  static T* address(T& r) noexcept {
    return &r;
  }
  static T* address(T* const&) noexcept {
    static_assert(detail::atomic_plain_pointer_target<T>,
                  "pgas::atomic_domain: the target is a plain pointer: in pgas, &A[i] is the "
                  "element's plain T*; pass A.ptr(i) (a pgas::sptr) or the element A[i] itself");
    return nullptr;
  }

  T run(atomic_op op, T* target, T a, atomic_order o, const std::source_location& where,
        T b = T()) const {
    const auto bit = static_cast<std::uint32_t>(op);
    detail::atomic_check(*d_, bit, target, where);
    detail::atomic_trace(bit, target, sizeof(T), where);
    if constexpr (detail::atomic_pts<T>) {
      return detail::atomic_apply_pts(bit, target, a, b, o);
    } else {
      return detail::atomic_apply(bit, target, a, b, o);
    }
  }

  void upc_form(T* fetch_ptr, atomic_op op, T* target, const T* operand1, const T* operand2,
                atomic_order o, const std::source_location& where) const {
    detail::atomic_check_upc_form(static_cast<std::uint32_t>(op), fetch_ptr, operand1, operand2,
                                  where);
    const T v = run(op, target, operand1 ? *operand1 : T(), o, where, operand2 ? *operand2 : T());
    if (fetch_ptr != nullptr) *fetch_ptr = v;
  }

  atomicdomain* d_ = &detail::atomic_null_domain;
};

}  // namespace pgas
