// alloc/arenas.cpp — jemalloc arenas with our own extent hooks (see arenas.hpp): per-thread
// arenas carving the shared space's local regions (arena_local_alloc) and per-NUMA-node arenas
// of bound anonymous memory (arena_private_alloc).
//
// Hooks follow jemalloc's extent_hooks_t contract (false = done, true = opted out); jemalloc
// may call them from any thread, e.g. a purge triggered by another thread's free.

#include "alloc/arenas.hpp"

#include <jemalloc/jemalloc.h>

#include <fmt/format.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <pgas/config.hpp>

#include "alloc/space.hpp"
#include "src/base/os.hpp"

// jemalloc numbers arenas with 12 bits of the MALLOCX flags, so a process has at most 4095
// (indices 0 to 4094, MALLOCX_ARENA_LIMIT), automatic ones included, and its default is 4 per
// CPU plus one for huge allocations: on a 256-CPU machine that alone leaves fewer than 3100 for
// our threads. Linking libpgas fixes the automatic arenas at 8 (the default of a 2-CPU machine;
// measured: local_alloc, malloc and mallocx pairs per second at 2 and 8 threads agree within
// noise with 1, 4 and 8). jemalloc reads this before main; a MALLOC_CONF setting overrides it.
const char* malloc_conf = "narenas:8";

