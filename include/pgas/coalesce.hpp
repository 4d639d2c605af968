// pgas/coalesce.hpp — coalescing schedules: an inspector–executor plan of one thread's accesses
// to one shared array (any layout) or pointer-to-shared range, that reads the other threads'
// elements it needs in one pass per owner and writes its changes back the same way.
//
//   pgas::shared_array<int> D({n});
//   pgas::access_schedule s(D, {.combine = pgas::upload_combine::min});
//   for (long e : my_edges) s.hint(u[e]), s.hint(v[e]), s.hint_write(v[e]);  // inspector, once
//   for (;;) {                                                 // executor, every iteration
//     s.start_download();                 // other threads' hinted elements, by owner
//     s.finish_download();
//     for (long e : my_edges) s.put(v[e], s.get(u[e]));        // local: no shared access
//     s.start_upload();                   // the puts, by owner, combined by min
//     s.finish_upload();
//     pgas::barrier();                    // the uploads are visible to every thread
//   }
//
// What it does. A schedule belongs to the thread that made it. The inspector names the
// elements the executor will read (hint) and write (hint_write), in any order, duplicates
// allowed. The first start_download(), start_upload(), get() or put() after the hints plans
// them, once: the distinct hinted elements of OTHER threads are grouped by owner and sorted by
// address within each owner (Cong et al.'s coalescing, §4.2). start_download() then copies the
// read-hinted ones into the schedule's buffer, one pass over each owner's part in address
// order; get() returns them from the buffer. put() keeps a written value in the buffer (it is
// "dirty"); start_upload() stores the dirty values to their owners, one pass per owner in
// address order, and cleans them. The calling thread's OWN elements are never uploaded: put()
// of an own element writes its memory at once (and the buffer); a download copies the own
// read-hinted ones from the thread's memory too, so that every get() after it is one load
// from the buffer, and before any download get() reads an own element's memory. Both start
// calls do their copying at once, so the matching finish call only ends the step: on one chip
// a download is as fast as the copy itself, and there is nothing in flight to overlap with;
// the pairs are kept so that a program reads as the paper's protocol.
//
// Reuse. The plan stays as long as the index set: each iteration runs start/finish_download,
// get/put, start/finish_upload again on the same grouping (stats().plans counts how many times
// it was computed). A hint() after a completed cycle, or clear(), starts a new index set, to be
// planned at the next start.
//
// Several writers. When several threads upload one element (or a thread puts an element its
// owner also writes), options.combine decides what it keeps:
//   * upload_combine::last — the last store to land wins (plain relaxed stores).
//   * upload_combine::min / max — the smallest (largest) value wins, whatever the order: each
//     upload, and each put of an own element, is an atomic compare-and-swap that only lowers
//     (raises) the element (the priority writes of Cong et al.'s connected components). A put
//     of an element already put since the last upload also keeps the smaller (larger) value.
//     Needs an element type of 1, 2, 4 or 8 bytes that has operator<.
//
// Tracing. Under `pgasrun --trace` every owner's batch of a download is one schedule read and
// every owner's batch of an upload one schedule write, with its bytes, at the start call.
//
// Cost. Planning: a pass over the hinted indices' span, one address computation per distinct
// element, a bucket sort of the other threads' elements by owner (and a sort by address
// within an owner only where index order is not address order). A download: one load per
// read-hinted element, in runs of consecutive addresses (an owner's part read in index order
// is one run: a copy loop). get() after a download: the linear index, one compare and one load
// (release build); put(): a state byte, the buffer, and the dirty list on the first put. Memory:
// over the span of hinted indices (the smallest to the largest linear index hinted), sizeof(T) + 1
// bytes per index, plus 4 when any element is hinted for writing, and 16 bytes per distinct element
// read or written (own ones read included), plus 24 bytes per run of read ones.
//
// Contract.
//   * Not collective: any thread may make a schedule, for itself, at any time in a job.
//   * Errors (pgas/error.hpp), named with the thread, file and line of the call: an index
//     outside the array's extents (or outside [0, n) of a range); get() before the first
//     finish_download() of its plan or between start_download() and finish_download() (of
//     an element not put since), of an element never hinted, of another thread's element
//     hinted only for writing and not put (these two in a release build only when the index
//     lies outside the hinted span or no download has finished: the rest is the checked
//     build's, config::bounds_check, as it costs a byte per element); put() of an element not
//     hinted for writing, or between a start and its finish; a start without its finish or a finish
//     without its start; a hint() while a step is open or while puts wait to be uploaded; an
//     upload_combine other than last for an element type without one; a null pointer-to-shared or
//     an empty range; a schedule used on a thread other than the one that made it (always checked
//     in the starts, finishes and hints; in get() and put() only in the checked build,
//     config::bounds_check); destroying a schedule with puts not uploaded. Outside a job no
//     schedule can be made: the constructor throws pgas::usage_error.
//   * Memory ordering: a download reads each element with a relaxed atomic load (for element
//     sizes 1, 2, 4 and 8; a plain copy otherwise) and sees what the program's own relaxed
//     reads would: other threads' writes before the last barrier (or other synchronisation)
//     at least. An upload's stores are relaxed too, visible to the other threads after the
//     next barrier, notify/wait pair or fence; finish_upload() is not a fence.
//   * Thread safety: none needed — a schedule is used only by the thread that made it. It is
//     neither copyable nor movable; hold it in a std::optional to make it later. Destroy it
//     before the array (declare it after).
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <source_location>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <pgas/cache.hpp>
#include <pgas/config.hpp>
#include <pgas/detail/identity.hpp>
#include <pgas/detail/shared_array_impl.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

