// alloc/space.cpp — the job's shared space (see space.hpp): reserving THREADS power-of-two
// segments, binding each to its owner's NUMA node, and committing regions as they grow.
//
// The reservation asks for transparent huge pages: first touch costs ~1 s/GiB with 4 KiB pages
// and ~50 ms/GiB with 2 MiB pages on our machines, and shared arrays are touched in bulk.

#include "alloc/space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <mutex>
#include <stdexcept>

#include "src/base/os.hpp"

namespace pgas::detail {

std::atomic<space*> space_instance{nullptr};
shared_geometry geometry;

namespace {

constexpr std::size_t commit_step = std::size_t{2} << 20;  // 2 MiB: one huge page
// Address space the reservation may take: 32 TiB of the 128 TiB user space on x86-64.
constexpr std::size_t reservation_budget = std::size_t{1} << 45;
constexpr std::size_t max_segment = std::size_t{1} << 36;  // 64 GiB per thread
constexpr std::size_t min_segment = std::size_t{1} << 26;  // 64 MiB per thread

std::mutex symmetric_mutex;
std::unique_ptr<std::mutex[]> local_mutexes;

std::size_t round_up(std::size_t v, std::size_t to) noexcept {
  return (v + to - 1) / to * to;
}

}  // namespace

void space_create(int threads, const std::vector<int>& nodes, std::size_t limit) {
  auto s = std::make_unique<space>();
  s->threads = threads;
  s->nodes = nodes;
  s->accounts = std::make_unique<segment_account[]>(static_cast<std::size_t>(threads));
  s->local_committed =
      std::make_unique<std::atomic<std::size_t>[]>(static_cast<std::size_t>(threads));
  local_mutexes = std::make_unique<std::mutex[]>(static_cast<std::size_t>(threads));

  // Reserve generously, halving when the system refuses (sanitizers, ulimit -v).
  // The pointer-to-shared word holds offsets below 2^sptr_offset_bits (pgas/config.hpp).
  const std::size_t budget =
      std::min(reservation_budget, std::size_t{1} << pgas::config::sptr_offset_bits);
  std::size_t seg =
      std::min(max_segment, std::bit_floor(budget / static_cast<std::size_t>(threads)));
  for (; seg >= min_segment; seg /= 2) {
    const std::size_t bytes = seg * static_cast<std::size_t>(threads) + commit_step;
    if (void* m = os_reserve(bytes)) {
      s->mapping = static_cast<char*>(m);
      s->reserved = bytes;
      break;
    }
  }
  if (s->mapping == nullptr) {
    throw std::runtime_error(fmt::format(
        "cannot reserve the shared space: even {} MiB per thread for {} threads was refused{}",
        min_segment >> 20, threads,
        seg < min_segment && budget / static_cast<std::size_t>(threads) < min_segment
            ? fmt::format(" (pointers-to-shared address at most 2^{} bytes; rebuild with a "
                          "smaller -Dsptr_phase_bits)",
                          pgas::config::sptr_offset_bits)
            : std::string()));
  }
  s->segment_size = seg;
  s->segment_shift = std::countr_zero(seg);
  s->base =
      reinterpret_cast<char*>(round_up(reinterpret_cast<std::uintptr_t>(s->mapping), commit_step));
  s->heap = std::make_unique<symmetric_heap>(s->symmetric_size(), symmetric_heap::alignment);
  s->limit = limit != 0 ? std::min(limit, s->symmetric_size()) : s->symmetric_size();
  if (limit > s->symmetric_size()) {
    os_write_stderr(fmt::format(
        "pgas: warning: a shared heap of {} MiB per thread (PGAS_SHARED_HEAP_SIZE, "
        "--shared-heap) is more than a thread's segment holds here: the limit is {} MiB\n",
        limit >> 20, s->symmetric_size() >> 20));
  }

  os_advise_hugepages(s->base, seg * static_cast<std::size_t>(threads));
  bool warned = false;
  for (int t = 0; t < threads; ++t) {
    const int node = nodes[static_cast<std::size_t>(t)];
    if (node < 0) continue;
    if (int r = os_bind_memory(s->segment(t), seg, node); r != 0 && !warned) {
      warned = true;
      os_write_stderr(
          fmt::format("pgas: warning: cannot bind shared segments to NUMA nodes "
                      "({}); pages go where they are first touched\n",
                      std::strerror(-r)));
      s->nodes.assign(s->nodes.size(), -1);
      break;
    }
  }
  geometry.base = s->base;
  geometry.shift = static_cast<unsigned>(s->segment_shift);
  geometry.segment = seg;
  geometry.threads = static_cast<unsigned>(threads);
  geometry.span = static_cast<std::uint64_t>(threads) << s->segment_shift;
  geometry.threads_div = libdivide::divider<std::uint64_t>(static_cast<std::uint64_t>(threads));
  geometry.symmetric_committed = &s->symmetric_committed;
  geometry.local_committed = s->local_committed.get();
  space_instance.store(s.release(), std::memory_order_release);
}

std::string space_report() {
  const space* s = space_current();
  if (s == nullptr) return {};
  auto mib = [](std::size_t b) {
    return fmt::format("{:.1f}", static_cast<double>(b) / (1 << 20));
  };
  std::string out =
      fmt::format("pgas: shared memory at exit: {} segments of {} GiB, limit {} MiB per thread\n",
                  s->threads, s->segment_size >> 30, mib(s->limit));
  out += fmt::format("{:>6}  {:>4}  {:>14}  {:>14}\n", "thread", "NUMA", "allocated MiB",
                     "committed MiB");
  const std::size_t sym = s->symmetric_committed.load();
  std::size_t total_alloc = 0;
  std::size_t total_commit = 0;
  for (int t = 0; t < s->threads; ++t) {
    const segment_account& a = s->account(t);
    const std::size_t alloc = a.total();
    const std::size_t commit = sym + s->local_committed[static_cast<std::size_t>(t)].load();
    total_alloc += alloc;
    total_commit += commit;
    const int node = s->nodes[static_cast<std::size_t>(t)];
    out +=
        fmt::format("{:>6}  {:>4}  {:>14}  {:>14}\n", t,
                    node < 0 ? std::string("-") : fmt::format("{}", node), mib(alloc), mib(commit));
  }
  out += fmt::format("{:>6}  {:>4}  {:>14}  {:>14}\n", "total", "", mib(total_alloc),
                     mib(total_commit));
  return out;
}

void space_destroy() noexcept {
  space* s = space_instance.exchange(nullptr, std::memory_order_acq_rel);
  if (s == nullptr) return;
  geometry = shared_geometry{};
  os_release(s->mapping, s->reserved);
  delete s;
  local_mutexes.reset();
}

bool space_commit_symmetric(std::size_t end_offset) noexcept {
  space* s = space_current();
  if (end_offset > s->symmetric_size()) return false;
  if (end_offset <= s->symmetric_committed.load(std::memory_order_acquire)) return true;
  std::lock_guard g(symmetric_mutex);
  const std::size_t have = s->symmetric_committed.load(std::memory_order_relaxed);
  const std::size_t want = std::min(round_up(end_offset, commit_step), s->symmetric_size());
  if (want <= have) return true;
  for (int t = 0; t < s->threads; ++t) {
    if (os_make_accessible(s->segment(t) + have, want - have) != 0) return false;
  }
  s->symmetric_committed.store(want, std::memory_order_release);
  return true;
}

void* space_local_carve(int thread, std::size_t size, std::size_t alignment) noexcept {
  space* s = space_current();
  segment_account& a = s->account(thread);
  std::lock_guard g(local_mutexes[static_cast<std::size_t>(thread)]);
  char* region = s->segment(thread) + s->symmetric_size();
  // Aligned as an address, not as an offset in the region: the region itself is aligned only
  // to its size, below what jemalloc may ask for (an aligned local_alloc).
  const auto base = reinterpret_cast<std::uintptr_t>(region);
  const std::uintptr_t top = base + a.local_top.load(std::memory_order_relaxed);
  const std::uintptr_t mask = std::max<std::size_t>(alignment, 1) - 1;
  if (top + mask < top) return nullptr;
  const std::size_t start = ((top + mask) & ~mask) - base;
  if (start + size > s->local_size() || start + size < start) return nullptr;
  std::atomic<std::size_t>& local_committed = s->local_committed[static_cast<std::size_t>(thread)];
  const std::size_t committed = local_committed.load(std::memory_order_relaxed);
  if (start + size > committed) {
    const std::size_t want = std::min(round_up(start + size, commit_step), s->local_size());
    if (os_make_accessible(region + committed, want - committed) != 0) return nullptr;
    // Release: a bulk check that sees an allocation's pointer sees its pages committed.
    local_committed.store(want, std::memory_order_release);
  }
  a.local_top.store(start + size, std::memory_order_relaxed);
  return region + start;
}

}  // namespace pgas::detail
