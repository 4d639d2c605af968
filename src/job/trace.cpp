// src/job/trace.cpp — recording for `pgasrun --trace` (src/job/trace.hpp): the hooks of
// pgas/detail/trace_hook.hpp, the per-thread tables, the allocation registry, and the public
// calls of pgas/trace.hpp.
#include "src/job/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <unordered_map>

#include <pgas/detail/geometry.hpp>
#include <pgas/detail/identity.hpp>
#include <pgas/detail/sync_listener.hpp>
#include <pgas/error.hpp>
#include <pgas/ticks.hpp>
#include <pgas/trace.hpp>

#include "src/base/file.hpp"
#include "src/base/os.hpp"
#include "src/job/job.hpp"
#include "src/job/reuse.hpp"

// The writable name of detail::trace_on (pgas/detail/trace_hook.hpp), which every other file
// sees as const. Only trace_job_begin and trace_job_end write it, while no job thread runs.
extern "C" {
PGAS_API bool pgas_trace_on_storage __asm__("pgas_trace_on") = false;
}

namespace pgas::detail {

namespace {

// ---- the allocation registry --------------------------------------------------------------

struct live_range {
  std::uint64_t end;
  std::int32_t id;
};

struct registry {
  std::shared_mutex mutex;
  std::vector<trace_allocation_record> records;
  // (segment's thread or -1 for symmetric, offset in the segment) → its range
  std::map<std::pair<int, std::uint64_t>, live_range> live;
  // Bumped at every change, so that the threads' caches of recent ranges see it.
  std::atomic<std::uint32_t> generation{1};
};
registry& the_registry() {
  static registry r;
  return r;
}

struct found_range {
  std::int32_t id = -1;
  std::uint64_t lo = 0, hi = 0;  // the range within the segment that maps to id
};

// The allocation holding `segoff` of thread `to`'s segment (caller holds the lock).
found_range find_range(const registry& r, int to, std::uint64_t segoff, std::uint64_t segment) {
  for (int key : {to, -1}) {
    auto it = r.live.upper_bound({key, segoff});
    if (it != r.live.begin()) {
      --it;
      if (it->first.first == key && segoff < it->second.end)
        return {it->second.id, it->first.second, it->second.end};
    }
  }
  // Not in an allocation: the gap between the neighbours, so that the answer can be cached.
  std::uint64_t lo = 0, hi = segment;
  for (int key : {to, -1}) {
    auto it = r.live.upper_bound({key, segoff});
    if (it != r.live.end() && it->first.first == key) hi = std::min(hi, it->first.second);
    if (it != r.live.begin()) {
      --it;
      if (it->first.first == key) lo = std::max(lo, it->second.end);
    }
  }
  return {-1, lo, hi};
}

std::string short_where(const std::source_location& where) {
  const std::string_view file = where.file_name();
  const auto slash = file.rfind('/');
  return fmt::format("{}:{}", slash == std::string_view::npos ? file : file.substr(slash + 1),
                     where.line());
}

// ---- per-thread tables --------------------------------------------------------------------

constexpr std::size_t chunk_entries = 1024;
constexpr std::size_t recent_slots = 256;
constexpr std::size_t snapshot_bytes = 32;

struct recent_slot {
  std::uintptr_t site = 0;
  std::uint32_t line = 0;
  std::int32_t to = -2;
  std::uint32_t generation = 0;
  trace_kind kind = trace_kind::element;
  std::uint64_t lo = 0, hi = 0;
  trace_entry* entry = nullptr;
};

struct wait_key {
  const char* file;
  std::uint32_t line;
  trace_kind kind;
  bool operator==(const wait_key&) const = default;
};
struct wait_key_hash {
  std::size_t operator()(const wait_key& k) const noexcept {
    return std::hash<const void*>{}(k.file) ^ (std::size_t{k.line} << 8) ^
           static_cast<std::size_t>(k.kind);
  }
};

}  // namespace

struct thread_trace {
  int thread = 0;
  std::size_t capacity = 0;  // most entries
  std::size_t timeline_capacity = 0;
  std::size_t count = 0;  // entries in use
  std::vector<std::unique_ptr<trace_entry[]>> chunks;
  std::vector<std::uint32_t> index;             // open addressing over entry numbers, ~0u empty
  std::array<trace_entry, trace_kinds> lost{};  // counted without detail once full
  std::uint64_t lost_calls = 0;
  std::array<recent_slot, recent_slots> recent{};
  // The element access whose direction the next event decides.
  trace_entry* pending = nullptr;
  const void* pending_at = nullptr;
  std::size_t pending_bytes = 0;
  alignas(8) unsigned char snapshot[snapshot_bytes];
  std::vector<trace_wait_entry> waits;
  std::unordered_map<wait_key, std::uint32_t, wait_key_hash> wait_index;
  std::vector<trace_event> timeline;
  std::uint64_t events_lost = 0;
  std::vector<trace_cache_entry> caches;