/// What an element keeps when several threads write it (see "Several writers" above).
enum class upload_combine : std::uint8_t {
  last,  // the last store to land
  min,   // the smallest value written
  max,   // the largest value written
};

/// How a schedule is made.
struct schedule_options {
  upload_combine combine = upload_combine::last;
};

/// A schedule's counts since it was made.
struct schedule_stats {
  std::uint64_t plans = 0;         // groupings computed (one per index set)
  std::uint64_t downloads = 0;     // completed start_download() calls
  std::uint64_t uploads = 0;       // completed start_upload() calls
  std::uint64_t downloaded = 0;    // elements copied from other threads, in all
  std::uint64_t uploaded = 0;      // elements stored to other threads, in all
  std::size_t read_elements = 0;   // the plan's distinct other threads' elements to read
  std::size_t write_elements = 0;  // ... that may be written
  std::size_t read_batches = 0;    // the plan's owners read from per download
  std::size_t write_batches = 0;   // the plan's owners that may be written per upload
};

namespace detail {

// The type-erased state and slow paths of a schedule (src/objects/coalesce.cpp): the hints,
// the plan (the dense state over the hinted span, the per-owner batches), the dirty list, the
// step machine, the statistics and the misuse reports.
class PGAS_API schedule_core {
 public:
  // A hinted index's state byte.
  static constexpr std::uint8_t st_read = 1, st_write = 2, st_own = 4, st_dirty = 8;
  // Where the schedule is in its cycle.
  enum class step : std::uint8_t { hinting, planned, downloading, uploading };
  // Another thread's element of the plan: its address and its place in the span.
  struct entry {
    std::uintptr_t addr;
    std::size_t x;
  };
  // Elements at consecutive addresses and consecutive places in the span: n of them from addr
  // on, at x on (the copying loops of a download, with no per-element entry to read).
  struct run {
    std::uintptr_t addr;
    std::size_t x, n;
  };
  // A run of entries [begin, end) of one owner.
  struct batch {
    int owner;
    std::size_t begin, end;
  };
  // The typed side's element locator: the address and owner of linear index k.
  struct located {
    std::uintptr_t addr;
    int owner;
  };
  using locate_fn = located (*)(const void* self, std::size_t k);

  schedule_core(std::size_t element_bytes, std::size_t element_align, bool can_combine,
                const schedule_options& opts, std::vector<std::size_t> extents, bool range,
                bool null_range, const std::source_location& where);
  ~schedule_core();
  schedule_core(const schedule_core&) = delete;
  schedule_core& operator=(const schedule_core&) = delete;

  // Hot: read by every get and put.
  std::uint8_t* state_ = nullptr;
  char* values_ = nullptr;
  std::uint32_t* pos_ = nullptr;  // a write-hinted other thread's element: its up_ index
  std::size_t lo_ = 0;            // the smallest hinted linear index
  std::size_t span_ = 0;          // the planned span (0 while hinting)
  bool valid_ = false;            // the plan's values are downloaded
  bool open_ = false;             // a start is waiting for its finish
  upload_combine combine_ = upload_combine::last;
  int thread_ = 0;
  std::vector<std::uint32_t> dirty_;  // up_ indices of the dirty other threads' elements

