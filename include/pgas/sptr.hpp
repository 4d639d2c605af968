// pgas/sptr.hpp — pointers-to-shared (UPC 1.3 §6.4.2, §6.4.3, §7.2.3).
//
// `pgas::sptr<T, B>` is UPC's `shared [B] T *`: a pointer that names a thread as well as an
// address, and whose arithmetic walks a block-cyclic layout — B consecutive elements on one
// thread, the next B on the next thread, wrapping from the last thread to the next "course" on
// thread 0. B = 1 is UPC's default (`shared T *`), B = pgas::indefinite (0) is `shared [] T *`
// (everything on one thread), B = pgas::dynamic_block takes the block size at run time.
// `sptr<void>` is the generic `shared void *`.
//
// Contract.
//   * Collective: nothing here. Every call is local to the calling thread and touches no
//     other thread's state.
//   * Errors (pgas/error.hpp): making a pointer whose thread is not below THREADS, whose
//     address is beyond a segment, whose phase is not below its block or whose run-time
//     block exceeds config::max_runtime_block (from_parts), sptr_from() of an address outside the
//     shared space, and thread_distance() of a thread outside [0, THREADS) are misuse, always
//     checked: inside a job the job ends naming the thread and the call's file:line. With bounds
//     checking (config::bounds_check) so is dereferencing a pointer outside a live shared
//     allocation;
//     *, -> and [] have no call site to name, so the report carries the thread's backtrace.
//     A compile-time block size beyond config::max_block does not compile (the message says
//     to use pgas::dynamic_block).
//   * Outside a job there is no shared space: from_parts(), sptr_from() and thread_distance()
//     throw pgas::usage_error, and so does a checked dereference (*, -> and [] are noexcept
//     only when unchecked, so that the exception reaches the caller). A null
//     (default-constructed) pointer can be made, copied and compared anywhere.
//   * Memory ordering: *p, p->m and p[n] are plain loads and stores — UPC's relaxed accesses.
//     Another thread sees a write once the two are ordered by a barrier or a lock
//     (pgas/sync.hpp, pgas/lock.hpp); strict accesses are written pgas::strict(p) and
//     pgas::strict_load/strict_store (pgas/strict.hpp, which says what relaxed means here).
//   * Thread safety: an sptr is a value (8 bytes; 16 for a run-time block, which also names
//     its block size's divider); using copies of it on any threads is safe, and the memory it
//     points to is as safe as any memory shared by threads. It is shared data
//     itself: shared_array<sptr<T, B>> and structs holding pointers-to-shared work, their
//     zero-initialised elements being null (pgas/shared_storable.hpp).
//
// Limits: the shared space holds at most 2^config::sptr_offset_bits bytes (16 TiB by default:
// e.g. 4096 threads of 4 GiB), because a pointer is one 64-bit word of phase and offset
// (pgas/detail/sptr_word.hpp). A compile-time block has at most config::max_block (2^20)
// elements, what the word's phase field holds. A run-time block (B = pgas::dynamic_block, and
// every shared_array whose block_spec is given at run time) has at most
// config::max_runtime_block (2^38): its pointer keeps the phase's higher bits in its second
// word (pgas/detail/block.hpp), so one block of rows per thread, [*] and big tiles need no
// workaround. The generic sptr<void> is the one word: converted to it, a run-time-B pointer
// whose phase is config::max_block or more keeps its thread and address and only the low
// sptr_phase_bits bits of its phase.
//
// Arithmetic (p + n, p - n, ++, --, p - q) follows UPC 1.3 exactly: advancing by n moves the
// phase by n modulo B, crossing to the next thread at each block boundary and to the next
// course after the last thread; no step divides in hardware. p - q is defined for pointers
// into the same array (UPC leaves other cases undefined); relational comparison orders by
// p - q; == compares thread and address and ignores the phase (UPC §6.4.2p4).
//
// Conversions (UPC §6.4.3):
//   * sptr<T, B> → sptr<const T, B> and → sptr<void> (the generic pointer-to-shared, which
//     keeps the phase) are implicit.
//   * A run-time-block pointer (sptr<T, dynamic_block>, what shared_array<T>::ptr() returns)
//     converts implicitly to sptr<T, B> for a compile-time B when its block IS B — checked at
//     run time (one compare): another block is misuse naming the conversion's file:line. So
//     `pgas::sptr<int> p = A.ptr(0);` works for `pgas::shared_array<int> A({N})`, UPC's
//     `shared int *p = &A[0];` (a run-time block of 1, as UPC's default).
//   * To a pointer with another block size or element size: explicit (`sptr<U, B2>(p)`,
//     pgas::sptr_cast); the thread and address are kept and the phase becomes 0. UPC allows
//     these by assignment; pgas asks for a cast because the phase is lost. An explicit cast
//     from a run-time block is never checked: it is UPC's cast.
//   * From the generic pointer (UPC `shared void *`, and what all_alloc, global_alloc and
//     local_alloc_shared return, pgas/alloc.hpp): implicit to any element type with a
//     compile-time block, as in UPC's assignment (explicit when it would drop const; a
//     run-time-B pointer is made with from_word(w, block)); block sizes 1 and indefinite get
//     phase 0, others keep the phase.
//   * To a plain `T*`: explicit (`static_cast<T*>(p)`, `p.get()`, pgas::to_local). This is an
//     extension of UPC: UPC defines the cast only for data with affinity to the calling
//     thread, but here every thread's memory is in one address space, so a pointer to any
//     thread's data works. Pointer arithmetic on the result is plain C arithmetic within the
//     owner's part (contiguous within a block, and across that thread's courses).
#pragma once