  trace_entry& entry_at(std::size_t i) noexcept {
    return chunks[i / chunk_entries][i % chunk_entries];
  }
};

namespace {

struct tracer {
  bool on = false;  // tracing (trace_on may be true for the reuse recorder alone)
  bool hooks_for_others = false;
  std::string path;
  std::size_t memory = 0;
  std::uint64_t start_ns = 0;
  std::vector<std::unique_ptr<thread_trace>> threads;
};
tracer the_tracer;

thread_local constinit thread_trace* my_trace __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local constinit std::uint32_t my_mask __attribute__((tls_model("initial-exec"))) =
    static_cast<std::uint32_t>(trace_mask::all);

bool wanted(trace_kind k) noexcept {
  return (my_mask >> static_cast<unsigned>(k) & 1u) != 0;
}

std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

std::uint64_t key_hash(std::uintptr_t site, std::uint32_t line, std::int32_t array, std::int32_t to,
                       trace_kind kind) noexcept {
  return mix(site ^ (std::uint64_t{line} << 32) ^
             mix((static_cast<std::uint64_t>(static_cast<std::uint32_t>(array)) << 32) ^
                 (static_cast<std::uint64_t>(static_cast<std::uint32_t>(to)) << 4) ^
                 static_cast<std::uint64_t>(kind)));
}

void rehash(thread_trace& t, std::size_t slots) {
  t.index.assign(slots, ~0u);
  for (std::size_t i = 0; i < t.count; ++i) {
    const trace_entry& e = t.entry_at(i);
    std::size_t h = key_hash(e.site, e.site_line, e.array, e.to, e.kind) & (slots - 1);
    while (t.index[h] != ~0u)
      h = (h + 1) & (slots - 1);
    t.index[h] = static_cast<std::uint32_t>(i);
  }
}

// The entry of the key, made when new; the kind's detail-less entry once the table is full.
trace_entry* find_or_add(thread_trace& t, std::uintptr_t site, std::uint32_t line,
                         std::int32_t array, std::int32_t to, trace_kind kind,
                         const char* function) {
  if (t.index.empty()) rehash(t, 2 * chunk_entries);
  const std::size_t mask = t.index.size() - 1;
  std::size_t h = key_hash(site, line, array, to, kind) & mask;
  for (; t.index[h] != ~0u; h = (h + 1) & mask) {
    trace_entry& e = t.entry_at(t.index[h]);
    if (e.site == site && e.site_line == line && e.array == array && e.to == to && e.kind == kind)
      return &e;
  }
  if (t.count == t.capacity) {
    trace_entry& lost = t.lost[static_cast<std::size_t>(kind)];
    lost.kind = kind;
    return &lost;
  }
  if (t.count == t.chunks.size() * chunk_entries)
    t.chunks.push_back(std::make_unique<trace_entry[]>(chunk_entries));
  const std::size_t i = t.count++;
  trace_entry& e = t.entry_at(i);
  e.site = site;
  e.site_line = line;
  e.array = array;
  e.to = to;
  e.kind = kind;
  e.function = function;
  if (2 * t.count > t.index.size()) {
    rehash(t, 2 * t.index.size());
  } else {
    t.index[h] = static_cast<std::uint32_t>(i);
  }
  return &e;
}

// The recent slot of a (site, owner, kind): a multiply and a shift.
inline std::size_t recent_index(std::uintptr_t site, std::uint32_t line, std::int32_t to,
                                trace_kind kind) noexcept {
  const std::uint64_t k =
      (site ^ (std::uint64_t{line} << 7)) * 0x9e3779b97f4a7c15ull +
      static_cast<std::uint64_t>(static_cast<std::uint32_t>(to)) * 0x85ebca6bull +
      static_cast<std::uint64_t>(kind);
  return static_cast<std::size_t>(k >> 56) & (recent_slots - 1);
}

// The owner and the entry of an access at `shared` from `site`, through the recent slots.
trace_entry* entry_for(thread_trace& t, std::uintptr_t site, std::uint32_t line, trace_kind kind,
                       const void* shared, const char* function) {
  std::int32_t to = -1;
  std::uint64_t segoff = 0;
  const auto off = static_cast<std::uint64_t>(static_cast<const char*>(shared) - geometry.base);
  if (shared != nullptr && off < geometry.span) {
    to = static_cast<std::int32_t>(off >> geometry.shift);
    segoff = off & (geometry.segment - 1);
  }
  registry& r = the_registry();
  const std::uint32_t gen = r.generation.load(std::memory_order_acquire);
  recent_slot& s = t.recent[recent_index(site, line, to, kind)];
  if (s.site == site && s.line == line && s.to == to && s.kind == kind && s.generation == gen &&
      segoff - s.lo < s.hi - s.lo)
    return s.entry;
  found_range fr{-1, 0, geometry.segment};
  if (to >= 0) {
    std::shared_lock lock(r.mutex);
    fr = find_range(r, to, segoff, geometry.segment);
  }
  trace_entry* e = find_or_add(t, site, line, fr.id, to, kind, function);
  s = {site, line, to, gen, kind, fr.lo, fr.hi, e};
  return e;
}

// Reads an element's first bytes as the program may be reading or writing them at the same
// time from another thread (an atomic or strict access, or a race the program allows itself):
// naturally aligned words of 1, 2, 4 and 8 bytes through relaxed atomic loads, single
// instructions that are defined whatever the other thread does; other sizes byte-wise
// (a racy element the tracer may then misclassify, never a fault).
template <class W>
inline W load_word(const void* p) noexcept {
  return __atomic_load_n(static_cast<const W*>(p), __ATOMIC_RELAXED);
}
inline bool aligned(const void* p, std::size_t n) noexcept {
  return (reinterpret_cast<std::uintptr_t>(p) & (n - 1)) == 0;
}
inline void read_element(unsigned char* to, const void* from, std::size_t bytes) noexcept {
  if (aligned(from, bytes)) {
    switch (bytes) {
      case 8: {
        const auto w = load_word<std::uint64_t>(from);
        std::memcpy(to, &w, 8);
        return;
      }
      case 4: {
        const auto w = load_word<std::uint32_t>(from);
        std::memcpy(to, &w, 4);
        return;
      }
      case 2: {
        const auto w = load_word<std::uint16_t>(from);
        std::memcpy(to, &w, 2);
        return;
      }
      case 1:
        *to = load_word<std::uint8_t>(from);
        return;
      default:
        break;
    }
  }
  const auto* src = static_cast<const unsigned char*>(from);
  for (std::size_t i = 0, n = std::min(bytes, snapshot_bytes); i < n; ++i)
    to[i] = __atomic_load_n(src + i, __ATOMIC_RELAXED);
}
inline void take_snapshot(unsigned char* to, const void* from, std::size_t bytes) noexcept {
  read_element(to, from, bytes);
}
template <class W>
inline bool word_changed(const void* now, const unsigned char* then) noexcept {
  W w;
  std::memcpy(&w, then, sizeof(W));
  return load_word<W>(now) != w;
}
inline bool changed(const void* now, const unsigned char* then, std::size_t bytes) noexcept {
  if (bytes == 8 && aligned(now, 8)) [[likely]]
    return word_changed<std::uint64_t>(now, then);
  if (bytes == 4 && aligned(now, 4)) return word_changed<std::uint32_t>(now, then);
  alignas(8) unsigned char x[snapshot_bytes];
  read_element(x, now, bytes);
  return std::memcmp(x, then, std::min(bytes, snapshot_bytes)) != 0;
}

// Adds one access of `bytes` to `e`, counting it as detail lost when `e` is a kind's
// detail-less entry.
inline void count(thread_trace& t, trace_entry* e, trace_dir dir, std::size_t bytes) noexcept {
  ++e->calls[static_cast<std::size_t>(dir)];
  e->bytes[static_cast<std::size_t>(dir)] += bytes;
  if (e >= t.lost.data() && e < t.lost.data() + t.lost.size()) ++t.lost_calls;
}

// Decides the pending element access's direction: a write when its bytes changed since.
inline void settle(thread_trace& t) noexcept {
  if (t.pending == nullptr) [[likely]]
    return;
  count(t, t.pending,
        changed(t.pending_at, t.snapshot, t.pending_bytes) ? trace_dir::write : trace_dir::read,
        t.pending_bytes);
  t.pending = nullptr;
}

std::uint64_t now_ns() noexcept {
  return ticks_now();
}

}  // namespace

// ---- the hooks ----------------------------------------------------------------------------

void trace_reference(const void* element, std::size_t bytes) noexcept {
  const auto pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  if (reuse_thread* r = reuse_mine; r != nullptr && (my_mask & 1u) != 0)
    reuse_element(*r, pc, element, bytes);
  thread_trace* t = my_trace;
  if (t == nullptr) return;
  settle(*t);
  if ((my_mask & 1u) == 0) return;
  trace_entry* e = nullptr;
  // The hit path of entry_for, inline: the same code address, owner and allocation range.
  const auto off = static_cast<std::uint64_t>(static_cast<const char*>(element) - geometry.base);
  if (off < geometry.span) [[likely]] {
    const auto to = static_cast<std::int32_t>(off >> geometry.shift);
    const std::uint64_t segoff = off & (geometry.segment - 1);
    const recent_slot& s = t->recent[recent_index(pc, trace_pc_site, to, trace_kind::element)];
    if (s.site == pc && s.to == to && s.line == trace_pc_site &&
        s.generation == the_registry().generation.load(std::memory_order_relaxed) &&
        segoff - s.lo < s.hi - s.lo) [[likely]]
      e = s.entry;
  }
  if (e == nullptr) {
    try {
      e = entry_for(*t, pc, trace_pc_site, trace_kind::element, element, nullptr);
    } catch (...) {  // no memory for a new entry: count it without detail
      e = &t->lost[0];
    }
  }
  t->pending = e;
  t->pending_at = element;
  t->pending_bytes = bytes;
  take_snapshot(t->snapshot, element, bytes);
}

void trace_access(trace_kind kind, trace_dir dir, const void* shared, std::size_t bytes,
                  const std::source_location& where) noexcept {
  if (reuse_thread* r = reuse_mine; r != nullptr && shared != nullptr && wanted(kind))
    reuse_call(*r, kind, shared, bytes, where);
  thread_trace* t = my_trace;
  if (t == nullptr) return;
  settle(*t);
  if (!wanted(kind)) return;
  trace_entry* e = nullptr;
  try {
    e = entry_for(*t, reinterpret_cast<std::uintptr_t>(where.file_name()), where.line(), kind,
                  shared, where.function_name());
  } catch (...) {
    e = &t->lost[static_cast<std::size_t>(kind)];
  }
  count(*t, e, dir, bytes);
}

std::uint64_t trace_wait_start() noexcept {
  return my_trace != nullptr ? std::max<std::uint64_t>(now_ns(), 1) : 0;
}

void trace_wait_end(trace_kind kind, std::uint64_t started,
                    const std::source_location& where) noexcept {
  thread_trace* t = my_trace;
  if (t == nullptr || started == 0) return;
  settle(*t);
  if (!wanted(kind)) return;
  const std::uint64_t end = now_ns();
  const std::uint64_t ns = end > started ? end - started : 0;
  try {
    const wait_key key{where.file_name(), where.line(), kind};
    auto [it, added] = t->wait_index.try_emplace(key, static_cast<std::uint32_t>(t->waits.size()));
    if (added) {
      trace_wait_entry w;
      w.file = where.file_name();
      w.line = where.line();
      w.kind = kind;
      w.function = where.function_name();
      t->waits.push_back(w);
    }
    trace_wait_entry& w = t->waits[it->second];
    ++w.calls;
    w.ns += ns;
    w.max_ns = std::max(w.max_ns, ns);
    if (t->timeline.size() < t->timeline_capacity) {
      t->timeline.push_back({it->second, started - the_tracer.start_ns, ns});
    } else {
      ++t->events_lost;
    }
  } catch (...) {
    ++t->events_lost;
  }
}

void trace_cache(const void* shared, std::uint64_t hits, std::uint64_t misses,
                 std::uint64_t written_back_bytes, const std::source_location& where) noexcept {
  thread_trace* t = my_trace;
  if (t == nullptr) return;
  settle(*t);
  if (!wanted(trace_kind::cache)) return;
  std::int32_t array = -1;
  const auto off = static_cast<std::uint64_t>(static_cast<const char*>(shared) - geometry.base);
  if (shared != nullptr && off < geometry.span) {
    registry& r = the_registry();
    std::shared_lock lock(r.mutex);
    array = find_range(r, static_cast<int>(off >> geometry.shift), off & (geometry.segment - 1),
                       geometry.segment)
                .id;
  }
  for (trace_cache_entry& c : t->caches) {
    if (c.file == where.file_name() && c.line == where.line() && c.array == array) {
      c.hits += hits;
      c.misses += misses;
      c.written_back += written_back_bytes;
      return;
    }
  }
  try {
    t->caches.push_back({where.file_name(), where.line(), where.function_name(), array, hits,
                         misses, written_back_bytes});
  } catch (...) {
  }
}

void trace_allocation(std::uint64_t offset, std::size_t bytes, int thread,
                      const std::source_location& where) noexcept {
  if (!the_tracer.on || bytes == 0) return;
  registry& r = the_registry();
  try {
    std::unique_lock lock(r.mutex);
    auto it = r.live.find({thread, offset});
    if (it != r.live.end() && it->second.end == offset + bytes) return;  // another thread's call
    trace_allocation_record rec;
    rec.name = short_where(where);
    rec.where = fmt::format("{}:{}", where.file_name(), where.line());
    rec.bytes = bytes;
    rec.thread = thread;
    r.records.push_back(std::move(rec));
    r.live[{thread, offset}] = {offset + bytes, static_cast<std::int32_t>(r.records.size() - 1)};
    r.generation.fetch_add(1, std::memory_order_release);
  } catch (...) {
  }
}

void trace_release(std::uint64_t offset, int thread) noexcept {
  reuse_release(offset, thread);
  if (!the_tracer.on) return;
  if (my_trace != nullptr) settle(*my_trace);
  registry& r = the_registry();
  std::unique_lock lock(r.mutex);
  if (r.live.erase({thread, offset}) != 0) r.generation.fetch_add(1, std::memory_order_release);
}

collective_scope::collective_scope(const std::source_location& where, std::size_t bytes)
    : where_(where) {
  sync_point(sync_kind::barrier);
  if (the_tracer.on) [[unlikely]] {
    trace_access(trace_kind::collective, trace_dir::sync, nullptr, bytes, where);
    started_ = trace_wait_start();
  }
}

// ---- the job ------------------------------------------------------------------------------

void trace_job_begin(job& j, const std::string& path, std::size_t memory) {
  check_replaceable(path);
  the_tracer.path = path;
  the_tracer.memory = memory;
  the_tracer.threads.clear();
  const std::size_t per_entry = sizeof(trace_entry) + 2 * sizeof(std::uint32_t);
  for (int t = 0; t < j.threads; ++t) {
    auto tt = std::make_unique<thread_trace>();
    tt->thread = t;
    tt->capacity = std::max<std::size_t>(64, memory * 3 / 4 / per_entry);
    tt->timeline_capacity = memory / 4 / sizeof(trace_event);
    the_tracer.threads.push_back(std::move(tt));
  }
  registry& r = the_registry();
  r.records.clear();
  r.live.clear();
  r.generation.fetch_add(1);
  the_tracer.start_ns = now_ns();
  the_tracer.on = true;
  pgas_trace_on_storage = true;
}

void trace_hooks_set(bool on) noexcept {
  the_tracer.hooks_for_others = on;
  pgas_trace_on_storage = on || the_tracer.on;
}

void trace_thread_begin(int thread) {
  // Every job starts with everything recorded: thread 0 is the caller's thread, whose mask a
  // previous job may have left narrowed.
  my_mask = static_cast<std::uint32_t>(trace_mask::all);
  if (!the_tracer.on) return;
  my_trace = the_tracer.threads[static_cast<std::size_t>(thread)].get();
}

void trace_thread_end() {
  if (my_trace == nullptr) return;
  settle(*my_trace);
  my_trace = nullptr;
}

bool trace_job_end(const job& j) {
  if (!the_tracer.on) return true;
  the_tracer.on = false;
  pgas_trace_on_storage = the_tracer.hooks_for_others;
  my_trace = nullptr;
  trace_snapshot s;
  for (auto& tt : the_tracer.threads) {
    std::vector<trace_entry> all;
    all.reserve(tt->count + trace_kinds);
    for (std::size_t i = 0; i < tt->count; ++i)
      all.push_back(tt->entry_at(i));
    for (const trace_entry& e : tt->lost) {
      std::uint64_t calls = 0;
      for (std::uint64_t c : e.calls)
        calls += c;
      if (calls != 0) all.push_back(e);
    }
    s.detail_lost += tt->lost_calls;
    s.events_lost += tt->events_lost;
    s.entries.push_back(std::move(all));
    s.waits.push_back(std::move(tt->waits));
    s.timeline.push_back(std::move(tt->timeline));
    s.caches.push_back(std::move(tt->caches));
  }
  s.allocations = std::move(the_registry().records);
  the_tracer.threads.clear();
  the_registry().live.clear();
  bool ok = true;
  try {
    replace_file(the_tracer.path, trace_file_text(j, s, the_tracer.memory));
  } catch (const std::exception& e) {
    os_write_stderr(fmt::format("pgas: error: the trace was not written: {}\n", e.what()));
    ok = false;
  }
  if (ok && s.detail_lost != 0) {
    os_write_stderr(fmt::format(
        "pgas: warning: the trace tables were full (PGAS_TRACE_MEMORY {} per thread): {} "
        "accesses were counted without their site, array and owner\n",
        describe_bytes(the_tracer.memory), s.detail_lost));
  }
  if (ok && s.events_lost != 0) {
    os_write_stderr(fmt::format(
        "pgas: warning: the trace's timeline kept the first waits of each thread only "
        "(PGAS_TRACE_MEMORY {} per thread): {} waits are counted but not in the timeline\n",
        describe_bytes(the_tracer.memory), s.events_lost));
  }
  return ok;
}

}  // namespace pgas::detail

