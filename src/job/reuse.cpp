// src/job/reuse.cpp — recording for `pgasrun --reuse` (src/job/reuse.hpp): the per-thread
// stacks and per-site histograms fed by trace.cpp's hooks, the block registry of the block
// grain, the file written at the job's end (format "pgas-reuse" 1, read by pgas-reuse), and the
// public calls of pgas/reuse.hpp.
#include "src/job/reuse.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <pgas/detail/geometry.hpp>
#include <pgas/detail/sync_listener.hpp>
#include <pgas/reuse.hpp>
#include <pgas/trace.hpp>

#include "src/base/file.hpp"
#include "src/base/os.hpp"
#include "src/job/job.hpp"
#include "src/job/trace.hpp"
#include "src/models/reuse_distance.hpp"

namespace pgas::detail {

thread_local constinit reuse_thread* reuse_mine = nullptr;
PGAS_API thread_local constinit std::uintptr_t trace_skip_lo = 0;
PGAS_API thread_local constinit std::uintptr_t trace_skip_bytes = 0;

namespace {

constexpr std::size_t max_live_units = std::size_t{1} << 20;
constexpr std::size_t recent_sites = 64;
constexpr std::size_t line_bytes = 64;

enum class grain : std::uint8_t { element, line, block };

struct bin_stats {
  double count = 0;  // weighted accesses
  double sum = 0;    // weighted distances
  std::uint64_t min = ~std::uint64_t{0};
  std::uint64_t max = 0;
};

// One (site, kind)'s histogram on one thread.
struct site_histogram {
  std::uintptr_t site = 0;  // code address (line == trace_pc_site) or file name
  std::uint32_t line = 0;   // source line, or trace_pc_site
  trace_kind kind = trace_kind::element;
  const char* function = nullptr;
  std::uint64_t accesses = 0;
  double infinite = 0;
  std::array<bin_stats, reuse_bins> bins{};

  void add(reuse_result r) noexcept {
    ++accesses;
    if (r.weight == 0) return;
    const double w = r.weight;
    if (r.distance == reuse_infinite) {
      infinite += w;
      return;
    }
    bin_stats& b = bins[static_cast<std::size_t>(reuse_bin(r.distance))];
    b.count += w;
    b.sum += w * static_cast<double>(r.distance);
    b.min = std::min(b.min, r.distance);
    b.max = std::max(b.max, r.distance);
  }
  void merge(const site_histogram& o) noexcept {
    accesses += o.accesses;
    infinite += o.infinite;
    for (std::size_t k = 0; k < bins.size(); ++k) {
      bins[k].count += o.bins[k].count;
      bins[k].sum += o.bins[k].sum;
      bins[k].min = std::min(bins[k].min, o.bins[k].min);
      bins[k].max = std::max(bins[k].max, o.bins[k].max);
    }
  }
};

struct site_key {
  std::uintptr_t site;
  std::uint32_t line;
  trace_kind kind;
  bool operator==(const site_key&) const = default;
};
struct site_key_hash {
  std::size_t operator()(const site_key& k) const noexcept {
    return std::hash<std::uintptr_t>{}(k.site) ^ (std::size_t{k.line} << 8) ^
           static_cast<std::size_t>(k.kind);
  }
};

// ---- the block registry -------------------------------------------------------------------

struct block_range {
  std::uint64_t end;
  std::size_t block;
};
struct block_registry {
  std::shared_mutex mutex;
  // (segment's thread or -1 for symmetric, offset in the segment) → its end and block bytes
  std::map<std::pair<int, std::uint64_t>, block_range> live;
  std::atomic<std::uint32_t> generation{1};
};
block_registry& the_blocks() {
  static block_registry r;
  return r;
}

struct recorder {
  bool on = false;
  std::string path;
  grain unit = grain::element;
  reuse_mode mode = reuse_mode::exact;
  std::vector<std::unique_ptr<reuse_thread>> threads;
};
recorder the_recorder;

std::atomic<std::uint64_t> declared_size{0};
std::atomic<bool> size_declared{false};

}  // namespace

struct reuse_thread final : sync_listener {
  int thread = 0;
  reuse_stack stack;
  std::vector<std::unique_ptr<site_histogram>> sites;
  std::unordered_map<site_key, site_histogram*, site_key_hash> index;
  struct recent_slot {
    std::uintptr_t site = 0;
    std::uint32_t line = 0;
    trace_kind kind = trace_kind::element;
    site_histogram* h = nullptr;
  };
  std::array<recent_slot, recent_sites> recent{};
  // The block grain's last range: [lo, hi) of owner `to`'s segment, starting blocks at `start`.
  int block_to = -2;
  std::uint32_t block_generation = 0;
  std::uint64_t block_lo = 0, block_hi = 0, block_start = 0, block_bytes = 1;
  std::size_t largest_unit = 0;   // the grain's bytes: elements and atomics' at element grain
  std::size_t largest_other = 0;  // element grain: copies' bytes (when nothing else came)
  std::uint64_t lost = 0;         // accesses not recorded (no memory for a new site)