  // The inspector: records linear index k.
  [[gnu::always_inline]] void add(std::size_t k, bool write, const std::source_location& where) {
    if (step_ != step::hinting || tls_mythread != thread_) [[unlikely]]
      restart(where);
    (write ? writes_ : reads_).push_back(k);
    if (k < kmin_) kmin_ = k;
    if (k > kmax_) kmax_ = k;
  }
  // The other threads' elements to read and to write, sorted by address, and their batches.
  const std::vector<entry>& down() const noexcept { return down_; }
  const std::vector<entry>& up() const noexcept { return up_; }
  // The calling thread's own read-hinted elements, copied by each download too.
  const std::vector<entry>& own() const noexcept { return own_; }
  // down() and own() as runs, in the same order.
  const std::vector<run>& down_runs() const noexcept { return down_runs_; }
  const std::vector<run>& own_runs() const noexcept { return own_runs_; }

  // Plans the hints when none is planned (through `locate`); checks the thread.
  void ensure_plan(locate_fn locate, const void* self, const std::source_location& where);
  // The step machine: start_download/finish_download/start_upload/finish_upload. A start
  // returns after planning; the typed side copies, then calls downloaded()/uploaded().
  // begin(): a start of step `which` (downloading or uploading); end(): its finish.
  void begin(step which, locate_fn locate, const void* self, const std::source_location& where);
  void end(step which, const std::source_location& where);
  void downloaded(const std::source_location& where);
  // Sorts the dirty list into address order when it is not already.
  void order_dirty();
  void uploaded(const std::source_location& where);
  void clear(const std::source_location& where);
  // A get or put that missed the fast path: true when the hints are not planned yet (the
  // caller plans and tries again), else the misuse is reported.
  bool get_failed(std::size_t k, const std::source_location& where);
  bool put_failed(std::size_t k, const std::source_location& where);
  void check_thread(const std::source_location& where) const;
  [[noreturn]] void range_error(std::size_t i, std::size_t n,
                                const std::source_location& where) const;
  [[noreturn]] void combine_error(const std::source_location& where) const;
  schedule_stats stats() const noexcept;

 private:
  void restart(const std::source_location& where);
  void plan(locate_fn locate, const void* self);
  void release_plan() noexcept;
  void runs_of(const std::vector<entry>& list, std::vector<run>& runs) const;
  void trace_batches(const std::vector<batch>& batches, const std::vector<entry>& list, bool write,
                     const std::source_location& where) const;
  [[noreturn]] void step_error(const char* call, const std::source_location& where) const;
  std::string index_text(std::size_t k) const;

  step step_ = step::hinting;
  std::size_t element_bytes_;
  std::size_t element_align_;
  std::vector<std::size_t> extents_;
  const char* what_;
  std::vector<std::size_t> reads_, writes_;
  std::size_t kmin_ = ~std::size_t{0}, kmax_ = 0;
  std::vector<std::uint8_t> state_storage_;
  std::vector<std::uint32_t> pos_storage_;
  std::vector<entry> down_, up_, own_;
  std::vector<run> down_runs_, own_runs_;
  std::vector<batch> down_batches_, up_batches_;
  std::uint64_t plans_ = 0, downloads_ = 0, uploads_ = 0, downloaded_ = 0, uploaded_ = 0;
  std::source_location made_;
  std::source_location open_at_;

