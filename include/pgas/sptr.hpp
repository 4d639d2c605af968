// pgas/sptr.hpp — pointers-to-shared (UPC 1.3 §6.4.2, §6.4.3, §7.2.3).
//
// `pgas::sptr<T, B>` is UPC's `shared [B] T *`: a pointer that names a thread as well as an
// address, and whose arithmetic walks a block-cyclic layout — B consecutive elements on one
// thread, the next B on the next thread, wrapping from the last thread to the next "course" on
// thread 0. B = 1 is UPC's default (`shared T *`), B = pgas::indefinite (0) is `shared [] T *`
// (everything on one thread), B = pgas::dynamic_block takes the block size at run time.
//
// Representation. One 64-bit word (for a compile-time B):
//
//     63 ........ 64-P | 63-P ........................................ 0
//          phase       |  offset = thread * segment_size + address in segment
//
// where P = config::sptr_phase_bits (20 by default; Meson option `sptr_phase_bits`). Segments
// are powers of two laid end to end in one reservation (pgas/alloc.hpp), so
//     threadof  = offset >> log2(segment_size)
//     address   = shared space base + offset          (dereference: an AND and an ADD)
// and no table or divide is ever needed to find an element. Limits: a block has at most
// 2^P elements (config::max_block) and the shared space at most 2^(64-P) bytes (16 TiB by
// default: e.g. 4096 threads of 4 GiB). The word 0 is the null pointer-to-shared.
// A run-time-B pointer also carries a pointer to its block size's divider, so it is 16 bytes;
// its word is the same.
//
// Arithmetic (p + n, p - n, ++, --, p - q) follows UPC 1.3 exactly: advancing by n moves the
// phase by n modulo B, crossing to the next thread at each block boundary and to the next
// course after the last thread. Division by B and by THREADS never uses a hardware divide:
// compile-time B divides by a constant, run-time B and THREADS use precomputed libdivide
// dividers (shifts for powers of two), and ++ within a block is one add. p - q is defined for
// pointers into the same array (UPC leaves other cases undefined); relational comparison
// orders by p - q; == compares thread and address and ignores the phase (UPC §6.4.2p4).
//
// Conversions (UPC §6.4.3):
//   * sptr<T, B> → sptr<const T, B> and → sptr<void> (the generic pointer-to-shared, which
//     keeps the phase) are implicit.
//   * To a pointer with another block size or element size: explicit (`sptr<U, B2>(p)`,
//     pgas::sptr_cast); the thread and address are kept and the phase becomes 0. UPC allows
//     these by assignment; pgas asks for a cast because the phase is lost.
//   * From the generic pointer: explicit; block sizes 1 and indefinite get phase 0, others
//     keep the phase.
//   * To a plain `T*`: explicit (`static_cast<T*>(p)`, `p.get()`, pgas::to_local). This is an
//     extension of UPC: UPC defines the cast only for data with affinity to the calling
//     thread, but here every thread's memory is in one address space, so a pointer to any
//     thread's data works. Pointer arithmetic on the result is plain C arithmetic within the
//     owner's part (contiguous within a block, and across that thread's courses).
//
// Errors: with bounds checking on (config::bounds_check), dereferencing a pointer outside a
// live shared allocation ends the job naming the thread, the pointer and a backtrace. Making
// a pointer from a thread or block size beyond the limits above is always an error.
//
// Thread-safety: an sptr is a value; using it is as thread-safe as the memory it points to.
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
#include <pgas/runtime.hpp>

namespace pgas {

/// Block size of `shared [] T *`: all elements on one thread, no phase.
inline constexpr std::size_t indefinite = 0;
/// Block size known only at run time (e.g. `shared [*]` arrays, or a block computed from
/// THREADS).
inline constexpr std::size_t dynamic_block = detail::dynamic_block_tag;

template <class T, std::size_t B = 1>
class sptr;

namespace detail {

inline constexpr unsigned phase_shift = config::sptr_offset_bits;
inline constexpr std::uint64_t offset_mask = (std::uint64_t{1} << phase_shift) - 1;
inline constexpr std::uint64_t phase_one = std::uint64_t{1} << phase_shift;

// Packs thread, address and phase, checking the limits (always: it is not the fast path).
PGAS_API std::uint64_t sptr_pack(int thread, std::size_t addrfield, std::size_t phase,
                                 std::uint64_t block, const std::source_location& where);

// Conversions that keep everything: adding const, and compile-time B → run-time B.
template <class T, std::size_t B, class U, std::size_t B2>
inline constexpr bool sptr_implicit =
    !std::is_void_v<U> && std::is_same_v<std::remove_const_t<T>, std::remove_const_t<U>> &&
    (std::is_const_v<T> || !std::is_const_v<U>)&&(B == B2 || B == dynamic_block_tag);

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

