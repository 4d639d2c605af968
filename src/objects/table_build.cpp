// src/objects/table_build.cpp — building privatization tables at run time (pgas/privatize.hpp):
// the collective table_build, the filling of one replica (Serres et al., Figures 4 and 5), the
// reference count that frees replicas with the last handle, and the job's table registry behind
// `pgasrun --report tables` (printed and forgotten by a job_on_end hook). Sizes come from the
// table model (src/models/table_shape.cpp), memory from alloc/replicas.cpp.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <pgas/alloc.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/privatize.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "alloc/replicas.hpp"
#include "alloc/space.hpp"
#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/barrier.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"
#include "src/objects/table_build.hpp"

namespace pgas::detail {

namespace {

// One table the job built, as the exit report shows it. Kept after the table is freed.
struct table_record {
  int id = 0;
  std::string array;  // "shared [1024] T32 [1024][1024]": the type, T<bits> for the element
  std::size_t element_size = 0;
  std::string where;  // the privatize() or shared_array call site
  bool automatic = false;
  replicate policy = replicate::single;
  table_levels levels = table_levels::one;
  bool sorted = false;
  table_shape::kind kind = table_shape::kind::rows_in_blocks;
  int replicas = 0;
  std::size_t entries = 0;
  std::size_t bytes = 0;   // one replica
  std::size_t mapped = 0;  // all replicas, whole pages
  std::size_t data_bytes = 0;
  bool live = true;
  std::vector<std::string> shared_by;  // privatize() calls that reused this table
};

std::mutex registry_lock;  // build and release only, never on an access path
std::vector<table_record> registry;

}  // namespace

struct table_state {
  std::atomic<int> refs{0};
  int id = 0;
  replica_plan plan;
  table_levels levels = table_levels::one;
  bool sorted = false;
  std::size_t bytes = 0;  // one replica
  std::vector<void*> base;
  std::atomic<int> failed{0};  // -errno of a replica that could not be mapped or sealed
  int failed_replica = -1;
};

namespace {

// Fills one replica at `out` (shape.entries() pointers): the last level points at the
// segments, each earlier level at the rows of the next.
void fill_replica(void** out, const layout& l, std::size_t element_size, char* data0,
                  const table_shape& shape) {
  const std::vector<std::size_t>& ext = shape.index_extents();
  const std::vector<std::size_t>& order = shape.level_order();
  const std::size_t k = ext.size();
  const std::size_t n = l.rank();
  const bool one = shape.levels() == table_levels::one;

  // Where each level starts, and (n−1 levels) the stride of every index dimension in the last
  // level's row-major order over the ordered dimensions.
  std::vector<std::size_t> level_start;
  std::size_t at = 0;
  for (std::size_t e : shape.level_entries()) {
    level_start.push_back(at);
    at += e;
  }
  void** last = out + level_start.back();
  std::vector<std::size_t> stride(k, 1);
  if (!one) {
    std::size_t s = 1;
    for (std::size_t m = k; m-- > 0;) {
      stride[order[m]] = s;
      s *= ext[order[m]];
    }
  } else {
    std::size_t s = 1;
    for (std::size_t m = k; m-- > 0;) {
      stride[m] = s;
      s *= ext[m];
    }
  }

  // Every segment, in natural order (an odometer over the index dimensions).
  std::vector<std::size_t> v(k, 0);
  std::vector<std::size_t> idx(n, 0);
  const std::size_t segments = shape.level_entries().back();
  const bool split = shape.segments_per_row() > 1;
  for (std::size_t count = 0; count < segments; ++count) {
    for (std::size_t d = 0; d + 1 < n; ++d)
      idx[d] = v[d];
    idx[n - 1] = split ? v[k - 1] * shape.segment() : 0;
    const element_place p = l.tiled() ? l.place(idx) : l.place_linear(l.linear(idx));
    std::size_t pos = 0;
    for (std::size_t m = 0; m < k; ++m)
      pos += v[m] * stride[m];
    last[pos] =
        data0 + (static_cast<std::size_t>(p.thread) << geometry.shift) + p.offset * element_size;
    for (std::size_t m = k; m-- > 0;) {
      if (++v[m] < ext[m]) break;
      v[m] = 0;
    }
  }
  // Level m's entry p points at row p of level m + 1 (rows of the next ordered extent).
  if (!one) {
    for (std::size_t m = 0; m + 1 < level_start.size(); ++m) {
      const std::size_t next = ext[order[m + 1]];
      for (std::size_t p = 0; p < shape.level_entries()[m]; ++p)
        out[level_start[m] + p] = out + level_start[m + 1] + p * next;
    }
  }
}

}  // namespace

namespace {

// This thread's handle on table s: its replica's root, or the data itself for an empty index.
table_ref table_ref_of(const table_state& s, char* data0) {
  table_ref out;
  out.state = const_cast<table_state*>(&s);
  out.replica = s.plan.replica_of[static_cast<std::size_t>(mythread())];
  out.root = s.bytes > 0
                 ? static_cast<const void* const*>(s.base[static_cast<std::size_t>(out.replica)])
                 : reinterpret_cast<const void* const*>(data0);
  return out;
}

// Collective: one more reference per thread to an existing table, after the same agreement a
// build makes; the report lists where it was privatized again.
table_ref table_share(job& j, table_state* s, const barrier_op& agree, char* data0,
                      const std::source_location& where) {
  if (mythread() == 0) {
    std::lock_guard<std::mutex> g(registry_lock);
    for (table_record& r : registry)
      if (r.id == s->id) r.shared_by.push_back(where_string(where));
  }
  // Every thread's array holds a reference until this returns, so s outlives the barrier.
  s->refs.fetch_add(1, std::memory_order_relaxed);
  barrier_arrive(j, agree);
  barrier_complete(j);
  return table_ref_of(*s, data0);
}

}  // namespace

table_ref table_build(const layout& l, std::size_t element_size, char* data0,
                      const table_shape& shape, replicate policy, bool automatic,
                      table_state* reuse, const std::source_location& where) {
  job* j = job_current();
  if (j == nullptr) misuse("pgas::privatize called outside a job", where);
  const int me = mythread();
  const replica_plan plan = job_replica_plan(policy);
  const std::size_t bytes = shape.bytes();

  // Every thread must privatize the same array with the same options: the first barrier
  // compares a hash of both, and a mismatch report shows each thread's call.
  const barrier_op agree =
      agreement(op_kind::privatize, "pgas::privatize", "table",
                fmt::format("{} ({}-byte elements), levels {}{}, replicas {}",
                            l.declaration("T", "A"), element_size, to_string(shape.levels()),
                            shape.sorted() ? " sorted" : "", to_string(policy)),
                where);
  // The array's automatic table, when it is the table asked for: every input is the same on
  // every thread (the agreement checks it), so all threads take this branch or none.
  if (reuse != nullptr && reuse->levels == shape.levels() && reuse->sorted == shape.sorted() &&
      reuse->plan.replica_of == plan.replica_of) {
    return table_share(*j, reuse, agree, data0, where);
  }
  table_state* mine = nullptr;
  if (me == 0) {
    mine = new table_state;
    mine->refs.store(j->threads, std::memory_order_relaxed);
    mine->plan = plan;
    mine->levels = shape.levels();
    mine->sorted = shape.sorted();
    mine->bytes = bytes;
    mine->base.assign(static_cast<std::size_t>(plan.count()), nullptr);
    std::lock_guard<std::mutex> g(registry_lock);
    mine->id = static_cast<int>(registry.size()) + 1;
    table_record r;
    r.id = mine->id;
    // The runtime does not know the program's name for the array: the row shows its type
    // (`shared [256] T32 [256][256]`, as C writes a type name) and where it was built.
    r.array = l.declaration(fmt::format("T{}", element_size * 8), "");
    r.element_size = element_size;
    r.where = where_string(where);
    r.automatic = automatic;
    r.policy = plan.policy;
    r.levels = shape.levels();
    r.sorted = shape.sorted();
    r.kind = shape.which();
    r.replicas = plan.count();
    r.entries = shape.entries();
    r.bytes = bytes;
    r.mapped = replica_mapped_size(bytes) * static_cast<std::size_t>(plan.count());
    r.data_bytes = l.size() * element_size;
    registry.push_back(std::move(r));
  }
  auto* s = static_cast<table_state*>(collective_bcast(*j, agree, mine));

  // The replica's filler maps it on its readers' node, fills it (the first touch) and seals it.
  const int r = plan.replica_of[static_cast<std::size_t>(me)];
  if (bytes > 0 && plan.filler[static_cast<std::size_t>(r)] == me) {
    // Bind only when threads really are bound where the plan says (as segments are).
    const space* sp = space_current();
    const int node = sp != nullptr && !sp->nodes.empty() && sp->nodes[0] >= 0
                         ? plan.node[static_cast<std::size_t>(r)]
                         : -1;
    int error = 0;
    void* base = replica_map(bytes, node, &error);
    if (base != nullptr) {
      fill_replica(static_cast<void**>(base), l, element_size, data0, shape);
      error = replica_seal(base, bytes, s->id, r);
    }
    s->base[static_cast<std::size_t>(r)] = base;
    if (error != 0) {
      int expected = 0;
      if (s->failed.compare_exchange_strong(expected, error)) s->failed_replica = r;
    }
  }
  barrier_arrive(
      *j, barrier_op{op_kind::privatize, "pgas::privatize", false, 0, "", where, agree.detail});
  barrier_complete(*j);

  if (const int error = s->failed.load(std::memory_order_acquire); error != 0) {
    const int failed_replica = s->failed_replica;
    table_release(s);
    throw bad_shared_alloc(me, bytes, 0,
                           fmt::format("cannot map replica {} of a privatization table of {} "
                                       "bytes: {}",
                                       failed_replica, bytes, std::strerror(-error)));
  }
  return table_ref_of(*s, data0);
}

void table_release(table_state* s) noexcept {
  if (s == nullptr || s->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  for (void* b : s->base)
    if (b != nullptr) replica_unmap(b, s->bytes);
  {
    std::lock_guard<std::mutex> g(registry_lock);
    for (table_record& r : registry)
      if (r.id == s->id) r.live = false;
  }
  delete s;
}

int table_replicas(const table_state* s) noexcept {
  return s != nullptr ? s->plan.count() : 0;
}

int table_replica_of(const table_state* s, int thread) noexcept {
  if (s == nullptr || thread < 0 || static_cast<std::size_t>(thread) >= s->plan.replica_of.size())
    return -1;
  return s->plan.replica_of[static_cast<std::size_t>(thread)];
}

replicate table_policy(const table_state* s) noexcept {
  return s != nullptr ? s->plan.policy : replicate::single;
}

std::size_t table_mapped_bytes(const table_state* s) noexcept {
  return s != nullptr ? replica_mapped_size(s->bytes) * static_cast<std::size_t>(s->plan.count())
                      : 0;
}

bool tables_auto_enabled() noexcept {
  const job* j = job_current();
  return j == nullptr || j->tables_auto;
}

bool table_auto_pays(const layout& l, std::size_t element_size, const table_shape& shape,
                     const replica_plan& plan) {
  std::size_t total = 0;
  std::size_t data = 0;
  if (__builtin_mul_overflow(shape.entries() * sizeof(void*),
                             static_cast<std::size_t>(plan.count()) * 32, &total) ||
      __builtin_mul_overflow(l.size(), element_size, &data))
    return false;
  return total <= data;
}

replica_plan job_replica_plan(replicate policy) {
  job* j = job_current();
  if (j == nullptr) {
    replica_plan p;
    p.policy = replicate::single;
    p.replica_of = {0};
    p.filler = {0};
    p.node = {-1};
    return p;
  }
  return plan_replicas(j->plan_machine, j->plan, policy);
}

}  // namespace pgas::detail

namespace pgas {

replicate job_replica_policy(replicate policy) {
  return detail::job_replica_plan(policy).policy;
}

int job_replica_count(replicate policy) {
  return detail::job_replica_plan(policy).count();
}

}  // namespace pgas

namespace pgas::detail {

namespace {

// Every table the job built: array, layout kind, policy, levels, entries, bytes per replica,
// replicas, total and mapped bytes, overhead against the array's data, live or freed, and
// where it was built.
std::string tables_report() {
  std::lock_guard<std::mutex> g(registry_lock);
  std::size_t live = 0;
  std::size_t width = 5;
  std::set<std::size_t> element_sizes;
  for (const table_record& r : registry) {
    live += r.live ? 1 : 0;
    width = std::max(width, r.array.size());
    element_sizes.insert(r.element_size);
  }
  // The legend names the element types the rows use: T32 for 4-byte elements, T64 for 8, ...
  std::vector<std::string> legend;
  for (std::size_t bytes : element_sizes)
    legend.push_back(fmt::format("T{}: {}-byte elements", bytes * 8, bytes));
  std::string out =
      fmt::format("pgas: privatization tables: {} built during the job, {} live at exit{}{}{}\n",
                  registry.size(), live, legend.empty() ? "" : " (", fmt::join(legend, ", "),
                  legend.empty() ? "" : ")");
  if (registry.empty()) return out;
  out += fmt::format(
      "  {:>5}  {:<{}}  {:<14}  {:<10}  {:<6}  {:>9}  {:>11}  {:>8}  {:>12}  {:>12}  {:>9}  {}\n",
      "table", "array", width, "layout", "replicas", "levels", "entries", "bytes", "copies",
      "total bytes", "mapped", "overhead", "state, built at");
  for (const table_record& r : registry) {
    const std::size_t total = r.bytes * static_cast<std::size_t>(r.replicas);
    const double pct = r.data_bytes == 0
                           ? 0.0
                           : 100.0 * static_cast<double>(total) / static_cast<double>(r.data_bytes);
    out += fmt::format(
        "  {:>5}  {:<{}}  {:<14}  {:<10}  {:<6}  {:>9}  {:>11}  {:>8}  {:>12}  {:>12}  {:>8.2f}%  "
        "{}{}, {}{}\n",
        r.id, r.array, width, table_shape::to_string(r.kind), to_string(r.policy),
        fmt::format("{}{}", to_string(r.levels), r.sorted ? " sort" : ""), r.entries, r.bytes,
        r.replicas, total, r.mapped, pct, r.live ? "live" : "freed",
        r.automatic ? " (automatic)" : "", r.where,
        r.shared_by.empty()
            ? ""
            : fmt::format("; privatized without a copy at {}", fmt::join(r.shared_by, ", ")));
  }
  return out;
}

// When a job ends: its report, if asked for, then the registry is forgotten.
void tables_at_job_end(const job& j) {
  if (j.report_tables) os_write_stderr(tables_report());
  std::lock_guard<std::mutex> g(registry_lock);
  registry.clear();
}

const bool registered = (job_on_end(tables_at_job_end), true);

}  // namespace

const void* const* null_rows(std::size_t rows, const std::source_location& where) {
  // Regions only grow; an old one stays mapped, as arrays made before still point into it.
  static std::mutex m;
  static const void* const* region = nullptr;
  static std::size_t held = 0;  // pointers in `region`
  const std::lock_guard lock(m);
  if (rows <= held && region != nullptr) return region;
  constexpr std::size_t most = std::size_t{1} << 60;
  const std::size_t want = std::max<std::size_t>(rows, std::size_t{1} << 18);  // 2 MiB at least
  const std::size_t bytes = want > most / sizeof(void*) ? 0 : std::bit_ceil(want * sizeof(void*));
  void* p = bytes == 0 ? nullptr : os_reserve(bytes);
  if (p != nullptr && os_make_readonly(p, bytes) != 0) {
    os_release(p, bytes);
    p = nullptr;
  }
  if (p == nullptr) {
    misuse(fmt::format("cannot map {} bytes of read-only address space for the null row pointers "
                       "of a shared array of {} rows",
                       want * sizeof(void*), rows),
           where);
  }
  region = static_cast<const void* const*>(p);
  held = bytes / sizeof(void*);
  return region;
}

}  // namespace pgas::detail