#include <pgas/detail/export.hpp>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <type_traits>

#include <pgas/config.hpp>
#include <pgas/detail/block.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/detail/sptr_word.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/runtime.hpp>
#include <pgas/shared_storable.hpp>

namespace pgas {

/// Block size of `shared [] T *`: all elements on one thread, no phase.
inline constexpr std::size_t indefinite = 0;
/// Block size known only at run time (e.g. `shared [*]` arrays, or a block computed from
/// THREADS).
inline constexpr std::size_t dynamic_block = detail::dynamic_block_tag;

template <class T, std::size_t B = 1>
class sptr;

namespace detail {
template <int N>
struct no_cast_source {};
// False for every type: the static_asserts of the constructors that exist only to give a hint.
template <class T>
inline constexpr bool hint_only = false;
// The run-time-block source of sptr<T, B>'s explicit casts: sptr<T, dynamic_block> (N = 0) and,
// for a const T, sptr<non-const T, dynamic_block> (N = 1); a placeholder where that would be
// the copy constructor or the first one again.
template <class T, std::size_t B, int N>
using sptr_cast_source =
    std::conditional_t<B != dynamic_block && (N == 0 || std::is_const_v<T>),
                       sptr<std::conditional_t<N == 0, T, std::remove_const_t<T>>, dynamic_block>,
                       no_cast_source<N>>;
}  // namespace detail

/// The generic pointer-to-shared, UPC's `shared void *` (and `shared const void *`): keeps
/// thread, address and phase; no arithmetic and no dereference (both would not compile).
template <class V, std::size_t B>
requires std::is_void_v<V>
class sptr<V, B> {
 public:
  constexpr sptr() noexcept = default;
  constexpr sptr(std::nullptr_t) noexcept {}

  /// Any typed pointer-to-shared converts implicitly, keeping its phase.
  template <class U, std::size_t B2>
  requires(!std::is_void_v<U> && (std::is_const_v<V> || !std::is_const_v<U>))
      sptr(const sptr<U, B2>& p)
  noexcept : w_(p.word()) {}
  template <class W, std::size_t B2>
  requires(std::is_void_v<W>&& std::is_const_v<V> && !std::is_const_v<W>) sptr(const sptr<W, B2>& p)
  noexcept : w_(p.word()) {}

  /// The packed word (pgas/detail/sptr_word.hpp); from_word is its inverse.
  std::uint64_t word() const noexcept { return w_; }
  static sptr from_word(std::uint64_t w) noexcept {
    sptr p;
    p.w_ = w;
    return p;
  }