  reuse_thread(int t, reuse_mode mode) : thread(t), stack(mode, max_live_units) {}

  void on_sync(sync_kind kind) override {
    if (kind == sync_kind::barrier || kind == sync_kind::fence) stack.clear();
  }

  // The histogram of a site: the recent slot's, inline, else found or made in the index.
  [[gnu::always_inline]] site_histogram* histogram_of(std::uintptr_t site, std::uint32_t line,
                                                      trace_kind kind,
                                                      const char* function) noexcept {
    recent_slot& s = recent[(site * 0x9e3779b97f4a7c15ull + line) >> 58];
    if (s.h != nullptr && s.site == site && s.line == line && s.kind == kind) [[likely]]
      return s.h;
    return histogram_found(s, site, line, kind, function);
  }
  [[gnu::noinline]] site_histogram* histogram_found(recent_slot& s, std::uintptr_t site,
                                                    std::uint32_t line, trace_kind kind,
                                                    const char* function) noexcept {
    try {
      auto [it, added] = index.try_emplace({site, line, kind}, nullptr);
      if (added) {
        try {
          sites.push_back(std::make_unique<site_histogram>());
        } catch (...) {
          index.erase(it);
          throw;
        }
        site_histogram& h = *sites.back();
        h.site = site;
        h.line = line;
        h.kind = kind;
        h.function = function;
        it->second = &h;
      }
      s = {site, line, kind, it->second};
      return it->second;
    } catch (...) {
      return nullptr;
    }
  }

  // The unit of `bytes` at offset `off` of the shared space owned by `to`: an element at the
  // element grain inline, the other grains and kinds in unit_found.
  [[gnu::always_inline]] std::uint64_t unit_of(std::uint64_t off, int to, std::size_t bytes,
                                               trace_kind kind) noexcept {
    if (the_recorder.unit == grain::element && kind == trace_kind::element) [[likely]] {
      largest_unit = std::max(largest_unit, bytes);
      return off;
    }
    return unit_found(off, to, bytes, kind);
  }
  [[gnu::noinline]] std::uint64_t unit_found(std::uint64_t off, int to, std::size_t bytes,
                                             trace_kind kind) noexcept {
    switch (the_recorder.unit) {
      case grain::element:
        if (kind == trace_kind::element || kind == trace_kind::atomic) {
          largest_unit = std::max(largest_unit, bytes);
        } else {
          largest_other = std::max(largest_other, bytes);
        }
        return off;
      case grain::line:
        largest_unit = line_bytes;
        return off / line_bytes;
      case grain::block:
        break;
    }
    const std::uint64_t segoff = off & (geometry.segment - 1);
    block_registry& r = the_blocks();
    const std::uint32_t gen = r.generation.load(std::memory_order_acquire);
    if (to != block_to || gen != block_generation || segoff - block_lo >= block_hi - block_lo) {
      block_to = to;
      block_generation = gen;
      block_lo = segoff;
      block_hi = segoff + 1;
      block_start = segoff;
      block_bytes = std::max<std::size_t>(bytes, 1);  // outside any allocation: the element
      std::shared_lock lock(r.mutex);
      for (int key : {to, -1}) {
        auto it = r.live.upper_bound({key, segoff});
        if (it == r.live.begin()) continue;
        --it;
        if (it->first.first == key && segoff < it->second.end) {
          block_lo = block_start = it->first.second;
          block_hi = it->second.end;
          block_bytes = std::max<std::size_t>(it->second.block, 1);
          break;
        }
      }
    }
    largest_unit = std::max<std::size_t>(largest_unit, block_bytes);
    const std::uint64_t seg_base = off - segoff;
    return seg_base + block_start + (segoff - block_start) / block_bytes * block_bytes;
  }