  /// The packed word (see the top of this header).
  std::uint64_t word() const noexcept { return w_; }
  static sptr from_word(std::uint64_t w) noexcept {
    sptr p;
    p.w_ = w;
    return p;
  }

  int thread() const noexcept {
    return static_cast<int>((w_ & detail::offset_mask) >> detail::geometry.shift);
  }
  std::size_t phase() const noexcept { return w_ >> detail::phase_shift; }
  std::size_t addrfield() const noexcept {
    return w_ & detail::offset_mask & (detail::geometry.segment - 1);
  }
  /// The address in the one address space. As for typed pointers, the fast form: for the
  /// null pointer-to-shared it is not null (the conversion below is).
  V* get() const noexcept { return detail::geometry.base + (w_ & detail::offset_mask); }
  explicit operator V*() const noexcept { return w_ == 0 ? nullptr : get(); }
  explicit operator bool() const noexcept { return w_ != 0; }

  /// Same thread and address (the phase is ignored, as in UPC).
  friend bool operator==(sptr a, sptr b) noexcept {
    return ((a.w_ ^ b.w_) & detail::offset_mask) == 0;
  }

 private:
  std::uint64_t w_ = 0;
};

/// UPC `shared [B] T *`. See the top of this header for representation and rules.
template <class T, std::size_t B>
class sptr {
  static_assert(B == dynamic_block || B <= config::max_block,
                "block size exceeds config::max_block (2^sptr_phase_bits elements)");
  static constexpr bool phaseless = B == 0 || B == 1;
  static constexpr std::uint64_t S = sizeof(T);

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using pointer = T*;

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

  /// Cast from another typed pointer-to-shared (UPC §6.4.3): same thread and address; the
  /// phase is kept when block size and element size are the same, else it becomes 0. A
  /// run-time-B target takes the source's block size.
  template <class U, std::size_t B2>
  requires(!std::is_void_v<U> &&
           !detail::sptr_implicit<T, B, U, B2>) explicit sptr(const sptr<U, B2>& p)
      : w_(p.word()) {
    take_block(p);
    if (p.block() != block() || sizeof(U) != sizeof(T)) w_ &= detail::offset_mask;
  }

  /// Cast from the generic pointer-to-shared (UPC §6.4.3): block size 1 or indefinite get
  /// phase 0; others keep the phase. (A run-time-B pointer is made with from_word(w, block).)
  template <class V, std::size_t B2>
  requires(std::is_void_v<V>&& B != dynamic_block) explicit sptr(const sptr<V, B2>& p) noexcept
      : w_(p.word()) {
    if constexpr (phaseless) w_ &= detail::offset_mask;
  }

  /// Makes a pointer from its parts (UPC has no such constructor; this is how arrays make
  /// &A[i]). Ends the job if thread is not below THREADS, addrfield is not inside a
  /// segment or phase is not below the block size.
  static sptr from_parts(
      int thread, std::size_t addrfield, std::size_t phase = 0,
      std::source_location where = std::source_location::current()) requires(B != dynamic_block) {
    return from_word(detail::sptr_pack(thread, addrfield, phase, B, where));
  }
  /// The run-time-B form (block 0 is indefinite).
  static sptr from_parts(
      int thread, std::size_t addrfield, std::size_t phase, std::size_t block,
      std::source_location where = std::source_location::current()) requires(B == dynamic_block) {
    sptr p;
    p.blk_.d = &detail::block_divider_for(block);
    p.w_ = detail::sptr_pack(thread, addrfield, phase, block, where);
    return p;
  }

  /// The packed word. from_word is its inverse (a run-time-B pointer also needs its block).
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
    p.blk_.d = &block;
    return p;
  }

  /// UPC upc_threadof: the thread that has affinity to the element.
  int thread() const noexcept { return static_cast<int>(offset() >> detail::geometry.shift); }
  /// UPC upc_phaseof: the element's position within its block (0 for B = 1 and indefinite).
  std::size_t phase() const noexcept {
    if constexpr (phaseless) {
      return 0;
    } else {
      return w_ >> detail::phase_shift;
    }
  }
  /// UPC upc_addrfield: the byte offset of the element within its thread's segment.
  std::size_t addrfield() const noexcept { return offset() & (detail::geometry.segment - 1); }
  /// The block size B (the run-time value for dynamic_block).
  std::size_t block() const noexcept { return blk_.value(); }
  /// Offset of the element from the start of the shared space.
  std::uint64_t offset() const noexcept {
    if constexpr (phaseless) {
      return w_;
    } else {
      return w_ & detail::offset_mask;
    }
  }