  /// UPC upc_threadof, upc_phaseof and upc_addrfield (see the typed pointer below).
  int thread() const noexcept {
    return static_cast<int>(detail::word_offset<dynamic_block>(w_) >> detail::geometry.shift);
  }
  std::size_t phase() const noexcept { return detail::word_phase<dynamic_block>(w_); }
  std::size_t addrfield() const noexcept {
    return detail::word_offset<dynamic_block>(w_) & (detail::geometry.segment - 1);
  }
  /// The address in the one address space. As for typed pointers, the fast form: for the
  /// null pointer-to-shared it is not null (the conversion below is).
  V* get() const noexcept { return detail::geometry.base + detail::word_offset<dynamic_block>(w_); }
  explicit operator V*() const noexcept { return w_ == 0 ? nullptr : get(); }
  explicit operator bool() const noexcept { return w_ != 0; }

  /// Same thread and address (the phase is ignored, as in UPC).
  friend bool operator==(sptr a, sptr b) noexcept { return detail::word_same_place(a.w_, b.w_); }
  /// A typed pointer against the generic one (both convert to each other; this is exact).
  template <class U, std::size_t B2>
  requires(!std::is_void_v<U>) friend bool operator==(sptr a, const sptr<U, B2>& b) noexcept {
    return detail::word_same_place(a.w_, b.word());
  }

 private:
  std::uint64_t w_ = 0;
};

/// UPC `shared [B] T *`. See the top of this header for the rules.
template <class T, std::size_t B>
class sptr {
  static_assert(B == dynamic_block || B <= config::max_block,
                "block size exceeds config::max_block (2^sptr_phase_bits elements) for a "
                "compile-time block: use pgas::dynamic_block, whose run-time blocks may be up to "
                "config::max_runtime_block");
  static constexpr std::uint64_t S = sizeof(T);

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using pointer = T*;

  /// The null pointer-to-shared (word 0).
  constexpr sptr() noexcept = default;
  constexpr sptr(std::nullptr_t) noexcept {}

  /// Implicit conversions that lose nothing: adding const, and a compile-time-B pointer to
  /// the run-time-B pointer of the same element type (both keep the phase).
  template <class U, std::size_t B2>
  requires(detail::sptr_implicit<T, B, U, B2> && !(std::is_same_v<T, U> && B == B2))
      sptr(const sptr<U, B2>& p)
      : w_(p.word()) {
    take_block(p);
  }

  /// A run-time-block pointer to a compile-time block B: implicit, when the pointer's block is
  /// B (checked; misuse naming `where`, the conversion's call site, otherwise). The phase is
  /// kept. Thread-safe; outside a job a mismatch throws pgas::usage_error.
  template <class U>
  requires(B != dynamic_block && detail::sptr_implicit<T, dynamic_block, U, dynamic_block>)
      sptr(const sptr<U, dynamic_block>& p,
           std::source_location where = std::source_location::current())
      : w_(p.word()) {
    if (p.block() != B) [[unlikely]]
      detail::sptr_block_mismatch(p.block(), B, where);
  }
  /// The explicit cast from a run-time block (UPC's cast, unchecked): as below. Not templates,
  /// so that `sptr<T, B>(p)` picks them over the checked conversion above (for a run-time B
  /// their parameters are placeholders that nothing converts to).
  explicit sptr(const detail::sptr_cast_source<T, B, 0>& p) noexcept : w_(p.word()) {
    if (p.block() != B) w_ &= detail::offset_mask;
  }
  explicit sptr(const detail::sptr_cast_source<T, B, 1>& p) noexcept : w_(p.word()) {
    if (p.block() != B) w_ &= detail::offset_mask;
  }

  /// A plain pointer is not a pointer-to-shared (it carries no thread), so the cast stops the
  /// compile with a hint: p[i] of a pointer-to-shared p is the element itself, and UPC's
  /// `&p[i]` is then the element's plain T*; write `p + i` (`A.ptr(i)` for an array's element,
  /// pgas::sptr_from(x) for a plain address that lies in the shared space).
  template <class U>
  explicit sptr(U*) {
    static_assert(detail::hint_only<U>,
                  "pgas::sptr from a plain pointer: in pgas, p[i] of a pointer-to-shared is the "
                  "element itself, so &p[i] is its plain T*; for UPC's &p[i] write p + i "
                  "(A.ptr(i) for an element of an array A; pgas::sptr_from(x) for a plain "
                  "address in the shared space)");
  }

