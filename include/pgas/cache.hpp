// pgas/cache.hpp — a per-thread software cache over a shared array or a pointer-to-shared
// range, with relaxed consistency: copies of other threads' elements live until the thread's
// next synchronisation point, where dirty ones are written back and all are dropped.
//
//   pgas::shared_array<int> D({n});
//   pgas::cache c(D, {.capacity = 1 << 16, .winner = pgas::cache_winner::lowest_thread});
//   pgas::forall(0, n, D, [&](long i) {
//     const int d = c.read(edge_u(i));          // another thread's D[u]: fetched once, then local
//     if (d < c.read(edge_v(i))) c.write(edge_v(i), d);   // dirty until the next barrier
//   });
//   pgas::barrier();                            // writes back, lowest thread's value wins
//
// What it does. A cache belongs to the thread that made it. Reading an element of ANOTHER
// thread fetches its line — the aligned 64 bytes of the owner's memory around it, clamped to
// the object's part there: up to 64 / sizeof(T) elements consecutive in the owner's storage
// order (a run of a block, a tile row), or the element alone when sizeof(T) is not a power of
// two of at most 64 bytes — into the cache (a miss); later reads of the line's elements are
// served from the copy (hits: a look-up in the thread's own table, no shared access). Writing
// another thread's element writes the copy (fetching the line first when it is not held) and
// marks that element dirty; only dirty elements are written back. The calling thread's own
// elements are read and written directly, never copied (and neither counted as hits nor as
// misses).
//
// Write-back. At the owning thread's next barrier or notify, fence or strict access, lock
// (once held) or unlock (before the release), or at flush(), the dirty elements are written
// back to their owners and every copy is dropped: after a barrier no read returns a value
// older than the barrier. There is no eviction inside a phase: a phase that fetches more than
// the capacity is misuse (below), not a silent eviction; tiled_for() splits a loop so that each
// tile fits, flushing between tiles (Cong et al.'s loop tiling of a cached upc_forall).
//
// Winners. When several threads dirtied one element in one phase (between two barriers),
// cache_options::winner chooses whose value the element keeps:
//   * cache_winner::any — whichever write-back lands last (a CRCW PRAM's "arbitrary" rule).
//     Write-backs are plain stores of the dirty runs; the construction is not collective.
//   * cache_winner::lowest_thread / highest_thread — the writer with the lowest (highest)
//     thread number wins, whatever the order of the write-backs (a priority CRCW PRAM). Each
//     element has a 64-bit claim word in its owner's memory (8 bytes per element of the
//     object, allocated collectively by the constructor): a write-back takes the word by
//     compare-and-swap as (phase, thread, busy), stores the value and marks it done; a writer
//     that finds a winner of the same phase skips the element, one that beats the holder
//     waits for its store to finish and takes the word over. Each dirty element costs two
//     atomic operations on the owner's line instead of one store; nothing is ordered between
//     threads and no write-back waits for another thread's flush. The thread's OWN writes go
//     through the same claim at once (so a remote writer of higher priority still wins over
//     the owner's direct write). The phase is counted in barriers since the construction, so
//     a write-back at a fence or lock inside a phase and one at the phase's closing barrier
//     compete as writes of the same phase. Winning is per element, not per line.
//
// Statistics. stats() counts hits, misses, bytes written back and flushes since construction.
// Under `pgasrun --trace` each flush reports the hits, misses and written-back bytes since the
// previous one (pgas-trace's cache rows), and every line fetched and every run of consecutive
// dirty elements written back is traced as a cache access (read or write) with its bytes and
// owner, at the call site of the read or write that fetched it and of the flush (or, for a
// write-back at a synchronisation point, the cache's construction). Own elements are traced as
// element accesses, as A(i, j) is.
//
// Cost. An own element of an array whose part on the thread is one run of indices ([*],
// indefinite, a block of rows) costs a thread check, a bounds check and a compare of its
// linear index; other own elements also compute the address (as A(i, j) does) and test it.
// A hit is that, then one compare in an open-addressed table of 1.5 to 3 times the capacity
// in lines, indexed by the line number (plus a multiple of the owner's number), so that a
// thread's consecutive lines take consecutive slots; each slot's copy has a fixed place, so
// the key and the copy load together. A miss probes on, copies at most 64 bytes and records
// the line. Memory: 80 bytes per slot (the copy, the key, the dirty bits), 8 per line.
//
// Contract.
//   * Collective: the constructor and the destructor when the winner is a priority
//     (lowest_thread or highest_thread), since they allocate and free the claim words — every
//     thread must then make its cache with the same object and options; with cache_winner::any
//     nothing is collective, and any subset of threads may make caches.
//   * Errors (pgas/error.hpp), always checked, named with the thread, file and line of the
//     call: an index outside the array's extents (or outside [0, n) of a range); a read,
//     write or flush on a thread other than the one that made the cache; a cache used after a
//     barrier it did not see (its thread's barrier count moved without it: checked where it
//     fetches a line, flushes, or claims an own element); fetching more lines
//     in one phase than the capacity holds; a capacity of 0; a null or empty range. Outside a
//     job no cache can be made (there is no shared object): the constructor throws
//     pgas::usage_error.
//   * Memory ordering: writes through a cache reach their owners when it flushes — before the
//     barrier, notify or fence takes effect, while the lock is held (before unlock releases
//     it), or at flush() — and are then ordered by that synchronisation as the program's own
//     relaxed writes would be: after a barrier every thread sees them. flush() alone is not a
//     fence. Every shared access the cache makes (fills, write-backs, own reads and writes) is
//     a relaxed atomic access for element sizes 1, 2, 4 and 8, so a line fetched while its
//     owner writes a neighbouring element through its own cache, or while another thread's
//     write-back lands in it, adds no data race the program did not have.
//   * Thread safety: none needed — a cache is used only by the thread that made it (checked).
//     It is neither copyable nor movable (its thread's synchronisation points refer to it);
//     hold it in a std::optional or std::unique_ptr to make it later, passing
//     std::source_location::current() as the last argument (emplace and make_unique would
//     otherwise lend their own line to the messages that name where the cache was made).
//     Destroy it before the array it caches (declare it after). The destructor writes back what
//     is dirty.
#pragma once