  /// The element's address: any thread's memory is reachable (see "Conversions" above).
  /// The fast form: for the null pointer-to-shared it is not null (use static_cast<T*>).
  T* get() const noexcept { return reinterpret_cast<T*>(detail::geometry.base + offset()); }
  explicit operator T*() const noexcept { return w_ == 0 ? nullptr : get(); }
  explicit operator bool() const noexcept { return w_ != 0; }

  T& operator*() const noexcept {
    if constexpr (config::bounds_check) check(sizeof(T));
    return *get();
  }
  T* operator->() const noexcept {
    if constexpr (config::bounds_check) check(sizeof(T));
    return get();
  }
  T& operator[](std::ptrdiff_t n) const noexcept { return *(*this + n); }

  sptr& operator++() noexcept {
    const detail::shared_geometry& g = detail::geometry;
    if constexpr (B == 0) {
      w_ += S;
    } else if constexpr (B == 1) {
      // Next thread, same address; after the last thread, the next address on thread 0.
      // The test reads the old word, not w_ + segment, so the compare and both candidate
      // sums run side by side: a loop of ++p carries a 2-cycle chain through w_, not 3.
      w_ = w_ >= g.span - g.segment ? w_ - (g.span - g.segment - S) : w_ + g.segment;
    } else {
      if constexpr (B == dynamic_block) {
        if (block() == 0) [[unlikely]] {  // a run-time indefinite block
          w_ += S;
          return *this;
        }
      }
      // phase() + 1 < block(), read off the word: the offset bits are below phase_one, so
      // w_ < (B - 1) * phase_one exactly when the phase is below B - 1. [[likely]] keeps the
      // in-block step on the fall-through path: one taken branch per element, not two.
      if (w_ < (block() - 1) * detail::phase_one) [[likely]] {
        w_ += detail::phase_one + S;
      } else {
        // Phase 0 of the next block: the next thread, back to the block's start; after the
        // last thread, the next course on thread 0. As for B = 1, the test reads the offset
        // itself rather than the sum.
        const std::uint64_t off = w_ & detail::offset_mask;
        const std::uint64_t back = (block() - 1) * S;
        w_ = off >= g.span - g.segment + back ? off - back + g.segment - g.span + block() * S
                                              : off - back + g.segment;
      }
    }
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

  /// UPC pointer-to-shared addition (§6.4.2p2-3).
  sptr& operator+=(std::ptrdiff_t n) noexcept {
    if constexpr (B == 0) {
      w_ += static_cast<std::uint64_t>(n) * S;
    } else {
      const detail::shared_geometry& g = detail::geometry;
      const std::uint64_t o = offset();
      const auto t = static_cast<std::int64_t>(o >> g.shift);
      const auto a = static_cast<std::int64_t>(o & (g.segment - 1));
      if constexpr (B == 1) {
        std::int64_t courses, thread;
        detail::floor_divmod_threads(t + n, courses, thread);
        w_ = (static_cast<std::uint64_t>(thread) << g.shift) +
             static_cast<std::uint64_t>(a + courses * static_cast<std::int64_t>(S));
      } else {
        const auto b = static_cast<std::int64_t>(block());
        if (b == 0) {  // a run-time indefinite block
          w_ += static_cast<std::uint64_t>(n) * S;
          return *this;
        }
        const auto ph = static_cast<std::int64_t>(phase());
        if (n >= 0) [[likely]] {
          // Forwards (the common case): unsigned divisions, no floor corrections.
          const auto ub = static_cast<std::uint64_t>(b);
          const std::uint64_t pos = static_cast<std::uint64_t>(ph) + static_cast<std::uint64_t>(n);
          std::uint64_t blocks;
          if constexpr (B == dynamic_block) {
            blocks = blk_.d == nullptr ? pos : blk_.d->divide(pos);
          } else {
            blocks = pos / B;
          }
          const std::uint64_t nph = pos - blocks * ub;
          const std::uint64_t tb = static_cast<std::uint64_t>(t) + blocks;
          const std::uint64_t courses = g.threads_div.divide(tb);
          const std::uint64_t thread = tb - courses * static_cast<std::uint64_t>(g.threads);
          w_ = (nph << detail::phase_shift) |
               ((thread << g.shift) + static_cast<std::uint64_t>(a) +
                (nph - static_cast<std::uint64_t>(ph) + courses * ub) * S);
          return *this;
        }
        std::int64_t blocks, nph, courses, thread;
        blk_.floor_divmod(ph + n, blocks, nph);
        detail::floor_divmod_threads(t + blocks, courses, thread);
        const std::int64_t na = a + (nph - ph + courses * b) * static_cast<std::int64_t>(S);
        w_ = (static_cast<std::uint64_t>(nph) << detail::phase_shift) |
             ((static_cast<std::uint64_t>(thread) << g.shift) + static_cast<std::uint64_t>(na));
      }
    }
    return *this;
  }
  sptr& operator-=(std::ptrdiff_t n) noexcept { return *this += -n; }
  friend sptr operator+(sptr p, std::ptrdiff_t n) noexcept { return p += n; }
  friend sptr operator+(std::ptrdiff_t n, sptr p) noexcept { return p += n; }
  friend sptr operator-(sptr p, std::ptrdiff_t n) noexcept { return p += -n; }

  /// UPC pointer-to-shared subtraction (§6.4.2p5): the difference of the two elements'
  /// positions in the block-cyclic order. Defined for pointers into the same array.
  friend std::ptrdiff_t operator-(const sptr& p, const sptr& q) noexcept {
    const detail::shared_geometry& g = detail::geometry;
    const auto pa = static_cast<std::int64_t>(p.addrfield());
    const auto qa = static_cast<std::int64_t>(q.addrfield());
    const auto s = static_cast<std::int64_t>(S);
    const std::int64_t dt = static_cast<std::int64_t>(p.thread()) - q.thread();
    const auto b = static_cast<std::int64_t>(p.block());
    if (b == 0) return (pa - qa) / s;
    if constexpr (phaseless) {
      return (pa - qa) / s * static_cast<std::int64_t>(g.threads) + dt;
    } else {
      const auto pp = static_cast<std::int64_t>(p.phase());
      const auto qp = static_cast<std::int64_t>(q.phase());
      // Block starts differ by a whole number of courses of B elements.
      std::int64_t courses, rest;
      p.blk_.floor_divmod(((pa - pp * s) - (qa - qp * s)) / s, courses, rest);
      return (courses * static_cast<std::int64_t>(g.threads) + dt) * b + (pp - qp);
    }
  }

  /// Same thread and address; the phase is ignored (UPC §6.4.2p4).
  friend bool operator==(const sptr& p, const sptr& q) noexcept {
    return ((p.w_ ^ q.w_) & detail::offset_mask) == 0;
  }
  /// Orders pointers into the same array by their position (p - q).
  friend std::strong_ordering operator<=>(const sptr& p, const sptr& q) noexcept {
    return (p - q) <=> 0;
  }

  /// The block reference (run-time B): for conversions.
  detail::block_ref<B> block_ref() const noexcept { return blk_; }

 private:
  template <class U, std::size_t B2>
  void take_block(const sptr<U, B2>& p) {
    if constexpr (B == dynamic_block) {
      if constexpr (B2 == dynamic_block) {
        blk_ = p.block_ref();
      } else {
        blk_.d = &detail::block_divider_for(B2);
      }
    }
  }

  void check(std::size_t bytes) const noexcept {
    detail::check_shared_range(offset(), bytes, "dereferencing a pointer-to-shared", nullptr);
  }

  std::uint64_t w_ = 0;
  [[no_unique_address]] detail::block_ref<B> blk_{};
};

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
bool is_local(const sptr<T, B>& p) noexcept;

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
/// threads that are not bound count as placed on the PU their number maps to). Must be
/// called inside a job; a or b outside [0, THREADS) ends the job.
PGAS_API locality thread_distance(int a, int b,
                                  std::source_location where = std::source_location::current());

/// A pointer-to-shared for an address in the shared space (e.g. from local_alloc or a cast
/// to a plain pointer), with phase 0 and indefinite block: the inverse of to_local. An
/// address outside the shared space ends the job (always checked).
template <class T>
sptr<T, indefinite> sptr_from(T* p, std::source_location where = std::source_location::current());

template <class T, std::size_t B>
bool is_local(const sptr<T, B>& p) noexcept {
  return p.thread() == mythread();
}

namespace detail {
PGAS_API std::uint64_t sptr_offset_of(const void* p, const std::source_location& where);
}

template <class T>
sptr<T, indefinite> sptr_from(T* p, std::source_location where) {
  return sptr<T, indefinite>::from_word(detail::sptr_offset_of(p, where));
}

}  // namespace pgas