  /// Cast from another typed pointer-to-shared (UPC §6.4.3): same thread and address; the
  /// phase is kept when block size and element size are the same, else it becomes 0. A
  /// run-time-B target takes the source's block size.
  template <class U, std::size_t B2>
  requires(!std::is_void_v<U> &&
           !detail::sptr_implicit<T, B, U, B2>) explicit sptr(const sptr<U, B2>& p)
      : w_(p.word()) {
    take_block(p);
    if (p.block() != block() || sizeof(U) != sizeof(T)) reset_phase();
  }

  /// From the generic pointer-to-shared (UPC §6.4.3): implicit, as UPC's assignment of a
  /// `shared void *`, unless it drops const. Block size 1 or indefinite get phase 0; others
  /// keep the phase. (A run-time-B pointer is made with from_word(w, block).)
  template <class V, std::size_t B2>
  requires(std::is_void_v<V>&& B != dynamic_block) explicit(std::is_const_v<V> &&
                                                            !std::is_const_v<T>)
      sptr(const sptr<V, B2>& p) noexcept
      : w_(p.word()) {
    if constexpr (detail::word_phaseless<B>) w_ &= detail::offset_mask;
  }

  /// Makes a pointer from its parts (UPC has no such constructor; this is how arrays make
  /// &A[i]). Misuse (see the top of this header) when thread is not below THREADS,
  /// addrfield is not inside a segment or phase is not below the block size; outside a job
  /// it always throws pgas::usage_error.
  static sptr from_parts(
      int thread, std::size_t addrfield, std::size_t phase = 0,
      std::source_location where = std::source_location::current()) requires(B != dynamic_block) {
    return from_word(detail::sptr_pack(thread, addrfield, phase, B, where));
  }
  /// The run-time-B form (block 0 is indefinite); also misuse for a block beyond
  /// config::max_runtime_block.
  static sptr from_parts(
      int thread, std::size_t addrfield, std::size_t phase, std::size_t block,
      std::source_location where = std::source_location::current()) requires(B == dynamic_block) {
    const std::uint64_t w = detail::sptr_pack(thread, addrfield, phase, block, where);
    return from_offset(w, phase, detail::block_divider_for(block));
  }

  /// The packed word (pgas/detail/sptr_word.hpp). from_word is its inverse, unchecked (a
  /// run-time-B pointer also needs its block, by size or as another pointer's divider).
  std::uint64_t word() const noexcept { return w_; }
  static sptr from_word(std::uint64_t w) noexcept requires(B != dynamic_block) {
    sptr p;
    p.w_ = w;
    return p;
  }
  static sptr from_word(std::uint64_t w, std::size_t block) requires(B == dynamic_block) {
    return from_word(w, detail::block_divider_for(block));
  }
  static sptr from_word(std::uint64_t w, const detail::block_divider& block) noexcept
      requires(B == dynamic_block) {
    sptr p;
    p.w_ = w;
    p.blk_ = detail::block_ref<B>(block);
    return p;
  }
  /// A run-time-B pointer from its offset in the shared space (word() & detail::offset_mask)
  /// and its whole phase, which may exceed the word's phase field: from_parts unchecked.
  static sptr from_offset(std::uint64_t offset, std::size_t phase,
                          const detail::block_divider& block) noexcept
      requires(B == dynamic_block) {
    sptr p;
    p.blk_ = detail::block_ref<B>(block);
    p.w_ = detail::with_phase<B>(offset & detail::offset_mask, phase, p.blk_);
    return p;
  }

  /// UPC upc_threadof: the thread that has affinity to the element.
  int thread() const noexcept { return static_cast<int>(offset() >> detail::geometry.shift); }
  /// UPC upc_phaseof: the element's position within its block (0 for B = 1 and indefinite).
  std::size_t phase() const noexcept { return detail::full_phase<B>(w_, blk_); }
  /// UPC upc_addrfield: the byte offset of the element within its thread's segment.
  std::size_t addrfield() const noexcept { return offset() & (detail::geometry.segment - 1); }
  /// The block size B (the run-time value for dynamic_block).
  std::size_t block() const noexcept { return blk_.value(); }
  /// Offset of the element from the start of the shared space.
  std::uint64_t offset() const noexcept { return detail::word_offset<B>(w_); }

