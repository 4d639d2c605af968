// src/objects/sptr.cpp — the out-of-line parts of pointers-to-shared (pgas/sptr.hpp): packing a
// word with its limits checked, the shared run-time block dividers, sptr_from, and the thread
// distance query.

#include <fmt/format.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <pgas/sptr.hpp>

#include "alloc/space.hpp"
#include "src/base/faults.hpp"
#include "src/job/job.hpp"

namespace pgas {

namespace detail {

// Zero-initialised (.bss): no page of it is touched until an entry is made.
constinit block_divider block_dividers[block_sizes_max]{};

namespace {
// Entry 0 is block 1 (a default-constructed run-time-block pointer names it). Its divider is
// already right: libdivide_u64_gen(1) is all zeros (a power of two: magic 0, shift 0; sptr_test
// compares the two), so only the block is set, as the library loads.
const bool block_one_ready = [] {
  block_dividers[0].block = 1;
  return true;
}();
}  // namespace

const block_divider& block_divider_for(std::uint64_t b) {
  // Interned: one entry per distinct block size, never changed after it is made, so the
  // index a run-time-B pointer carries stays valid for the life of the process. Block sizes
  // in a program are few.
  static std::mutex mutex;
  static auto* index = new std::map<std::uint64_t, std::size_t>{{1, 0}};
  static std::size_t used = 1;
  (void)block_one_ready;
  std::lock_guard g(mutex);
  auto [it, made] = index->try_emplace(b, used);
  if (made) {
    if (used == block_sizes_max) {
      std::fprintf(stderr, "pgas: more than %zu distinct run-time block sizes in one process\n",
                   block_sizes_max);
      std::abort();
    }
    block_divider& d = block_dividers[used++];
    d.block = b;
    if (b != 0) d.div = libdivide::libdivide_u64_gen(b);
  }
  return block_dividers[it->second];
}

std::uint64_t sptr_pack(int thread, std::size_t addrfield, std::size_t phase, std::uint64_t block,
                        const std::source_location& where) {
  const shared_geometry& g = geometry;
  if (g.base == nullptr) misuse("making a pointer-to-shared outside a job", where);
  if (thread < 0 || static_cast<unsigned>(thread) >= g.threads) {
    misuse(
        fmt::format("pointer-to-shared thread {} is not in [0, THREADS = {})", thread, g.threads),
        where);
  }
  if (addrfield >= g.segment) {
    misuse(fmt::format("pointer-to-shared address {:#x} is beyond the segment size {:#x}",
                       addrfield, g.segment),
           where);
  }
  if (block > config::max_runtime_block) {
    misuse(fmt::format("block size {} exceeds the {} elements a pointer-to-shared can hold "
                       "(config::max_runtime_block)",
                       block, config::max_runtime_block),
           where);
  }
  if (phase != 0 && phase >= block) {
    misuse(fmt::format("pointer-to-shared phase {} is not below its block size {}", phase, block),
           where);
  }
  // The phase's bits above the word's field go to a run-time-B pointer's block_ref.
  return ((static_cast<std::uint64_t>(phase) & phase_low_mask) << phase_shift) |
         ((static_cast<std::uint64_t>(thread) << g.shift) + addrfield);
}

void sptr_block_mismatch(std::uint64_t from, std::uint64_t to, const std::source_location& where) {
  const auto name = [](std::uint64_t b) {
    return b == 0 ? std::string("indefinite ([])") : std::to_string(b);
  };
  misuse(fmt::format("converting a pointer-to-shared with a run-time block of {} to one with "
                     "block {}: the blocks differ (an explicit cast, pgas::sptr_cast, resets "
                     "the phase; sptr<T, pgas::dynamic_block> keeps any block)",
                     name(from), name(to)),
         where);
}

std::uint64_t sptr_offset_of(const void* p, const std::source_location& where) {
  const shared_geometry& g = geometry;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto b = reinterpret_cast<std::uintptr_t>(g.base);
  if (g.base == nullptr || a < b || a - b >= g.span) {
    misuse(fmt::format("sptr_from: address {} is not in the shared space", p), where);
  }
  return a - b;
}

}  // namespace detail

const char* to_string(locality l) noexcept {
  switch (l) {
    case locality::same_thread:
      return "same_thread";
    case locality::same_core:
      return "same_core";
    case locality::same_l3:
      return "same_l3";
    case locality::same_numa:
      return "same_numa";
    case locality::same_package:
      return "same_package";
    case locality::machine:
      return "machine";
  }
  return "?";
}

locality thread_distance(int a, int b, std::source_location where) {
  if (!in_job()) detail::misuse("pgas::thread_distance outside a job", where);
  const int n = threads();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    detail::misuse(
        fmt::format("pgas::thread_distance({}, {}): threads must be in [0, {})", a, b, n), where);
  }
  if (a == b) return locality::same_thread;
  const auto& plan = job_placement();
  const auto& pus = job_machine().pus();
  const pu_info& x = pus[static_cast<std::size_t>(plan[static_cast<std::size_t>(a)].pu)];
  const pu_info& y = pus[static_cast<std::size_t>(plan[static_cast<std::size_t>(b)].pu)];
  if (x.package != y.package) return locality::machine;
  if (x.numa != y.numa) return locality::same_package;
  if (x.l3 != y.l3 || x.l3 < 0) return x.core == y.core ? locality::same_core : locality::same_numa;
  return x.core == y.core ? locality::same_core : locality::same_l3;
}

// Full blocks are dealt round-robin from thread 0; the partial last block, if any, follows
// them on the next thread in turn.
std::size_t affinitysize(std::size_t totalsize, std::size_t nbytes, int thread,
                         std::source_location where) {
  const int n = threads();
  if (thread < 0 || thread >= n) {
    detail::misuse(fmt::format("pgas::affinitysize: thread {} is not a thread of this job "
                               "(THREADS is {})",
                               thread, n),
                   where);
  }
  const auto t = static_cast<std::size_t>(thread);
  if (nbytes == 0) return t == 0 ? totalsize : 0;
  const auto nt = static_cast<std::size_t>(n);
  const std::size_t full = totalsize / nbytes;
  std::size_t bytes = (full / nt + (t < full % nt ? 1 : 0)) * nbytes;
  if (t == full % nt) bytes += totalsize % nbytes;
  return bytes;
}

}  // namespace pgas