namespace pgas::detail {

namespace {

// jemalloc's size classes above 8 bytes are multiples of 16 and each block is aligned to its
// class's largest power-of-two divisor (up to a page), so asking for at least 16 bytes gives
// max_align_t alignment without MALLOCX_ALIGN's slower path. Also makes n == 0 legal.
constexpr std::size_t min_bytes = 16;
static_assert(alignof(std::max_align_t) <= min_bytes);

std::size_t at_least_min(std::size_t n) noexcept {
  return n < min_bytes ? min_bytes : n;
}

// The thread limit is reachable: one arena per thread, the automatic ones (malloc_conf
// above, and the huge-allocation arena) and one private arena for each of up to 54 NUMA nodes
// fit jemalloc's 4095.
constexpr int jemalloc_arena_limit = 4095;
constexpr int automatic_arenas = 8 + 1;
constexpr int private_arenas_reserved = 54;
static_assert(config::max_threads + automatic_arenas + private_arenas_reserved <=
                  jemalloc_arena_limit,
              "-Dmax_threads leaves jemalloc too few arenas for one per thread");

// Layout of jemalloc 5.3's arena_config_t, the argument of "experimental.arenas_create_ext".
struct arena_config {
  extent_hooks_t* extent_hooks;
  bool metadata_use_hooks;
};

// Creates an arena with `hooks`; 0 or an errno value. jemalloc's own metadata for the arena
// (extent descriptors, 2 MiB base blocks) stays in jemalloc's default memory, so the shared
// segments hold only user blocks; plain "arenas.create" (metadata through the hooks too) is
// the fallback for a jemalloc without the extended call.
int arena_new(extent_hooks_t* hooks, unsigned* index) noexcept {
  std::size_t len = sizeof(*index);
  arena_config config{hooks, false};
  if (mallctl("experimental.arenas_create_ext", index, &len, &config, sizeof(config)) == 0) {
    return 0;
  }
  len = sizeof(*index);
  return mallctl("arenas.create", index, &len, &hooks, sizeof(hooks));
}

void arena_delete(unsigned index) noexcept {
  std::size_t mib[3];
  std::size_t miblen = 3;
  if (mallctlnametomib("arena.0.destroy", mib, &miblen) != 0) return;
  mib[1] = index;
  mallctlbymib(mib, miblen, nullptr, nullptr, nullptr, 0);
}

// Hooks shared by both kinds: memory is always committed (read-write), so commit is trivially
// done and decommit is declined; purging returns physical pages but keeps the range mapped.
bool extent_commit(extent_hooks_t*, void*, std::size_t, std::size_t, std::size_t,
                   unsigned) noexcept {
  return false;
}
bool extent_decommit(extent_hooks_t*, void*, std::size_t, std::size_t, std::size_t,
                     unsigned) noexcept {
  return true;
}
bool extent_purge_lazy(extent_hooks_t*, void* addr, std::size_t, std::size_t offset,
                       std::size_t length, unsigned) noexcept {
  return os_advise_free(static_cast<char*>(addr) + offset, length) != 0;
}
// jemalloc takes a forced purge to leave zeros behind, so a failure must be reported.
bool extent_purge_forced(extent_hooks_t*, void* addr, std::size_t, std::size_t offset,
                         std::size_t length, unsigned) noexcept {
  return os_advise_dontneed(static_cast<char*>(addr) + offset, length) != 0;
}
// Splitting and merging are pure bookkeeping: an arena's extents are ranges of one mapping
// (a local region) or of adjacent anonymous mappings, which Linux unmaps in one call.
bool extent_split(extent_hooks_t*, void*, std::size_t, std::size_t, std::size_t, bool,
                  unsigned) noexcept {
  return false;
}
bool extent_merge(extent_hooks_t*, void*, std::size_t, void*, std::size_t, bool,
                  unsigned) noexcept {
  return false;
}
// Declining dalloc makes jemalloc retain the extent and reuse it for later allocations.
bool extent_dalloc_retain(extent_hooks_t*, void*, std::size_t, bool, unsigned) noexcept {
  return true;
}

// ---- Local arenas ----

// One per UPC thread. `hooks` comes first: jemalloc hands its address back to every hook,
// which recovers the record from it.
struct alignas(64) local_arena {
  extent_hooks_t hooks{};
  int thread = 0;
  unsigned index = 0;  // jemalloc's arena index
  bool created = false;
  int shared_flags = 0;  // any thread: MALLOCX_ARENA | MALLOCX_TCACHE_NONE
  std::uintptr_t segment = 0;
  std::size_t segment_size = 0;
  // Written only by the owning thread (and by arenas_destroy once it is gone).
  bool has_tcache = false;
  unsigned tcache = 0;
  int own_alloc_flags = 0;  // MALLOCX_ARENA | MALLOCX_TCACHE(tcache)
  int own_free_flags = 0;   // MALLOCX_TCACHE(tcache)
};

local_arena& local_of(extent_hooks_t* hooks) noexcept {
  return *reinterpret_cast<local_arena*>(hooks);
}

// Fresh carves were never touched (the space never hands memory out twice), so they are zero.
// new_addr asks to grow an extent in place, which carving cannot promise.
void* local_extent_alloc(extent_hooks_t* hooks, void* new_addr, std::size_t size,
                         std::size_t alignment, bool* zero, bool* commit, unsigned) noexcept {
  if (new_addr != nullptr) return nullptr;
  void* p = space_local_carve(local_of(hooks).thread, size, alignment);
  if (p == nullptr) return nullptr;
  *zero = true;
  *commit = true;
  return p;
}

// The whole space is unmapped right after the arenas are destroyed.
void local_extent_destroy(extent_hooks_t*, void*, std::size_t, bool, unsigned) noexcept {}

constexpr extent_hooks_t local_hooks = {
    local_extent_alloc, extent_dalloc_retain, local_extent_destroy, extent_commit, extent_decommit,
    extent_purge_lazy,  extent_purge_forced,  extent_split,         extent_merge,
};

// Written by arenas_create/arenas_destroy on thread 0 while no other job thread runs.
std::unique_ptr<local_arena[]> local_arenas;
int local_count = 0;

// The record of the thread whose tcache this OS thread holds (between arenas_thread_start and
// arenas_thread_end), else null. Keyed on the OS thread rather than mythread() so that a
// thread outside the job (whose mythread() reads 0) can never touch thread 0's tcache.
thread_local constinit local_arena* tls_owner __attribute__((tls_model("initial-exec"))) = nullptr;

void tcache_destroy(local_arena& a) noexcept {
  if (!a.has_tcache) return;
  mallctl("tcache.destroy", nullptr, nullptr, &a.tcache, sizeof(a.tcache));
  a.has_tcache = false;
  a.own_alloc_flags = a.shared_flags;
  a.own_free_flags = MALLOCX_TCACHE_NONE;
}

// ---- Private arenas ----

constexpr int max_nodes = 256;

struct node_arena {
  extent_hooks_t hooks;
  int node;
  std::atomic<unsigned> index_plus_one;  // 0: not created yet
};

constinit node_arena node_arenas[max_nodes] = {};
std::mutex node_arenas_mutex;
std::atomic<bool> bind_warned{false};

// Anonymous memory bound to the arena's node before its first touch. Binding can be refused
// (no NUMA in the kernel, a container's seccomp policy): the memory is then used unbound and
// its pages go where they are first touched, as the shared space does.
void* private_extent_alloc(extent_hooks_t* hooks, void* new_addr, std::size_t size,
                           std::size_t alignment, bool* zero, bool* commit, unsigned) noexcept {
  if (new_addr != nullptr) return nullptr;
  const std::size_t page = os_page_size();
  if (alignment < page) alignment = page;
  const std::size_t span = size + alignment - page;
  if (span < size) return nullptr;
  char* const m = static_cast<char*>(os_reserve(span));
  if (m == nullptr) return nullptr;
  const auto a = (reinterpret_cast<std::uintptr_t>(m) + alignment - 1) & ~(alignment - 1);
  char* const p = reinterpret_cast<char*>(a);
  if (p != m) os_release(m, static_cast<std::size_t>(p - m));
  if (p + size != m + span) os_release(p + size, static_cast<std::size_t>(m + span - (p + size)));
  const int node = reinterpret_cast<node_arena*>(hooks)->node;
  if (os_bind_memory(p, size, node) != 0 && !bind_warned.exchange(true)) {
    os_write_stderr(
        "pgas: warning: cannot bind private memory to NUMA nodes; its pages go where they "
        "are first touched\n");
  }
  if (os_make_accessible(p, size) != 0) {
    os_release(p, size);
    return nullptr;
  }
  *zero = true;
  *commit = true;
  return p;
}

void private_extent_destroy(extent_hooks_t*, void* addr, std::size_t size, bool,
                            unsigned) noexcept {
  os_release(addr, size);
}

constexpr extent_hooks_t private_hooks = {
    private_extent_alloc, extent_dalloc_retain, private_extent_destroy,
    extent_commit,        extent_decommit,      extent_purge_lazy,
    extent_purge_forced,  extent_split,         extent_merge,
};

// The calling thread's private node (arenas_thread_start), else 0.
thread_local constinit int tls_private_node = 0;

int private_node() noexcept {
  const int node = tls_private_node;
  return node < 0 || node >= max_nodes ? 0 : node;
}

// MALLOCX flags for node's arena, creating it on first use; 0 when jemalloc refuses.
int private_flags(int node) noexcept {
  node_arena& a = node_arenas[node];
  unsigned v = a.index_plus_one.load(std::memory_order_acquire);
  if (v == 0) {
    std::lock_guard lock(node_arenas_mutex);
    v = a.index_plus_one.load(std::memory_order_relaxed);
    if (v == 0) {
      a.hooks = private_hooks;
      a.node = node;
      unsigned index = 0;
      if (arena_new(&a.hooks, &index) != 0) return 0;
      v = index + 1;
      a.index_plus_one.store(v, std::memory_order_release);
    }
  }
  return MALLOCX_ARENA(v - 1) | MALLOCX_TCACHE_NONE;
}

}  // namespace

void arenas_create(int threads) {
  const space* s = space_current();
  if (s == nullptr || threads != s->threads) {
    throw std::logic_error("pgas: arenas_create needs the job's shared space");
  }
  auto arenas = std::make_unique<local_arena[]>(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    local_arena& a = arenas[static_cast<std::size_t>(t)];
    a.hooks = local_hooks;
    a.thread = t;
    a.segment = reinterpret_cast<std::uintptr_t>(s->segment(t));
    a.segment_size = s->segment_size;
    if (int r = arena_new(&a.hooks, &a.index); r != 0) {
      for (int u = 0; u < t; ++u)
        arena_delete(arenas[static_cast<std::size_t>(u)].index);
      throw std::runtime_error(fmt::format(
          "cannot create the jemalloc arena of thread {} of {}: {} (jemalloc allows {} arenas "
          "in a process, its automatic ones included: a larger narenas in MALLOC_CONF takes "
          "from the threads' share)",
          t, threads, std::strerror(r), jemalloc_arena_limit));
    }
    a.created = true;
    a.shared_flags = MALLOCX_ARENA(a.index) | MALLOCX_TCACHE_NONE;
    a.own_alloc_flags = a.shared_flags;
    a.own_free_flags = MALLOCX_TCACHE_NONE;
  }
  local_arenas = std::move(arenas);
  local_count = threads;
}

void arenas_destroy() noexcept {
  if (local_arenas == nullptr) return;
  tls_owner = nullptr;
  // jemalloc requires every tcache that holds blocks of an arena to be flushed before the
  // arena is destroyed; tcaches of threads that ended without arenas_thread_end go here.
  for (int t = 0; t < local_count; ++t)
    tcache_destroy(local_arenas[static_cast<std::size_t>(t)]);
  for (int t = 0; t < local_count; ++t) {
    const local_arena& a = local_arenas[static_cast<std::size_t>(t)];
    if (a.created) arena_delete(a.index);
  }
  local_arenas.reset();
  local_count = 0;
}

void arenas_thread_start(int t, int private_node) noexcept {
  tls_private_node = private_node;
  if (t < 0 || t >= local_count) return;
  local_arena& a = local_arenas[static_cast<std::size_t>(t)];
  unsigned tc = 0;
  std::size_t len = sizeof(tc);
  // Without a tcache (jemalloc caps explicit tcaches near 4096) the thread bypasses caching.
  if (!a.has_tcache && mallctl("tcache.create", &tc, &len, nullptr, 0) == 0) {
    a.tcache = tc;
    a.has_tcache = true;
    a.own_alloc_flags = MALLOCX_ARENA(a.index) | MALLOCX_TCACHE(tc);
    a.own_free_flags = MALLOCX_TCACHE(tc);
  }
  tls_owner = &a;
}

void arenas_thread_end(int t) noexcept {
  tls_private_node = 0;
  if (t < 0 || t >= local_count) return;
  local_arena& a = local_arenas[static_cast<std::size_t>(t)];
  if (tls_owner == &a) tls_owner = nullptr;
  tcache_destroy(a);
}

void* arena_local_alloc(int thread, std::size_t n, std::size_t alignment) noexcept {
  const local_arena* own = tls_owner;
  int flags = own != nullptr && own->thread == thread
                  ? own->own_alloc_flags
                  : local_arenas[static_cast<std::size_t>(thread)].shared_flags;
  // jemalloc trims what precedes and follows the aligned block back into the arena.
  if (alignment > min_bytes) flags |= MALLOCX_ALIGN(alignment);
  return mallocx(at_least_min(n), flags);
}

// A thread's tcache takes only blocks of its own segment, so it never hands out another
// arena's memory (jemalloc's caches do not look at arenas).
void arena_local_free(void* p) noexcept {
  const local_arena* own = tls_owner;
  int flags = MALLOCX_TCACHE_NONE;
  if (own != nullptr && reinterpret_cast<std::uintptr_t>(p) - own->segment < own->segment_size) {
    flags = own->own_free_flags;
  }
  dallocx(p, flags);
}

std::size_t arena_usable_size(const void* p) noexcept {
  return sallocx(p, 0);
}

std::size_t arena_size_class(std::size_t n) noexcept {
  return nallocx(at_least_min(n), 0);
}

void* arena_private_alloc(std::size_t n) noexcept {
  const int flags = private_flags(private_node());
  return flags == 0 ? nullptr : mallocx(at_least_min(n), flags);
}

void arena_private_free(void* p) noexcept {
  dallocx(p, MALLOCX_TCACHE_NONE);
}

}  // namespace pgas::detail