  /// The element's address: any thread's memory is reachable (see "Conversions" above).
  /// The fast form: for the null pointer-to-shared it is not null (use static_cast<T*>).
  T* get() const noexcept { return reinterpret_cast<T*>(detail::geometry.base + offset()); }
  /// The element's address, and nullptr for the null pointer-to-shared.
  explicit operator T*() const noexcept { return w_ == 0 ? nullptr : get(); }
  /// False for the null pointer-to-shared.
  explicit operator bool() const noexcept { return w_ != 0; }

  /// The element, by reference: a relaxed access (see the top of this header). Checked
  /// builds end the job when the element is not inside a live shared allocation.
  [[gnu::always_inline]] T& operator*() const noexcept(!config::bounds_check) {
    if constexpr (config::bounds_check) check(sizeof(T));
    detail::trace_element(get());
    return *get();
  }
  [[gnu::always_inline]] T* operator->() const noexcept(!config::bounds_check) {
    if constexpr (config::bounds_check) check(sizeof(T));
    detail::trace_element(get());
    return get();
  }
  /// *(p + n).
  [[gnu::always_inline]] T& operator[](std::ptrdiff_t n) const noexcept(!config::bounds_check) {
    return *(*this + n);
  }

  /// The next element in the block-cyclic order (UPC §6.4.2p2-3): within a block one add.
  sptr& operator++() noexcept {
    detail::word_increment<B, S>(w_, blk_);
    return *this;
  }
  sptr operator++(int) noexcept {
    sptr old = *this;
    ++*this;
    return old;
  }
  sptr& operator--() noexcept { return *this += -1; }
  sptr operator--(int) noexcept {
    sptr old = *this;
    --*this;
    return old;
  }

  /// UPC pointer-to-shared addition (§6.4.2p2-3): n elements on in the block-cyclic order.
  sptr& operator+=(std::ptrdiff_t n) noexcept {
    detail::word_advance<B, S>(w_, blk_, n);
    return *this;
  }
  sptr& operator-=(std::ptrdiff_t n) noexcept { return *this += -n; }
  friend sptr operator+(sptr p, std::ptrdiff_t n) noexcept { return p += n; }
  friend sptr operator+(std::ptrdiff_t n, sptr p) noexcept { return p += n; }
  friend sptr operator-(sptr p, std::ptrdiff_t n) noexcept { return p += -n; }

  /// UPC pointer-to-shared subtraction (§6.4.2p5): the difference of the two elements'
  /// positions in the block-cyclic order. Defined for pointers into the same array.
  friend std::ptrdiff_t operator-(const sptr& p, const sptr& q) noexcept {
    return detail::word_distance<B, S>(p.w_, q.w_, p.blk_, q.blk_);
  }

  /// Same thread and address; the phase is ignored (UPC §6.4.2p4).
  friend bool operator==(const sptr& p, const sptr& q) noexcept {
    return detail::word_same_place(p.w_, q.w_);
  }
  /// Orders pointers into the same array by their position (p - q).
  friend std::strong_ordering operator<=>(const sptr& p, const sptr& q) noexcept {
    return (p - q) <=> 0;
  }

  /// The block as the pointer carries it (a run-time B's divider and high phase bits): for
  /// conversions.
  detail::block_ref<B> block_ref() const noexcept { return blk_; }

 private:
  template <class U, std::size_t B2>
  void take_block(const sptr<U, B2>& p) {
    if constexpr (B == dynamic_block) {
      if constexpr (B2 == dynamic_block) {
        blk_ = p.block_ref();
      } else {
        blk_ = detail::block_ref<B>(detail::block_divider_for(B2));
      }
    }
  }

  void reset_phase() noexcept {
    w_ &= detail::offset_mask;
    if constexpr (B == dynamic_block) blk_.set_phase(0);
  }

  void check(std::size_t bytes) const {
    detail::check_shared_range(offset(), bytes, "dereferencing a pointer-to-shared", nullptr);
  }

