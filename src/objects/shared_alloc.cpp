// src/objects/shared_alloc.cpp — the public allocation API of <pgas/alloc.hpp>: distributed
// allocations in the symmetric region (all_alloc, global_alloc, free, all_free), local ones
// through the per-thread jemalloc arenas (local_alloc, free), accounting and locate().
//
// all_alloc is one barrier: thread 0 picks the offset (checking every thread's limit) and
// broadcasts it; the barrier's agreement check compares every thread's (nblocks, nbytes).

#include <fmt/format.h>
#include <jemalloc/jemalloc.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <limits>
#include <mutex>
#include <string_view>
#include <unordered_set>

#include <pgas/alloc.hpp>
#include <pgas/config.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/detail/upc_call.hpp>
#include <pgas/runtime.hpp>

#include "alloc/arenas.hpp"
#include "alloc/space.hpp"
#include "src/base/faults.hpp"
#include "src/base/os.hpp"
#include "src/job/collective.hpp"
#include "src/job/job.hpp"
#include "src/job/reuse.hpp"

namespace pgas {

shared_alloc detail_make_shared_alloc(std::size_t offset, std::size_t nblocks, std::size_t bytes,
                                      std::size_t part) noexcept {
  shared_alloc a;
  a.offset_ = offset;
  a.nblocks_ = nblocks;
  a.block_bytes_ = bytes;
  a.part_bytes_ = part;
  return a;
}

bad_shared_alloc::bad_shared_alloc(int thread, std::size_t requested, std::size_t available,
                                   std::string why)
    : thread_(thread),
      requested_(requested),
      available_(available),
      message_(fmt::format("pgas: thread {}: cannot allocate {} bytes of shared memory: {} ({} "
                           "bytes left)",
                           thread, requested, why, available)) {}

namespace {

detail::space& space_or_misuse(const std::source_location& where, const char* what) {
  detail::space* s = detail::space_current();
  if (s == nullptr) detail::misuse(fmt::format("{} called outside pgas::run()", what), where);
  return *s;
}

// Bytes of each thread's part, or nullopt on overflow.
std::optional<std::size_t> part_size(std::size_t nblocks, std::size_t nbytes, int threads) {
  const std::size_t per_thread = nblocks / static_cast<std::size_t>(threads) +
                                 (nblocks % static_cast<std::size_t>(threads) != 0 ? 1 : 0);
  if (nbytes != 0 && per_thread > std::numeric_limits<std::size_t>::max() / nbytes) {
    return std::nullopt;
  }
  return per_thread * nbytes;
}

// The thread that cannot take `part` more bytes, or -1.
int over_limit(const detail::space& s, std::size_t part, std::size_t* left) {
  for (int t = 0; t < s.threads; ++t) {
    const std::size_t used = s.account(t).total();
    if (used + part > s.limit || used + part < used) {
      *left = s.limit > used ? s.limit - used : 0;
      return t;
    }
  }
  return -1;
}

// Reserves a distributed allocation's offset and commits it; throws bad_shared_alloc.
std::size_t distributed_reserve(detail::space& s, std::size_t part) {
  std::size_t left = 0;
  if (int t = over_limit(s, part, &left); t >= 0) {
    throw bad_shared_alloc(t, part, left,
                           s.limit < s.symmetric_size()
                               ? "per-thread limit PGAS_SHARED_HEAP_SIZE reached"
                               : "the thread's segment is full");
  }
  std::optional<std::size_t> offset = s.heap->allocate(part);
  if (!offset || !detail::space_commit_symmetric(*offset + part)) {
    if (offset) s.heap->release(*offset);
    throw bad_shared_alloc(mythread(), part, s.heap->largest_free(),
                           "the symmetric region of the shared space is full");
  }
  for (int t = 0; t < s.threads; ++t)
    s.account(t).allocated.fetch_add(part);
  return *offset;
}

void distributed_release(detail::space& s, const shared_alloc& a,
                         const std::source_location& where) {
  if (a.part_bytes() == 0) return;
  if (detail::trace_on) [[unlikely]]
    detail::trace_release(a.offset(), -1);
  if (s.heap->release(a.offset()) == 0) {
    detail::misuse(fmt::format("pgas::free of a distributed allocation that is not "
                               "live (offset {}): double free?",
                               a.offset()),
                   where);
  }
  for (int t = 0; t < s.threads; ++t)
    s.account(t).allocated.fetch_sub(a.part_bytes());
}

// Checked builds (config::bounds_check) track live local allocations to catch double frees and
// frees of pointers local_alloc never returned; a release build leaves that to jemalloc, which
// may hand the memory out twice.
struct live_set {
  std::mutex mutex;
  std::unordered_set<const void*> pointers;
};
live_set& live_locals() {
  static live_set* s = new live_set;
  return *s;
}

// jemalloc's per-thread byte counters (thread.allocatedp / thread.deallocatedp): read around
// a call, they give the exact usable size it allocated or freed for two loads, where
// nallocx/sallocx would cost a size computation or a lookup on every call.
struct byte_counters {
  std::uint64_t* allocated = nullptr;
  std::uint64_t* deallocated = nullptr;
};
thread_local constinit byte_counters counters __attribute__((tls_model("initial-exec"))) = {};
std::uint64_t zero_counter = 0;

const byte_counters& my_counters() noexcept {
  if (counters.allocated == nullptr) {
    std::size_t len = sizeof(std::uint64_t*);
    if (mallctl("thread.allocatedp", &counters.allocated, &len, nullptr, 0) != 0 ||
        mallctl("thread.deallocatedp", &counters.deallocated, &len, nullptr, 0) != 0) {
      // jemalloc without statistics: accounting falls back to size lookups (see callers).
      counters.allocated = counters.deallocated = &zero_counter;
    }
  }
  return counters;
}

// Encodes an all_alloc outcome for the one-word broadcast: offset + 1, or 0 for failure.
constexpr std::uintptr_t failed = 0;

}  // namespace

void* shared_alloc::part(int thread) const noexcept {
  return detail::space_current()->segment(thread) + offset_;
}

void* shared_alloc::block(std::size_t i) const noexcept {
  const auto threads = static_cast<std::size_t>(pgas::threads());
  return static_cast<char*>(part(static_cast<int>(i % threads))) + (i / threads) * block_bytes_;
}

shared_alloc all_alloc(std::size_t nblocks, std::size_t nbytes, std::source_location where) {
  const char* name = detail::shown_name("pgas::all_alloc");
  detail::space& s = space_or_misuse(where, name);
  detail::job& j = *detail::job_current();
  const detail::barrier_op op =
      detail::agreement(detail::op_kind::all_alloc, name, "arguments",
                        fmt::format("nblocks={}, nbytes={}", nblocks, nbytes), where);
  const std::optional<std::size_t> part = part_size(nblocks, nbytes, s.threads);
  std::uintptr_t mine = failed;
  std::string error;
  if (mythread() == 0 && part && *part != 0) {
    try {
      mine = distributed_reserve(s, *part) + 1;
    } catch (const bad_shared_alloc& e) {
      error = e.what();
    }
  }
  auto got = reinterpret_cast<std::uintptr_t>(
      detail::collective_bcast(j, op, reinterpret_cast<void*>(mine)));
  if (!part)
    throw bad_shared_alloc(mythread(), std::numeric_limits<std::size_t>::max(), 0,
                           fmt::format("{} blocks of {} bytes overflow", nblocks, nbytes));
  if (*part == 0) return {};
  if (got == failed) {
    std::size_t left = 0;
    int t = over_limit(s, *part, &left);
    throw bad_shared_alloc(t >= 0 ? t : mythread(), *part, t >= 0 ? left : s.heap->largest_free(),
                           t >= 0 ? "per-thread limit reached or segment full"
                                  : "the symmetric region of the shared space is full");
  }
  shared_alloc a = detail_make_shared_alloc(got - 1, nblocks, nbytes, *part);
  if (detail::trace_on) [[unlikely]] {
    detail::trace_allocation(a.offset(), *part, -1, where);
    detail::reuse_allocation(a.offset(), *part, nbytes, -1);
  }
  // First touch by the owner, so that its pages come from its node. all_alloc ends without a
  // barrier, so another thread may already read or write this part: the kernel faults the pages
  // in without storing to them. Before Linux 5.14, an atomic add of 0 per page (not p[i] = p[i],
  // whose store could overwrite another thread's between its load and store).
  auto* p = static_cast<char*>(a.part(mythread()));
  if (detail::os_populate_write(p, *part) == -EINVAL) {
    const std::size_t page = detail::os_page_size();
    for (std::size_t i = 0; i < *part; i += page)
      __atomic_fetch_add(p + i, 0, __ATOMIC_RELAXED);
  }
  return a;
}

shared_alloc global_alloc(std::size_t nblocks, std::size_t nbytes, std::source_location where) {
  detail::space& s = space_or_misuse(where, detail::shown_name("pgas::global_alloc"));
  const std::optional<std::size_t> part = part_size(nblocks, nbytes, s.threads);
  if (!part) {
    throw bad_shared_alloc(mythread(), std::numeric_limits<std::size_t>::max(), 0,
                           fmt::format("{} blocks of {} bytes overflow", nblocks, nbytes));
  }
  if (*part == 0) return {};
  shared_alloc a = detail_make_shared_alloc(distributed_reserve(s, *part), nblocks, nbytes, *part);
  if (detail::trace_on) [[unlikely]] {
    detail::trace_allocation(a.offset(), *part, -1, where);
    detail::reuse_allocation(a.offset(), *part, nbytes, -1);
  }
  return a;
}

void free(shared_alloc a, std::source_location where) {
  detail::space& s = space_or_misuse(where, "pgas::free");
  distributed_release(s, a, where);
}

void all_free(shared_alloc a, std::source_location where) {
  const char* name = detail::shown_name("pgas::all_free");
  detail::space& s = space_or_misuse(where, name);
  detail::job& j = *detail::job_current();
  // Released by the last arriver, before anyone leaves: when any thread returns, the space is
  // free for its next allocation and a checked build rejects any thread's access to it.
  struct release_args {
    detail::space* s;
    const shared_alloc* a;
    const std::source_location* where;
  } const mine{&s, &a, &where};
  detail::barrier_op op = detail::agreement(detail::op_kind::all_free, name, "allocation",
                                            fmt::format("offset={}", a.offset()), where);
  op.last = [](const void* arg) {
    const auto& r = *static_cast<const release_args*>(arg);
    distributed_release(*r.s, *r.a, *r.where);
  };
  op.last_arg = &mine;
  detail::barrier_arrive(j, op);
  detail::barrier_complete(j);
}

void* local_alloc(std::size_t nbytes, std::source_location where) {
  return local_alloc(nbytes, 0, where);
}

void* local_alloc(std::size_t nbytes, std::size_t alignment, std::source_location where) {
  if (alignment != 0 && !std::has_single_bit(alignment)) {
    detail::misuse(fmt::format("pgas::local_alloc: alignment {} is not a power of two", alignment),
                   where);
  }
  detail::space& s = space_or_misuse(where, "pgas::local_alloc");
  const int me = mythread();
  detail::segment_account& acc = s.account(me);
  const std::size_t used = acc.total();
  if (nbytes > s.limit || used + nbytes > s.limit) {
    throw bad_shared_alloc(me, nbytes, s.limit > used ? s.limit - used : 0,
                           s.limit < s.symmetric_size()
                               ? "per-thread limit PGAS_SHARED_HEAP_SIZE reached"
                               : "the thread's segment is full");
  }
  const byte_counters& c = my_counters();
  const std::uint64_t before = *c.allocated;
  void* p = detail::arena_local_alloc(me, nbytes, alignment);
  if (p == nullptr) {
    throw bad_shared_alloc(me, nbytes, s.local_size() - acc.local_top.load(),
                           alignment > alignof(std::max_align_t)
                               ? fmt::format("no free block aligned to {} bytes fits in the "
                                             "local region of the thread's segment",
                                             alignment)
                               : std::string("the local region of the thread's segment is full"));
  }
  // Owner-only counter: a relaxed load and store, no locked instruction.
  std::size_t size = static_cast<std::size_t>(*c.allocated - before);
  if (c.allocated == &zero_counter) size = detail::arena_usable_size(p);
  acc.local_by_owner.store(acc.local_by_owner.load(std::memory_order_relaxed) + size,
                           std::memory_order_relaxed);
  if constexpr (config::bounds_check) {
    std::lock_guard g(live_locals().mutex);
    live_locals().pointers.insert(p);
  }
  if (detail::trace_on) [[unlikely]] {
    const auto offset = static_cast<std::uint64_t>(static_cast<char*>(p) - s.segment(me));
    detail::trace_allocation(offset, size, me, where);
    detail::reuse_allocation(offset, size, size, me);  // one indefinite block
  }
  return p;
}

void free(void* p, std::source_location where) {
  if (p == nullptr) return;
  // Through upc_free the reports speak UPC: its name, and what upc_free takes.
  const char* name = detail::shown_name("pgas::free");
  const bool upc = std::string_view(name) != "pgas::free";
  detail::space& s = space_or_misuse(where, name);
  const int owner = detail::space_owner(s, p);
  if (owner < 0) {
    detail::misuse(fmt::format("{}({}) of a pointer outside the shared space (not from {})", name,
                               p, upc ? "upc_alloc" : "pgas::local_alloc"),
                   where);
  }
  const auto offset = static_cast<std::size_t>(static_cast<char*>(p) - s.segment(owner));
  if (offset < s.symmetric_size()) {
    detail::misuse(fmt::format("{}({}) of memory inside a distributed allocation: {}", name, p,
                               upc ? "upc_free takes only a pointer that upc_alloc, "
                                     "upc_global_alloc or upc_all_alloc returned (not an "
                                     "element of a shared array)"
                                   : "free the pgas::shared_alloc instead"),
                   where);
  }
  if constexpr (config::bounds_check) {
    std::lock_guard g(live_locals().mutex);
    if (live_locals().pointers.erase(p) == 0) {
      detail::misuse(
          fmt::format("{}({}) of a local allocation that is not live: double free?", name, p),
          where);
    }
  }
  if (detail::trace_on) [[unlikely]]
    detail::trace_release(offset, owner);
  detail::segment_account& acc = s.account(owner);
  const byte_counters& c = my_counters();
  const std::uint64_t before = *c.deallocated;
  const std::size_t fallback = c.deallocated == &zero_counter ? detail::arena_usable_size(p) : 0;
  detail::arena_local_free(p);
  const std::size_t size =
      fallback != 0 ? fallback : static_cast<std::size_t>(*c.deallocated - before);
  if (owner == mythread()) {
    acc.local_by_owner.store(acc.local_by_owner.load(std::memory_order_relaxed) - size,
                             std::memory_order_relaxed);
  } else {
    acc.local_freed_by_others.fetch_add(size, std::memory_order_relaxed);
  }
}

std::size_t segment_size() noexcept {
  detail::space* s = detail::space_current();
  return s != nullptr ? s->segment_size : 0;
}

void* segment_base(int thread) noexcept {
  detail::space* s = detail::space_current();
  return s != nullptr ? s->segment(thread) : nullptr;
}

int owner_of(const void* p) noexcept {
  detail::space* s = detail::space_current();
  return s != nullptr ? detail::space_owner(*s, p) : -1;
}

memory_usage memory_usage_of(int thread) noexcept {
  detail::space* s = detail::space_current();
  if (s == nullptr || thread < 0 || thread >= s->threads) return {};
  const detail::segment_account& a = s->account(thread);
  return {a.total(),
          s->symmetric_committed.load(std::memory_order_relaxed) +
              s->local_committed[static_cast<std::size_t>(thread)].load(std::memory_order_relaxed),
          s->limit};
}

memory_location locate(const void* p) noexcept {
  memory_location l;
  const int bound = detail::os_policy_node(p);
  l.bound_node = bound >= 0 ? bound : -1;
  const int page = detail::os_page_node(p);
  l.page_node = page >= 0 ? page : -1;
  return l;
}

void* private_alloc(std::size_t nbytes) {
  void* p = detail::arena_private_alloc(nbytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void private_free(void* p) noexcept {
  if (p != nullptr) detail::arena_private_free(p);
}

}  // namespace pgas
