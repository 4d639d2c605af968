// src/objects/cache.cpp — the software cache of <pgas/cache.hpp> out of line: the line table
// (open addressing by line number and owner, linear probing, at most half full), fills,
// write-backs at the thread's synchronisation points (a sync_listener), the priority winners'
// claim words, statistics and the misuse reports. The typed hit path is inline in the header;
// entry points are cache_core's members.
#include <pgas/cache.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <exception>

#include <pgas/alloc.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>
#include <pgas/sync.hpp>

#include "src/base/os.hpp"

namespace pgas::detail {
namespace {

// A claim word: (phase epoch << 24) | (thread << 1) | busy. Epoch 0 is "never claimed" (the
// words start zeroed); 40 bits of epochs are a trillion barriers.
constexpr unsigned claim_epoch_shift = 24;
constexpr std::uint64_t claim_busy = 1;
constexpr std::uint64_t claim_thread_mask = (std::uint64_t{1} << 23) - 1;

// Copies one element between shared memory and a copy: relaxed atomic for the sizes that have
// one (as cache_load/cache_store in the header), else a plain copy.
template <class Word>
void word_copy(char* to, const char* from, bool to_shared) noexcept {
  Word v;
  if (to_shared) {
    std::memcpy(&v, from, sizeof v);
    __atomic_store_n(reinterpret_cast<Word*>(to), v, __ATOMIC_RELAXED);
  } else {
    v = __atomic_load_n(reinterpret_cast<const Word*>(from), __ATOMIC_RELAXED);
    std::memcpy(to, &v, sizeof v);
  }
}
using word_copier = void (*)(char*, const char*, bool) noexcept;
// Indexed by the element size when it has an atomic access.
constexpr word_copier word_copiers[9] = {nullptr,
                                         word_copy<std::uint8_t>,
                                         word_copy<std::uint16_t>,
                                         nullptr,
                                         word_copy<std::uint32_t>,
                                         nullptr,
                                         nullptr,
                                         nullptr,
                                         word_copy<std::uint64_t>};
void element_copy(char* to, const char* from, std::size_t bytes, bool atomic,
                  bool to_shared) noexcept {
  if (atomic) {
    word_copiers[bytes](to, from, to_shared);
  } else {
    std::memcpy(to, from, bytes);
  }
}

// Consecutive element writes merged into runs, one traced access per run.
class run_tracer {
 public:
  explicit run_tracer(const std::source_location& where) noexcept : where_(where) {}
  ~run_tracer() { end(); }
  void add(const char* at, std::size_t bytes) noexcept {
    if (at != start_ + bytes_) end();
    if (bytes_ == 0) start_ = at;
    bytes_ += bytes;
  }
  void end() noexcept {
    if (bytes_ != 0) trace_access(trace_kind::cache, trace_dir::write, start_, bytes_, where_);
    bytes_ = 0;
    start_ = nullptr;
  }