  // Inline in both callers: an element access (every other access of a naive loop over
  // another thread's row) pays one call from the hook, not two.
  [[gnu::always_inline]] void record(std::uintptr_t site, std::uint32_t line, trace_kind kind,
                                     const char* function, const void* shared,
                                     std::size_t bytes) noexcept {
    const auto off = static_cast<std::uint64_t>(static_cast<const char*>(shared) - geometry.base);
    if (off >= geometry.span) return;
    const auto to = static_cast<int>(off >> geometry.shift);
    if (to == thread) return;
    site_histogram* h = histogram_of(site, line, kind, function);
    if (h == nullptr) {
      ++lost;
      return;
    }
    try {
      h->add(stack.access(unit_of(off, to, bytes, kind)));
    } catch (...) {  // no memory to grow the stack: start it again
      stack.clear();
      ++lost;
    }
  }
};

void reuse_element(reuse_thread& r, std::uintptr_t pc, const void* element,
                   std::size_t bytes) noexcept {
  r.record(pc, trace_pc_site, trace_kind::element, nullptr, element, bytes);
}

void reuse_call(reuse_thread& r, trace_kind kind, const void* shared, std::size_t bytes,
                const std::source_location& where) noexcept {
  r.record(reinterpret_cast<std::uintptr_t>(where.file_name()), where.line(), kind,
           where.function_name(), shared, bytes);
}

void reuse_allocation(std::uint64_t offset, std::size_t bytes, std::size_t block,
                      int thread) noexcept {
  if (!the_recorder.on || bytes == 0) return;
  block_registry& r = the_blocks();
  try {
    std::unique_lock lock(r.mutex);
    r.live[{thread, offset}] = {offset + bytes, block};
    r.generation.fetch_add(1, std::memory_order_release);
  } catch (...) {  // the range stays unknown: its accesses count per element
  }
}

void reuse_release(std::uint64_t offset, int thread) noexcept {
  if (!the_recorder.on) return;
  block_registry& r = the_blocks();
  std::unique_lock lock(r.mutex);
  if (r.live.erase({thread, offset}) != 0) r.generation.fetch_add(1, std::memory_order_release);
}

// ---- the job ------------------------------------------------------------------------------

void reuse_job_begin(job& j, const std::string& path, std::string_view grain_word,
                     std::string_view mode_word) {
  check_replaceable(path);
  the_recorder.path = path;
  the_recorder.unit = grain_word == "line"    ? grain::line
                      : grain_word == "block" ? grain::block
                                              : grain::element;
  the_recorder.mode = mode_word == "approximate" ? reuse_mode::approximate : reuse_mode::exact;
  the_recorder.threads.clear();
  for (int t = 0; t < j.threads; ++t)
    the_recorder.threads.push_back(std::make_unique<reuse_thread>(t, the_recorder.mode));
  {
    std::unique_lock lock(the_blocks().mutex);
    the_blocks().live.clear();
  }
  the_recorder.on = true;
  trace_hooks_set(true);
}

void reuse_thread_begin(int thread) {
  if (!the_recorder.on) return;
  reuse_mine = the_recorder.threads[static_cast<std::size_t>(thread)].get();
  sync_listen(reuse_mine);
  if (!tracing()) {  // the tracer counts own accesses too
    trace_skip_lo = reinterpret_cast<std::uintptr_t>(geometry.base) +
                    static_cast<std::uintptr_t>(thread) * geometry.segment;
    trace_skip_bytes = geometry.segment;
  }
}

void reuse_thread_end() noexcept {
  trace_skip_lo = 0;
  trace_skip_bytes = 0;
  if (reuse_mine == nullptr) return;
  sync_unlisten(reuse_mine);
  reuse_mine = nullptr;
}

namespace {

const char* grain_name(grain g) {
  switch (g) {
    case grain::element:
      return "element";
    case grain::line:
      return "line";
    case grain::block:
      return "block";
  }
  return "element";
}

std::string reuse_file_text(const job& j) {
  nlohmann::json doc;
  doc["format"] = "pgas-reuse";
  doc["version"] = 1;
  doc["program"] = trace_program(j);
  nlohmann::json args = nlohmann::json::array();
  for (int i = 1; i < j.argc; ++i)
    args.push_back(j.argv[i] != nullptr ? j.argv[i] : "");
  doc["arguments"] = std::move(args);
  doc["threads"] = j.threads;
  doc["size"] = size_declared.load() ? nlohmann::json(declared_size.load()) : nlohmann::json();
  doc["grain"] = grain_name(the_recorder.unit);
  std::size_t grain_bytes = the_recorder.unit == grain::line ? line_bytes : 0;
  std::size_t other_bytes = 0;
  for (const auto& t : the_recorder.threads) {
    grain_bytes = std::max(grain_bytes, t->largest_unit);
    other_bytes = std::max(other_bytes, t->largest_other);
  }
  if (grain_bytes == 0) grain_bytes = other_bytes;
  doc["grain_bytes"] = grain_bytes;
  const bool approximate = the_recorder.mode == reuse_mode::approximate;
  doc["mode"] = approximate ? "approximate" : "exact";
  doc["error_bound"] = approximate ? reuse_error_bound : 0.0;

  std::vector<std::uintptr_t> pcs;
  for (const auto& t : the_recorder.threads)
    for (const auto& h : t->sites)
      if (h->line == trace_pc_site) pcs.push_back(h->site);
  const auto pc_sites = trace_attribute(std::move(pcs));

  // Sites by (file, line, function, kind), numbered in order of first appearance; several
  // code addresses of one line (an unrolled loop) are merged into the line's histogram.
  std::map<std::tuple<std::string, int, std::string, trace_kind>, int> ids;
  nlohmann::json sites = nlohmann::json::array();
  nlohmann::json histograms = nlohmann::json::array();
  for (const auto& t : the_recorder.threads) {
    std::map<int, site_histogram> merged;
    for (const auto& h : t->sites) {
      trace_site_text text;
      if (h->line == trace_pc_site) {
        text = pc_sites.at(h->site);
      } else {
        text = {reinterpret_cast<const char*>(h->site), static_cast<int>(h->line),
                h->function != nullptr ? h->function : ""};
      }
      auto [it, added] = ids.try_emplace({text.file, text.line, text.function, h->kind},
                                         static_cast<int>(ids.size()));
      if (added) {
        sites.push_back({{"id", it->second},
                         {"file", text.file},
                         {"line", text.line},
                         {"function", text.function},
                         {"kind", trace_kind_name(h->kind)}});
      }
      merged[it->second].merge(*h);
    }
    for (const auto& [site, h] : merged) {
      if (h.accesses == 0) continue;
      nlohmann::json bins = nlohmann::json::array();
      std::uint64_t counted = 0;
      for (std::size_t k = 0; k < h.bins.size(); ++k) {
        const bin_stats& b = h.bins[k];
        const auto count = static_cast<std::uint64_t>(std::llround(b.count));
        if (count == 0) continue;
        counted += count;
        bins.push_back({{"bin", k},
                        {"count", count},
                        {"min", b.min},
                        {"max", b.max},
                        {"mean", b.sum / b.count}});
      }
      // Exact: the first accesses counted. Approximate: what the bins leave of the accesses,
      // so that infinite and the bins always sum to the accesses.
      const std::uint64_t infinite = approximate
                                         ? (h.accesses > counted ? h.accesses - counted : 0)
                                         : static_cast<std::uint64_t>(std::llround(h.infinite));
      histograms.push_back({{"thread", t->thread},
                            {"site", site},
                            {"accesses", h.accesses},
                            {"infinite", infinite},
                            {"bins", std::move(bins)}});
    }
  }
  doc["sites"] = std::move(sites);
  doc["histograms"] = std::move(histograms);
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace

bool reuse_job_end(const job& j) {
  if (!the_recorder.on) return true;
  the_recorder.on = false;
  trace_hooks_set(false);
  reuse_mine = nullptr;
  std::uint64_t overflows = 0, lost = 0;
  for (const auto& t : the_recorder.threads) {
    overflows += t->stack.overflows();
    lost += t->lost;
  }
  bool ok = true;
  try {
    replace_file(the_recorder.path, reuse_file_text(j));
  } catch (const std::exception& e) {
    os_write_stderr(
        fmt::format("pgas: error: the reuse distances were not written: {}\n", e.what()));
    ok = false;
  }
  the_recorder.threads.clear();
  size_declared.store(false, std::memory_order_relaxed);
  {
    std::unique_lock lock(the_blocks().mutex);
    the_blocks().live.clear();
  }
  if (ok && overflows != 0) {
    os_write_stderr(fmt::format(
        "pgas: warning: reuse recording dropped every thread's last uses {} times at its bound "
        "of {} live units per thread: the accesses after each drop count as first accesses\n",
        overflows, max_live_units));
  }
  if (ok && lost != 0) {
    os_write_stderr(fmt::format(
        "pgas: warning: reuse recording ran out of memory: {} accesses were not recorded\n", lost));
  }
  return ok;
}

}  // namespace pgas::detail

// ---- pgas/reuse.hpp -----------------------------------------------------------------------

namespace pgas {

void reuse_size(std::uint64_t size) noexcept {
  detail::declared_size.store(size, std::memory_order_relaxed);
  detail::size_declared.store(true, std::memory_order_relaxed);
}

bool reusing() noexcept {
  return detail::the_recorder.on;
}

}  // namespace pgas