// ---- pgas/trace.hpp -----------------------------------------------------------------------

namespace pgas {

bool tracing() noexcept {
  return detail::the_tracer.on;
}

trace_mask trace_set_mask(trace_mask m) noexcept {
  if (detail::my_trace != nullptr) detail::settle(*detail::my_trace);
  const auto old = static_cast<trace_mask>(detail::my_mask);
  detail::my_mask = static_cast<std::uint32_t>(m);
  return old;
}

trace_mask trace_get_mask() noexcept {
  return static_cast<trace_mask>(detail::my_mask);
}

trace_scope::trace_scope(trace_mask m) noexcept : saved_(trace_set_mask(m)) {}
trace_scope::~trace_scope() {
  trace_set_mask(saved_);
}

void trace_name(const void* shared, std::string_view name, std::source_location where) {
  if (!detail::the_tracer.on) return;
  const auto off =
      static_cast<std::uint64_t>(static_cast<const char*>(shared) - detail::geometry.base);
  if (shared == nullptr || off >= detail::geometry.span) {
    detail::misuse(fmt::format("pgas::trace_name(\"{}\"): {} is not an address in the shared space",
                               name, shared),
                   where);
  }
  auto& r = detail::the_registry();
  std::unique_lock lock(r.mutex);
  const auto found =
      detail::find_range(r, static_cast<int>(off >> detail::geometry.shift),
                         off & (detail::geometry.segment - 1), detail::geometry.segment);
  if (found.id < 0) {
    lock.unlock();
    detail::misuse(
        fmt::format("pgas::trace_name(\"{}\"): no live shared allocation holds {}", name, shared),
        where);
  }
  r.records[static_cast<std::size_t>(found.id)].name = std::string(name);
}

}  // namespace pgas