 private:
  const std::source_location& where_;
  const char* start_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace

cache_core::cache_core(object o, const cache_options& opts, const std::source_location& where)
    : winner_(opts.winner), obj_(std::move(o)), made_(where) {
  if (!in_job())
    misuse(fmt::format("{} made outside a job (there is no shared object to cache)", obj_.what),
           where);
  if (obj_.range && obj_.first == nullptr)
    misuse(fmt::format("{}: a null pointer-to-shared or an empty range", obj_.what), where);
  if (opts.capacity == 0) misuse(fmt::format("{} with capacity 0", obj_.what), where);
  if (winner_ != cache_winner::any && winner_ != cache_winner::lowest_thread &&
      winner_ != cache_winner::highest_thread)
    misuse(fmt::format("{} with an invalid winner {}", obj_.what, static_cast<int>(winner_)),
           where);
  thread_ = mythread();
  const std::size_t per_line = obj_.line_bytes / obj_.element_bytes;
  lines_max_ = (opts.capacity + per_line - 1) / per_line;
  // At most two thirds full, so that probes stay short.
  slot_count_ = std::bit_ceil(std::max<std::size_t>(16, lines_max_ + lines_max_ / 2 + 1));
  slot_mask_ = slot_count_ - 1;
  segment_shift_ = geometry.shift;
  key_storage_.assign(slot_count_, 0);
  line_storage_.assign(slot_count_ * obj_.line_bytes, 0);
  dirty_storage_.assign(slot_count_, 0);
  used_slots_.assign(lines_max_, 0);
  keys_ = key_storage_.data();
  storage_ = line_storage_.data();
  dirty_ = dirty_storage_.data();
  line_bytes_ = obj_.line_bytes;
  const auto me = static_cast<std::size_t>(thread_);
  own_lo_ = obj_.lo[me];
  own_bytes_ = obj_.hi[me] - obj_.lo[me];

  if (winner_ != cache_winner::any) {
    // The claim words: thread t's part holds one word per element of the object's part on t,
    // zeroed by t; the barrier orders the zeros before any claim.
    for (std::size_t t = 0; t < obj_.lo.size(); ++t)
      claim_part_words_ =
          std::max(claim_part_words_, (obj_.hi[t] - obj_.lo[t]) / obj_.element_bytes);
    claims_ = all_alloc(static_cast<std::size_t>(threads()),
                        std::max<std::size_t>(1, claim_part_words_) * sizeof(std::uint64_t), where);
    std::memset(claims_.part(thread_), 0, claims_.part_bytes());
    pgas::barrier(where);
  }
  base_barriers_ = seen_barriers_ = sync_count(sync_kind::barrier);
  sync_listen(this);
}

cache_core::~cache_core() {
  if (mythread() != thread_) {
    // The listener list is the owning thread's: it cannot be left from here.
    misuse(fmt::format("{} made on thread {} at {}:{} destroyed on thread {}", obj_.what, thread_,
                       made_.file_name(), made_.line(), mythread()),
           made_);
  }
  if (std::uncaught_exceptions() == 0) flush(made_);
  sync_unlisten(this);
  if (claims_) all_free(claims_, made_);
}

void cache_core::check_use(const std::source_location& where) const {
  if (mythread() != thread_) wrong_thread(where);
  if (sync_count(sync_kind::barrier) != seen_barriers_)
    misuse(fmt::format("{} made at {}:{} used across a barrier it did not see (its thread's "
                       "barriers are not the ones it listens to: it was made on another "
                       "thread or outlived its job); its copies may be stale",
                       obj_.what, made_.file_name(), made_.line()),
           where);
}

void cache_core::wrong_thread(const std::source_location& where) const {
  misuse(fmt::format("{} made on thread {} at {}:{} used on thread {} (a cache belongs to the "
                     "thread that made it)",
                     obj_.what, thread_, made_.file_name(), made_.line(), mythread()),
         where);
}

void cache_core::range_error(std::size_t i, std::size_t n,
                             const std::source_location& where) const {
  misuse(fmt::format("{}: index {} outside the range [0, {})", obj_.what,
                     static_cast<std::ptrdiff_t>(i), n),
         where);
}

std::size_t cache_core::find_or_fetch(std::uintptr_t key, const std::source_location& where) {
  check_use(where);
  std::size_t s = slot_index(key);
  for (; keys_[s] != 0; s = (s + 1) & slot_mask_) {
    if (keys_[s] == key) {
      ++hits_;
      return s;
    }
  }
  if (lines_used_ == lines_max_) {
    misuse(fmt::format("{} made at {}:{}: capacity of {} lines ({} elements) exceeded in one "
                       "phase (no eviction inside a phase: give a larger capacity, flush, or "
                       "tile the loop with pgas::tiled_for)",
                       obj_.what, made_.file_name(), made_.line(), lines_max_,
                       lines_max_ * (obj_.line_bytes / obj_.element_bytes)),
           where);
  }
  // The owner's part clamps the line: its bytes outside the object are not ours to read.
  const std::size_t t = static_cast<std::size_t>(
      (key - reinterpret_cast<std::uintptr_t>(geometry.base)) >> geometry.shift);
  const std::uintptr_t lo = std::max(key, obj_.lo[t]);
  const std::uintptr_t hi = std::min(key + obj_.line_bytes, obj_.hi[t]);
  used_slots_[lines_used_++] = s;
  char* const copy = line_data(s);
  const std::size_t e = obj_.element_bytes;
  if (obj_.atomic && hi - lo == 64) {
    // A whole line of elements of at most 8 bytes: eight relaxed 8-byte loads.
    for (std::uintptr_t a = lo; a < hi; a += 8)
      word_copy<std::uint64_t>(copy + (a - key), reinterpret_cast<const char*>(a), false);
  } else {
    for (std::uintptr_t a = lo; a < hi; a += e)
      element_copy(copy + (a - key), reinterpret_cast<const char*>(a), e, obj_.atomic, false);
  }
  ++misses_;
  if (trace_on) {
    trace_access(trace_kind::cache, trace_dir::read, reinterpret_cast<const void*>(lo), hi - lo,
                 where);
  }
  keys_[s] = key;
  dirty_[s] = 0;
  return s;
}

std::uint64_t cache_core::phase_epoch(bool closing_barrier) const noexcept {
  // At a barrier's sync point the thread's count already includes that barrier, whose
  // write-backs belong to the phase it closes.
  return sync_count(sync_kind::barrier) - base_barriers_ - (closing_barrier ? 1 : 0) + 1;
}

bool cache_core::claim_store(char* element, const char* value, std::uint64_t epoch) {
  const std::uint64_t t = static_cast<std::uint64_t>(thread_);
  const std::size_t owner =
      static_cast<std::size_t>((reinterpret_cast<std::uintptr_t>(element) -
                                reinterpret_cast<std::uintptr_t>(geometry.base)) >>
                               geometry.shift);
  auto* const word =
      static_cast<std::uint64_t*>(claims_.part(static_cast<int>(owner))) +
      (reinterpret_cast<std::uintptr_t>(element) - obj_.lo[owner]) / obj_.element_bytes;
  const std::uint64_t mine = (epoch << claim_epoch_shift) | (t << 1);
  for (int spins = 0;; ++spins) {
    std::uint64_t c = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    const std::uint64_t e = c >> claim_epoch_shift;
    if (e > epoch) return false;  // a later phase's writer: ours is older
    if (e == epoch) {
      const std::uint64_t holder = (c >> 1) & claim_thread_mask;
      const bool beats = winner_ == cache_winner::lowest_thread ? t < holder : t > holder;
      if (holder != t && !beats) return false;
      if ((c & claim_busy) != 0) {
        // The holder is between its claim and its store: a few instructions, unless it was
        // descheduled.
        if (spins < 64)
          os_pause();
        else
          os_yield();
        continue;
      }
    }
    if (__atomic_compare_exchange_n(word, &c, mine | claim_busy, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      element_copy(element, value, obj_.element_bytes, obj_.atomic, true);
      __atomic_store_n(word, mine, __ATOMIC_RELEASE);
      return true;
    }
  }
}

void cache_core::claim_own(void* element, const void* value, const std::source_location& where) {
  check_use(where);
  claim_store(static_cast<char*>(element), static_cast<const char*>(value), phase_epoch(false));
}

void cache_core::write_back(std::uint64_t epoch, const std::source_location& where) {
  const std::size_t e = obj_.element_bytes;
  run_tracer runs(where);
  for (std::size_t u = 0; u < lines_used_; ++u) {
    const std::size_t s = used_slots_[u];
    std::uint64_t d = dirty_[s];
    if (d == 0) continue;
    const std::uintptr_t key = keys_[s];
    const char* const copy = line_data(s);
    while (d != 0) {
      const unsigned k = static_cast<unsigned>(std::countr_zero(d));
      d &= d - 1;
      char* const at = reinterpret_cast<char*>(key) + k * e;
      const char* const from = copy + k * e;
      if (winner_ == cache_winner::any)
        element_copy(at, from, e, obj_.atomic, true);
      else if (!claim_store(at, from, epoch))
        continue;
      written_back_ += e;
      runs.add(at, e);
    }
  }
}

void cache_core::flush(const std::source_location& where) {
  check_use(where);
  write_back(phase_epoch(false), where);
  drop(where);
}

void cache_core::on_sync(sync_kind kind) {
  if (kind == sync_kind::barrier) {
    seen_barriers_ = sync_count(sync_kind::barrier);
    write_back(phase_epoch(true), made_);
  } else {
    write_back(phase_epoch(false), made_);
  }
  drop(made_);
}

void cache_core::drop(const std::source_location& where) {
  for (std::size_t u = 0; u < lines_used_; ++u)
    keys_[used_slots_[u]] = 0;
  lines_used_ = 0;
  ++flushes_;
  if (trace_on && (hits_ != reported_hits_ || misses_ != reported_misses_ ||
                   written_back_ != reported_written_)) {
    trace_cache(obj_.first, hits_ - reported_hits_, misses_ - reported_misses_,
                written_back_ - reported_written_, where);
  }
  reported_hits_ = hits_;
  reported_misses_ = misses_;
  reported_written_ = written_back_;
}

cache_stats cache_core::stats() const noexcept {
  return cache_stats{hits_, misses_, written_back_, flushes_};
}

}  // namespace pgas::detail