#include <pgas/detail/export.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <pgas/detail/identity.hpp>
#include <pgas/detail/shared_array_impl.hpp>
#include <pgas/detail/sync_listener.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// Who wins when several threads dirtied one element in one phase (see "Winners" above).
enum class cache_winner : std::uint8_t {
  any,             // the last write-back to land
  lowest_thread,   // the writer with the lowest thread number
  highest_thread,  // the writer with the highest thread number
};

/// How a cache is made.
struct cache_options {
  /// The most elements of other threads the cache holds in one phase, rounded up to whole
  /// lines (capacity_lines() lines of line_elements each). Must be at least 1.
  std::size_t capacity = std::size_t{1} << 16;
  cache_winner winner = cache_winner::any;
};

/// A cache's counts since it was made.
struct cache_stats {
  std::uint64_t hits = 0;    // reads and writes of other threads' elements served by a copy
  std::uint64_t misses = 0;  // lines fetched
  std::uint64_t written_back_bytes = 0;  // bytes stored to their owners by write-backs
  std::uint64_t flushes = 0;             // write-backs (synchronisation points and flush())
};

namespace detail {

// Relaxed atomic access to a shared element when its size allows one (1, 2, 4, 8 bytes,
// naturally aligned), a plain copy otherwise.
template <class T>
inline constexpr bool cache_atomic_v = (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                                        sizeof(T) == 8) &&
                                       alignof(T) >= sizeof(T);
template <std::size_t S>
using cache_word = std::conditional_t<
    S == 1, std::uint8_t,
    std::conditional_t<S == 2, std::uint16_t,
                       std::conditional_t<S == 4, std::uint32_t, std::uint64_t>>>;

template <class T>
[[gnu::always_inline]] inline T cache_load(const T* p) noexcept {
  if constexpr (cache_atomic_v<T>) {
    return std::bit_cast<T>(
        __atomic_load_n(reinterpret_cast<const cache_word<sizeof(T)>*>(p), __ATOMIC_RELAXED));
  } else {
    T v;
    std::memcpy(static_cast<void*>(&v), p, sizeof(T));
    return v;
  }
}
template <class T>
[[gnu::always_inline]] inline void cache_store(T* p, const T& v) noexcept {
  if constexpr (cache_atomic_v<T>) {
    __atomic_store_n(reinterpret_cast<cache_word<sizeof(T)>*>(p),
                     std::bit_cast<cache_word<sizeof(T)>>(v), __ATOMIC_RELAXED);
  } else {
    std::memcpy(static_cast<void*>(p), &v, sizeof(T));
  }
}

// The line geometry of an element type: 64-byte aligned lines when the size is a power of two
// of at most 64 bytes, else one element per line (keyed by its address).
template <class T>
struct cache_line_of {
  static constexpr bool aligned = std::has_single_bit(sizeof(T)) && sizeof(T) <= 64;
  static constexpr std::size_t bytes = aligned ? 64 : sizeof(T);
  static constexpr std::uintptr_t mask = aligned ? ~std::uintptr_t{63} : ~std::uintptr_t{0};
};

// The type-erased state and slow paths of a cache (src/objects/cache.cpp): the line table,
// the copies, the dirty masks, the statistics, the claim words, the sync listener.
class PGAS_API cache_core final : public sync_listener {
 public:
  // What the typed cache tells the core about the object.
  struct object {
    std::size_t element_bytes;
    std::size_t line_bytes;
    std::uintptr_t line_mask;
    // [lo[t], hi[t]): the addresses of the object's elements on thread t (its part there).
    std::vector<std::uintptr_t> lo, hi;
    const void* first;  // the object's first element, naming its allocation to the trace
    const char* what;   // "pgas::cache over a shared array" / "... over a range"
    bool range;         // over a pointer-to-shared range (null or empty: misuse)
    bool atomic;        // cache_atomic_v<T>: shared accesses are relaxed atomics
  };