 public:
  const std::vector<batch>& down_batches() const noexcept { return down_batches_; }
  std::uint64_t& uploaded_count() noexcept { return uploaded_; }
};

template <class T, std::size_t Rank, std::size_t Block, class Seq>
class schedule_base;

// Stores v to *p as the combine rule says: a relaxed store, or a compare-and-swap loop that
// only lowers (min) or raises (max) the element.
template <class T>
[[gnu::always_inline]] inline void schedule_store(T* p, const T& v, upload_combine c) noexcept {
  if constexpr (cache_atomic_v<T> && std::totally_ordered<T>) {
    if (c != upload_combine::last) {
      using W = cache_word<sizeof(T)>;
      W* const w = reinterpret_cast<W*>(p);
      W cur = __atomic_load_n(w, __ATOMIC_RELAXED);
      while (c == upload_combine::min ? v < std::bit_cast<T>(cur) : std::bit_cast<T>(cur) < v) {
        if (__atomic_compare_exchange_n(w, &cur, std::bit_cast<W>(v), true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
          return;
      }
      return;
    }
  }
  cache_store(p, v);
}

}  // namespace detail

/// A coalescing schedule over a shared array `shared_array<T, Rank, Block>` or, for Rank 1,
/// over the range [p, p + n) of a pointer-to-shared `sptr<T, Block>`. Indices are the array's
/// (one per dimension) or the range's [0, n). See the top of this header.
template <class T, std::size_t Rank = 1, std::size_t Block = dynamic_block>
class access_schedule
    : public detail::schedule_base<T, Rank, Block, std::make_index_sequence<Rank>> {
  using base = detail::schedule_base<T, Rank, Block, std::make_index_sequence<Rank>>;

 public:
  using base::base;
};

template <class T, std::size_t Rank, std::size_t Block>
access_schedule(const shared_array<T, Rank, Block>&, schedule_options = {},
                std::source_location = std::source_location::current())
    -> access_schedule<T, Rank, Block>;
template <class T, std::size_t Block>
access_schedule(sptr<T, Block>, std::size_t, schedule_options = {},
                std::source_location = std::source_location::current())
    -> access_schedule<T, 1, Block>;

namespace detail {

/// The members of access_schedule<T, Rank, Block> (D… = 0 … Rank-1: one index per dimension).
template <class T, std::size_t Rank, std::size_t Block, std::size_t... D>
class schedule_base<T, Rank, Block, std::index_sequence<D...>> {
  static_assert(is_shared_storable_v<T>,
                "a schedule copies shared data (pgas/shared_storable.hpp)");
  using core = schedule_core;

 public:
  using value_type = T;

  /// Makes the calling thread's schedule over array `a` (any layout). Not collective. Misuse:
  /// a combine rule the element type has none for; outside a job.
  explicit schedule_base(const shared_array<T, Rank, Block>& a, schedule_options opts = {},
                         std::source_location where = std::source_location::current())
      : array_(&a),
        core_(sizeof(T), alignof(T), can_combine, opts, extents_of(a), false, false, where) {
    for (std::size_t d = 0; d < Rank; ++d)
      extents_[d] = a.extent(d);
  }

  /// Makes the calling thread's schedule over the n elements [p, p + n) of a pointer-to-shared
  /// (UPC's `shared [B] T *p`), indexed 0 … n-1 as p[i]. Not collective. Misuse: a null p,
  /// n == 0, a combine rule the element type has none for; outside a job.
  schedule_base(sptr<T, Block> p, std::size_t n, schedule_options opts = {},
                std::source_location where = std::source_location::current()) requires(Rank == 1)
      : range_(true),
        p_(p),
        core_(sizeof(T), alignof(T), can_combine, opts, {n}, true, !p || n == 0, where) {
    extents_[0] = n;
  }

  schedule_base(const schedule_base&) = delete;
  schedule_base& operator=(const schedule_base&) = delete;
  /// Forgets the schedule. Misuse: puts not uploaded (unless an exception is unwinding).
  ~schedule_base() = default;

  /// The inspector: element (i, j, …) will be read by get(). Starts a new index set when the
  /// schedule is planned and no step is open. Misuse: an index out of range, another thread,
  /// a step open (between a start and its finish), puts not uploaded.
  [[gnu::always_inline]] void hint(cache_index<D>... i) {
    core_.add(checked(i...), false, where(i...));
  }
  /// The inspector: element (i, j, …) will be written by put() (and may be read after its put).
  /// As hint() otherwise; an element may be hinted both ways.
  [[gnu::always_inline]] void hint_write(cache_index<D>... i) {
    core_.add(checked(i...), true, where(i...));
  }

  /// Plans (if still hinting), then copies every other thread's element hinted for reading
  /// into the buffer, one pass per owner in address order (not those put and not uploaded
  /// since: a put is newer). Not collective. Misuse: another thread, a step open.
  void start_download(std::source_location where = std::source_location::current()) {
    core_.begin(core::step::downloading, &locate, this, where);
    T* const v = values();
    const std::uint8_t* const st = core_.state_;
    const bool keep_puts = !core_.dirty_.empty();
    for (const core::run& r : core_.down_runs()) {
      const T* const from = reinterpret_cast<const T*>(r.addr);
      T* const to = v + r.x;
      if (keep_puts) [[unlikely]] {
        for (std::size_t j = 0; j < r.n; ++j)
          if (!(st[r.x + j] & core::st_dirty)) to[j] = cache_load(from + j);
      } else {
        copy_run(to, from, r.n);
      }
    }
    for (const core::run& r : core_.own_runs())
      copy_run(v + r.x, reinterpret_cast<const T*>(r.addr), r.n);
    core_.downloaded(where);
  }
  /// Ends the download: get() may read other threads' elements. Misuse: no start_download().
  void finish_download(std::source_location where = std::source_location::current()) {
    core_.end(core::step::downloading, where);
  }

  /// Element (i, j, …) from the buffer: as downloaded, or as put since the last upload. An
  /// own element read-hinted reads as at the last download or as the thread's put since (a
  /// relaxed read may return that value); one not downloaded reads its memory. Misuse: see
  /// the Contract above — in a release build, get() after a finished download tests only that
  /// the index lies in the hinted span (the rest costs a byte per element: checked build).
  [[gnu::always_inline]] T get(cache_index<D>... i) {
    for (;;) {
      const std::size_t k = linear(i...);
      const std::size_t x = k - core_.lo_;
      if constexpr (!config::bounds_check) {
        if (x < core_.span_ && core_.valid_) [[likely]]
          return values()[x];
      }
      if (x < core_.span_) {
        const std::uint8_t st = core_.state_[x];
        if ((st & core::st_read) && core_.valid_) return values()[x];
        if (st & core::st_own) return cache_load(own_address(k, i...));
        if (st & core::st_dirty) return values()[x];
      }
      if (core_.get_failed(k, where(i...))) plan_now(where(i...));
    }
  }

  /// Sets element (i, j, …) to v: another thread's in the buffer, dirty until the next upload;
  /// the calling thread's in its memory at once (combined by the rule). With a min or max
  /// rule, putting an element already dirty keeps the smaller or larger value. Misuse: an
  /// element not hinted for writing, a step open, another thread (checked build).
  [[gnu::always_inline]] void put(cache_index<D>... i, const T& v) {
    for (;;) {
      const std::size_t k = linear(i...);
      const std::size_t x = k - core_.lo_;
      if (x < core_.span_ && !core_.open_) [[likely]] {
        const std::uint8_t st = core_.state_[x];
        if ((st & (core::st_write | core::st_own)) == core::st_write) {
          T& d = values()[x];
          if (!(st & core::st_dirty)) {
            core_.state_[x] = st | core::st_dirty;
            core_.dirty_.push_back(core_.pos_[x]);
            d = v;
          } else if (keeps(v, d)) {
            d = v;
          }
          return;
        }
        if (st & core::st_own && st & core::st_write) {
          T* const e = own_address(k, i...);
          schedule_store(e, v, core_.combine_);
          if (st & core::st_read) values()[x] = cache_load(e);
          return;
        }
      }
      if (core_.put_failed(k, where(i...))) plan_now(where(i...));
    }
  }

  /// Stores every dirty value to its owner, one pass per owner in address order, combined by
  /// the rule, and cleans them. Not collective, not a fence. Misuse: another thread, a step open.
  void start_upload(std::source_location where = std::source_location::current()) {
    core_.begin(core::step::uploading, &locate, this, where);
    core_.order_dirty();
    const T* const v = values();
    const std::vector<core::entry>& up = core_.up();
    for (const std::uint32_t p : core_.dirty_) {
      const core::entry& e = up[p];
      schedule_store(reinterpret_cast<T*>(e.addr), v[e.x], core_.combine_);
    }
    core_.uploaded(where);
  }
  /// Ends the upload. Misuse: no start_upload().
  void finish_upload(std::source_location where = std::source_location::current()) {
    core_.end(core::step::uploading, where);
  }

  /// Forgets the hints, the plan, the values and any puts not uploaded: the next hints make a
  /// new index set. Misuse: another thread, a step open.
  void clear(std::source_location where = std::source_location::current()) { core_.clear(where); }

  /// Counts since the schedule was made, and the current plan's sizes.
  schedule_stats stats() const noexcept { return core_.stats(); }
  /// The thread that made the schedule (the only one that may use it).
  int thread() const noexcept { return core_.thread_; }

 private:
  static constexpr bool can_combine = cache_atomic_v<T> && std::totally_ordered<T>;

  static std::vector<std::size_t> extents_of(const shared_array<T, Rank, Block>& a) {
    std::vector<std::size_t> e(Rank);
    for (std::size_t d = 0; d < Rank; ++d)
      e[d] = a.extent(d);
    return e;
  }

  static const std::source_location& where(const cache_index<D>&... i) noexcept {
    return std::get<0>(std::forward_as_tuple(i...)).where;
  }

  [[gnu::always_inline]] T* values() const noexcept { return reinterpret_cast<T*>(core_.values_); }

  // n elements from `from` on to `to` on, each read as the program's relaxed reads would.
  static void copy_run(T* to, const T* from, std::size_t n) noexcept {
    for (std::size_t j = 0; j < n; ++j)
      to[j] = cache_load(from + j);
  }

  [[gnu::always_inline]] bool keeps(const T& v, const T& d) const noexcept {
    if constexpr (can_combine) {
      if (core_.combine_ == upload_combine::min) return v < d;
      if (core_.combine_ == upload_combine::max) return d < v;
    }
    return true;
  }

  // The row-major linear index of (i, j, …); the thread check in the checked build, the
  // extents check for Rank > 1 (a linear index out of [0, n) is never in the planned span).
  [[gnu::always_inline]] std::size_t linear(const cache_index<D>&... i) const {
    if constexpr (config::bounds_check) core_.check_thread(where(i...));
    if constexpr (Rank == 1) {
      return (i.value + ...);
    } else {
      if (((i.value >= extents_[D]) || ...)) [[unlikely]]
        out_of_range(i...);
      std::size_t k = 0;
      ((k = k * extents_[D] + i.value), ...);
      return k;
    }
  }
  // The linear index, always checked (the inspector's path).
  std::size_t checked(const cache_index<D>&... i) const {
    if (((i.value >= extents_[D]) || ...)) [[unlikely]]
      out_of_range(i...);
    std::size_t k = 0;
    ((k = k * extents_[D] + i.value), ...);
    return k;
  }

  [[noreturn, gnu::noinline]] void out_of_range(const cache_index<D>&... i) const {
    if constexpr (Rank == 1) {
      if (range_) core_.range_error((i.value + ...), extents_[0], where(i...));
    }
    const std::array<std::size_t, Rank> index{i.value...};
    index_error(index, extents_, where(i...));
  }

  // The pointer-to-shared to linear index k.
  sptr<T, Block> pointer(std::size_t k) const {
    if constexpr (Rank == 1) {
      if (range_) return p_ + static_cast<std::ptrdiff_t>(k);
      return array_->ptr(k);
    } else {
      std::array<std::size_t, Rank> idx{};
      for (std::size_t d = Rank; d-- > 0;) {
        idx[d] = k % extents_[d];
        k /= extents_[d];
      }
      return array_->ptr(idx[D]...);
    }
  }
  // The calling thread's element (i, j, …), linear index k.
  [[gnu::always_inline]] T* own_address([[maybe_unused]] std::size_t k,
                                        const cache_index<D>&... i) const {
    if constexpr (Rank == 1) {
      if (range_) return (p_ + static_cast<std::ptrdiff_t>(k)).get();
    }
    return array_->address(i.value...);
  }

  static core::located locate(const void* self, std::size_t k) {
    const sptr<T, Block> q = static_cast<const schedule_base*>(self)->pointer(k);
    return {reinterpret_cast<std::uintptr_t>(q.get()), q.thread()};
  }
  [[gnu::noinline]] void plan_now(const std::source_location& where) {
    core_.ensure_plan(&locate, this, where);
  }

  const shared_array<T, Rank, Block>* array_ = nullptr;
  bool range_ = false;
  sptr<T, Block> p_{};
  std::array<std::size_t, Rank> extents_{};
  core core_;
};

}  // namespace detail
}  // namespace pgas