  std::uint64_t w_ = 0;
  [[no_unique_address]] detail::block_ref<B> blk_{};
};

/// Pointers-to-shared are shared data (UPC `shared int *shared p[THREADS]`): the zero word is
/// the null pointer (pgas/shared_storable.hpp), with block 1 for a run-time block, as a
/// default-constructed one. A run-time-block pointer also holds the address of its block's
/// divider, which is valid in every thread of the process.
template <class T, std::size_t B>
struct zero_default<sptr<T, B>> : std::true_type {};

// UPC's pointer-to-shared functions (§7.2.3), for any pointer-to-shared including generic.

/// UPC upc_threadof.
template <class T, std::size_t B>
int threadof(const sptr<T, B>& p) noexcept {
  return p.thread();
}
/// UPC upc_phaseof.
template <class T, std::size_t B>
std::size_t phaseof(const sptr<T, B>& p) noexcept {
  return p.phase();
}
/// UPC upc_addrfield: byte offset of the element within its thread's segment.
template <class T, std::size_t B>
std::size_t addrfield(const sptr<T, B>& p) noexcept {
  return p.addrfield();
}
/// UPC upc_resetphase: the same pointer with phase 0.
template <class T, std::size_t B>
sptr<T, B> resetphase(const sptr<T, B>& p) noexcept {
  if constexpr (B == dynamic_block) {
    return sptr<T, B>::from_word(p.word() & detail::offset_mask, p.block());
  } else {
    return sptr<T, B>::from_word(p.word() & detail::offset_mask);
  }
}

/// UPC upc_affinitysize: the bytes with affinity to `thread` of a shared object of
/// `totalsize` bytes laid out in blocks of `nbytes` bytes (blocks dealt to threads 0, 1, …,
/// THREADS-1 and around again; the last block may be partial). As in UPC, for an object from
/// all_alloc or global_alloc pass nblocks * nbytes and nbytes; for a shared array of s
/// elements of type T with block b, s * sizeof(T) and b * sizeof(T); nbytes 0 (an indefinite
/// block) puts every byte on thread 0. Misuse: thread outside [0, THREADS). Outside a job
/// THREADS is 1. (A shared array answers for itself: shared_array::affinitysize.)
PGAS_API std::size_t affinitysize(std::size_t totalsize, std::size_t nbytes, int thread,
                                  std::source_location where = std::source_location::current());

/// The plain address of any thread's element (see "Conversions" above).
template <class T, std::size_t B>
auto to_local(const sptr<T, B>& p) noexcept {
  return static_cast<T*>(p);
}

/// Casts between pointer-to-shared types: sptr_cast<U, B2>(p) is `(shared [B2] U *) p`.
template <class U, std::size_t B2 = 1, class T, std::size_t B>
sptr<U, B2> sptr_cast(const sptr<T, B>& p) noexcept {
  return sptr<U, B2>(p);
}

/// True when the element has affinity to the calling thread (UPC: upc_threadof(p) ==
/// MYTHREAD).
template <class T, std::size_t B>
bool is_local(const sptr<T, B>& p) noexcept {
  return p.thread() == mythread();
}

/// How close two threads of the running job are placed, nearest first.
enum class locality {
  same_thread,   // the same UPC thread
  same_core,     // different threads on one core (hardware threads, or oversubscribed)
  same_l3,       // different cores sharing a last-level cache
  same_numa,     // one NUMA node, different caches
  same_package,  // one socket, different NUMA nodes
  machine,       // different sockets
};
/// "same_thread", "same_core", …
PGAS_API const char* to_string(locality l) noexcept;

/// How close threads a and b are on the machine the job runs on (from the job's placement;
/// threads that are not bound count as placed on the PU their number maps to). Not
/// collective; thread-safe. Misuse: a or b outside [0, THREADS); outside a job it throws
/// pgas::usage_error.
PGAS_API locality thread_distance(int a, int b,
                                  std::source_location where = std::source_location::current());

/// A pointer-to-shared for an address in the shared space (e.g. from local_alloc or a cast
/// to a plain pointer), with phase 0 and indefinite block: the inverse of to_local. Misuse
/// (always checked): an address outside the shared space; outside a job it throws
/// pgas::usage_error.
template <class T>
sptr<T, indefinite> sptr_from(T* p, std::source_location where = std::source_location::current()) {
  return sptr<T, indefinite>::from_word(detail::sptr_offset_of(p, where));
}

}  // namespace pgas