  cache_core(object o, const cache_options& opts, const std::source_location& where);
  ~cache_core();
  cache_core(const cache_core&) = delete;
  cache_core& operator=(const cache_core&) = delete;

  void on_sync(sync_kind kind) override;

  // The table index of a line: its line number (so that a thread's consecutive lines take
  // consecutive slots, and a stream of them walks the table in order) plus its owner's segment
  // number times an odd constant (so that the lines at one offset of every segment, which
  // symmetric allocations produce, do not pile up in one run of slots).
  [[gnu::always_inline]] std::size_t slot_index(std::uintptr_t key) const noexcept {
    return static_cast<std::size_t>(((key >> 6) + (key >> segment_shift_) * 0x9E3779B1u) &
                                    slot_mask_);
  }

  // The slot holding the line at `key`: a hit when the slot it hashes to holds it, else the
  // probe and, on a miss, the fetch (out of line). A slot's copy sits at a fixed place in the
  // storage, so the copy's load does not wait for the key's.
  [[gnu::always_inline]] std::size_t slot_for(std::uintptr_t key,
                                              const std::source_location& where) {
    const std::size_t s = slot_index(key);
    if (keys_[s] == key) [[likely]] {
      ++hits_;
      return s;
    }
    return find_or_fetch(key, where);
  }
  [[gnu::always_inline]] bool own(const void* e) const noexcept {
    return reinterpret_cast<std::uintptr_t>(e) - own_lo_ < own_bytes_;
  }
  // The copy of the line in slot s (Bytes: the line size).
  template <std::size_t Bytes>
  [[gnu::always_inline]] char* copy_of(std::size_t s) const noexcept {
    return storage_ + s * Bytes;
  }
  [[gnu::always_inline]] void mark_dirty(std::size_t s, std::size_t element) noexcept {
    dirty_[s] |= std::uint64_t{1} << element;
  }
  [[gnu::always_inline]] int thread() const noexcept { return thread_; }
  [[gnu::always_inline]] bool arbitrated() const noexcept { return winner_ != cache_winner::any; }

  // The slot holding `key`, fetched when not held (a miss; a hit further along the probe is
  // counted as a hit). Misuse when the capacity is exhausted or the cache is misused.
  std::size_t find_or_fetch(std::uintptr_t key, const std::source_location& where);
  // Under a priority winner, the calling thread's write of its own element: claimed and stored.
  void claim_own(void* element, const void* value, const std::source_location& where);
  // Writes back the dirty elements and drops every copy.
  void flush(const std::source_location& where);
  // Misuse: used on another thread.
  [[noreturn]] void wrong_thread(const std::source_location& where) const;
  // Misuse: an index outside the range [0, n).
  [[noreturn]] void range_error(std::size_t i, std::size_t n,
                                const std::source_location& where) const;

  cache_stats stats() const noexcept;
  std::size_t capacity_lines() const noexcept { return lines_max_; }

 private:
  void check_use(const std::source_location& where) const;
  void write_back(std::uint64_t epoch, const std::source_location& where);
  void drop(const std::source_location& where);
  bool claim_store(char* element, const char* value, std::uint64_t epoch);
  std::uint64_t phase_epoch(bool closing_barrier) const noexcept;

  char* line_data(std::size_t s) const noexcept { return storage_ + s * line_bytes_; }

  // Hot: read by every access.
  std::uintptr_t* keys_ = nullptr;  // each slot's line address (aligned); 0: empty
  std::size_t slot_mask_ = 0;
  unsigned segment_shift_ = 63;
  std::uintptr_t own_lo_ = 0;
  std::uintptr_t own_bytes_ = 0;
  char* storage_ = nullptr;  // slot s's copy at s * line_bytes_
  std::size_t line_bytes_ = 0;
  std::uint64_t* dirty_ = nullptr;  // per slot, a bit per element
  std::uint64_t hits_ = 0;
  int thread_ = 0;
  cache_winner winner_ = cache_winner::any;

  object obj_;
  std::size_t slot_count_ = 0;
  std::size_t lines_max_ = 0;
  std::size_t lines_used_ = 0;
  std::vector<std::uintptr_t> key_storage_;
  std::vector<char> line_storage_;
  std::vector<std::uint64_t> dirty_storage_;
  std::vector<std::size_t> used_slots_;  // the slots filled this phase, in order
  std::uint64_t misses_ = 0;
  std::uint64_t written_back_ = 0;
  std::uint64_t flushes_ = 0;
  std::uint64_t reported_hits_ = 0, reported_misses_ = 0, reported_written_ = 0;
  std::uint64_t seen_barriers_ = 0;  // the thread's barrier count at the last one seen
  std::uint64_t base_barriers_ = 0;  // ... at construction: phases count from here
  shared_alloc claims_;              // priority winners: one 64-bit word per element
  std::size_t claim_part_words_ = 0;
  std::source_location made_;
};

template <class T, std::size_t Rank, std::size_t Block, class Seq>
class cache_base;

// A cache's index argument: the value and the call site, in every build.
template <std::size_t>
using cache_index = located_index;

}  // namespace detail

/// A per-thread software cache over a shared array `shared_array<T, Rank, Block>` or, for
/// Rank 1, over the range [p, p + n) of a pointer-to-shared `sptr<T, Block>`. Indices are the
/// array's (one per dimension) or the range's [0, n). See the top of this header.
template <class T, std::size_t Rank = 1, std::size_t Block = dynamic_block>
class cache : public detail::cache_base<T, Rank, Block, std::make_index_sequence<Rank>> {
  using base = detail::cache_base<T, Rank, Block, std::make_index_sequence<Rank>>;

 public:
  using base::base;
};

template <class T, std::size_t Rank, std::size_t Block>
cache(const shared_array<T, Rank, Block>&, cache_options = {},
      std::source_location = std::source_location::current()) -> cache<T, Rank, Block>;
template <class T, std::size_t Block>
cache(sptr<T, Block>, std::size_t, cache_options = {},
      std::source_location = std::source_location::current()) -> cache<T, 1, Block>;

namespace detail {

/// The members of cache<T, Rank, Block> (D… = 0 … Rank-1: one index per dimension).
template <class T, std::size_t Rank, std::size_t Block, std::size_t... D>
class cache_base<T, Rank, Block, std::index_sequence<D...>> {
  static_assert(is_shared_storable_v<T>, "a cache holds shared data (pgas/shared_storable.hpp)");
  using line_of = cache_line_of<T>;

 public:
  using value_type = T;
  /// Elements per line: 64 / sizeof(T) for power-of-two sizes up to 64 bytes, else 1.
  static constexpr std::size_t line_elements = line_of::bytes / sizeof(T);

  /// Makes the calling thread's cache over array `a` (any layout). Collective under a priority
  /// winner (see Contract), else local. Misuse: capacity 0.
  explicit cache_base(const shared_array<T, Rank, Block>& a, cache_options opts = {},
                      std::source_location where = std::source_location::current())
      : array_(&a), core_(array_object(a), opts, where) {
    for (std::size_t d = 0; d < Rank; ++d)
      extents_[d] = a.extent(d);
    std::size_t chunks = 0;
    for (const index_chunk& c : a.my_chunks()) {
      if (++chunks > 1) break;
      own_part_ = a.local_part().data() + c.offset;
      own_first_ = c.begin;
      own_count_ = c.size();
    }
    if (chunks > 1) own_count_ = 0;  // several runs: the address tells
  }

  /// Makes the calling thread's cache over the n elements [p, p + n) of a pointer-to-shared
  /// (UPC's `shared [B] T *p`), indexed 0 … n-1 as p[i]. Collective under a priority winner,
  /// else local. Misuse: a null p, n == 0, capacity 0.
  cache_base(sptr<T, Block> p, std::size_t n, cache_options opts = {},
             std::source_location where = std::source_location::current()) requires(Rank == 1)
      : range_(true), p_(p), core_(range_object(p, n), opts, where) {
    extents_[0] = n;
  }

  cache_base(const cache_base&) = delete;
  cache_base& operator=(const cache_base&) = delete;
  /// Writes back what is dirty (as flush()), then forgets the cache; collective under a
  /// priority winner (frees the claim words).
  ~cache_base() = default;

  /// Element (i, j, …): another thread's from the copy (fetched on a miss), the calling
  /// thread's from its memory. Misuse: an index out of range, another thread, a barrier not
  /// seen, the capacity exhausted.
  [[gnu::always_inline]] T read(cache_index<D>... i) {
    check(i...);
    if (T* const e = own_run(i.value...)) {
      trace_element(e);
      return cache_load(e);
    }
    const T* const e = address(i.value...);
    if (core_.own(e)) {
      trace_element(e);
      return cache_load(e);
    }
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(e);
    const std::uintptr_t key = a & line_of::mask;
    const std::size_t s = core_.slot_for(key, first_where(i...));
    T v;
    std::memcpy(static_cast<void*>(&v), core_.template copy_of<line_of::bytes>(s) + (a - key),
                sizeof(T));
    return v;
  }

  /// Sets element (i, j, …) to v: another thread's in the copy, dirty until the next write-back
  /// (the line is fetched first when not held); the calling thread's in its memory at once
  /// (claimed first under a priority winner). Misuse as read().
  [[gnu::always_inline]] void write(cache_index<D>... i, const T& v) {
    check(i...);
    T* e = own_run(i.value...);
    if (e == nullptr) e = address(i.value...);
    if (core_.own(e)) {
      trace_element(e);
      if (core_.arbitrated()) [[unlikely]]
        core_.claim_own(e, &v, first_where(i...));
      else
        cache_store(e, v);
      return;
    }
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(e);
    const std::uintptr_t key = a & line_of::mask;
    const std::size_t s = core_.slot_for(key, first_where(i...));
    std::memcpy(core_.template copy_of<line_of::bytes>(s) + (a - key), &v, sizeof(T));
    core_.mark_dirty(s, (a - key) / sizeof(T));
  }

  /// Writes back the dirty elements now and drops every copy (what the next synchronisation
  /// point would do). Not collective, not a fence. Misuse: another thread, a barrier not seen.
  void flush(std::source_location where = std::source_location::current()) { core_.flush(where); }

  /// Hits, misses, written-back bytes and flushes since the cache was made.
  cache_stats stats() const noexcept { return core_.stats(); }
  /// The capacity in lines (cache_options::capacity rounded up to whole lines).
  std::size_t capacity_lines() const noexcept { return core_.capacity_lines(); }
  /// The capacity in elements: capacity_lines() * line_elements.
  std::size_t capacity() const noexcept { return core_.capacity_lines() * line_elements; }
  /// The thread that made the cache (the only one that may use it).
  int thread() const noexcept { return core_.thread(); }

 private:
  static const std::source_location& first_where(const cache_index<D>&... i) noexcept {
    return std::get<0>(std::forward_as_tuple(i...)).where;
  }

  // Misuse when called on another thread than the cache's or with an index out of range.
  [[gnu::always_inline]] void check(const cache_index<D>&... i) const {
    if (detail::tls_mythread != core_.thread()) [[unlikely]]
      core_.wrong_thread(first_where(i...));
    if (((i.value >= extents_[D]) || ...)) [[unlikely]]
      out_of_range(i...);
  }

  // The own fast path: the element when it lies in the calling thread's one run of linear
  // indices (an array whose part on this thread is one chunk: [*], indefinite, blocks of
  // rows), else null. A subtraction and a compare, before any address arithmetic.
  [[gnu::always_inline]] T* own_run(decltype(D, std::size_t{})... i) const noexcept {
    std::size_t l = 0;
    ((l = l * extents_[D] + i), ...);
    const std::size_t k = l - own_first_;
    return k < own_count_ ? own_part_ + k : nullptr;
  }

  // The address of element (i, j, …) (checked).
  [[gnu::always_inline]] T* address(decltype(D, std::size_t{})... i) const noexcept {
    if constexpr (Rank == 1) {
      if (range_) return (p_ + static_cast<std::ptrdiff_t>((i + ...))).get();
    }
    return array_->address(i...);
  }

  [[noreturn, gnu::noinline]] void out_of_range(const cache_index<D>&... i) const {
    if constexpr (Rank == 1) {
      if (range_) core_.range_error((i.value + ...), extents_[0], first_where(i...));
    }
    const std::array<std::size_t, Rank> index{i.value...};
    index_error(index, extents_, first_where(i...));
  }

  // The object's description with no element on any thread yet.
  static cache_core::object empty_object(bool range) {
    cache_core::object o;
    o.element_bytes = sizeof(T);
    o.line_bytes = line_of::bytes;
    o.line_mask = line_of::mask;
    o.lo.assign(static_cast<std::size_t>(threads()), 0);
    o.hi.assign(static_cast<std::size_t>(threads()), 0);
    o.first = nullptr;
    o.what = range ? "pgas::cache over a range" : "pgas::cache over a shared array";
    o.range = range;
    o.atomic = cache_atomic_v<T>;
    return o;
  }

  static cache_core::object array_object(const shared_array<T, Rank, Block>& a) {
    cache_core::object o = empty_object(false);
    const int n = threads();
    for (int t = 0; t < n; ++t) {
      const std::span<T> part = a.local_part(t);
      o.lo[static_cast<std::size_t>(t)] = reinterpret_cast<std::uintptr_t>(part.data());
      o.hi[static_cast<std::size_t>(t)] =
          reinterpret_cast<std::uintptr_t>(part.data() + part.size());
    }
    if (a.size() != 0) o.first = a.local_part(0).data();
    return o;
  }

  // Thread t's elements of [p, p + n) are consecutive in t's memory (block-cyclic layout), from
  // its first to its last one: found per thread from the block arithmetic, not by walking.
  static cache_core::object range_object(sptr<T, Block> p, std::size_t n) {
    cache_core::object o = empty_object(true);
    const std::size_t nt = static_cast<std::size_t>(threads());
    if (!p || n == 0) return o;  // the core reports it
    o.first = p.get();
    const std::size_t b = p.block();
    if (b == 0 || nt == 1) {  // indefinite: all on p's thread
      const std::size_t t = static_cast<std::size_t>(p.thread());
      o.lo[t] = reinterpret_cast<std::uintptr_t>(p.get());
      o.hi[t] = reinterpret_cast<std::uintptr_t>(p.get() + n);
      return o;
    }
    // Position q = phase + k from the start of p's block; block number q / b is on thread
    // (thread(p) + q / b) mod THREADS.
    const std::size_t ph = p.phase();
    const std::size_t last_block = (ph + n - 1) / b;
    const std::size_t t0 = static_cast<std::size_t>(p.thread());
    for (std::size_t t = 0; t < nt; ++t) {
      const std::size_t first_block = (t + nt - t0) % nt;
      if (first_block > last_block) continue;
      const std::size_t lastb = first_block + (last_block - first_block) / nt * nt;
      const std::size_t q_first = first_block == 0 ? ph : first_block * b;
      const std::size_t q_last = lastb == last_block ? ph + n - 1 : lastb * b + b - 1;
      const auto at = [&](std::size_t q) {
        return reinterpret_cast<std::uintptr_t>((p + static_cast<std::ptrdiff_t>(q - ph)).get());
      };
      o.lo[t] = at(q_first);
      o.hi[t] = at(q_last) + sizeof(T);
    }
    return o;
  }

  const shared_array<T, Rank, Block>* array_ = nullptr;
  T* own_part_ = nullptr;  // the calling thread's one run of linear indices, if it has one
  std::size_t own_first_ = 0;
  std::size_t own_count_ = 0;
  bool range_ = false;
  sptr<T, Block> p_{};
  std::array<std::size_t, Rank> extents_{};
  cache_core core_;
};

}  // namespace detail

/// Runs `body(b, e)` over [lo, hi) in tiles of consecutive indices, calling c.flush() after
/// each tile, so that no tile fetches more lines than the cache holds: each tile has
/// c.capacity_lines() / lines_per_iteration iterations (at least 1), where lines_per_iteration
/// bounds the lines of other threads' elements one iteration can touch (2 below, where an
/// iteration reads two neighbours; 4 for a 4-point stencil; more when an iteration reads
/// several elements that can lie in different lines). Every thread calls it with the same
/// bounds, typically running a forall over [b, e) in `body`, so that all threads step through
/// the same tiles:
///
///   pgas::tiled_for(1L, n - 1, c, 2, [&](long b, long e) {
///     pgas::forall(b, e, Out, [&](long i) { Out[i] = (c.read(i - 1) + c.read(i + 1)) / 2; });
///   });
///
/// Not collective (no barrier: each tile ends with the calling thread's flush only, Cong et
/// al.'s tiled upc_forall). Misuse: lines_per_iteration == 0, named at the call.
template <class I, class Cache, class F>
void tiled_for(I lo, I hi, Cache& c, std::size_t lines_per_iteration, F&& body,
               std::source_location where = std::source_location::current()) {
  if (lines_per_iteration == 0)
    detail::misuse("pgas::tiled_for: lines_per_iteration must be at least 1", where);
  const std::size_t per_tile = std::max<std::size_t>(1, c.capacity_lines() / lines_per_iteration);
  for (I b = lo; b < hi;) {
    const I e = static_cast<std::size_t>(hi - b) > per_tile
                    ? static_cast<I>(b + static_cast<I>(per_tile))
                    : hi;
    body(b, e);
    c.flush(where);
    b = e;
  }
}

}  // namespace pgas
