// alloc/replicas.cpp — pages for privatization-table replicas (alloc/replicas.hpp): mapped
// through the OS door, bound to their readers' node before the first touch (the filler, one of
// those readers, touches them), sealed read-only, and listed in a fixed lock-free table that
// the fatal-signal handler can search without allocating or locking.

#include "alloc/replicas.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "src/base/os.hpp"

namespace pgas::detail {

namespace {

// Sealed replicas, for fault reports only: a full table just means a fault inside a replica
// past the first 1024 is reported as a plain address.
struct sealed_range {
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<int> table{0};
  std::atomic<int> replica{0};
};
constexpr std::size_t max_sealed = 1024;
sealed_range sealed[max_sealed];

std::size_t round_to_pages(std::size_t bytes) noexcept {
  const std::size_t page = os_page_size();
  return (bytes + page - 1) / page * page;
}

}  // namespace

std::size_t replica_mapped_size(std::size_t bytes) noexcept {
  return bytes == 0 ? 0 : round_to_pages(bytes);
}

void* replica_map(std::size_t bytes, int node, int* error) noexcept {
  const std::size_t size = round_to_pages(bytes);
  void* p = os_reserve(size);
  if (p == nullptr) {
    *error = -errno;
    return nullptr;
  }
  int r = os_make_accessible(p, size);
  if (r == 0 && node >= 0) r = os_bind_memory(p, size, node);
  if (r != 0) {
    os_release(p, size);
    *error = r;
    return nullptr;
  }
  return p;
}

int replica_seal(void* base, std::size_t bytes, int table, int replica) noexcept {
  const std::size_t size = round_to_pages(bytes);
  const int r = os_make_readonly(base, size);
  if (r != 0) return r;
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  for (sealed_range& s : sealed) {
    std::uintptr_t expected = 0;
    if (s.begin.compare_exchange_strong(expected, b, std::memory_order_acq_rel)) {
      s.table.store(table, std::memory_order_relaxed);
      s.replica.store(replica, std::memory_order_relaxed);
      s.end.store(b + size, std::memory_order_release);
      break;
    }
  }
  return 0;
}

void replica_unmap(void* base, std::size_t bytes) noexcept {
  const auto b = reinterpret_cast<std::uintptr_t>(base);
  for (sealed_range& s : sealed) {
    if (s.begin.load(std::memory_order_acquire) == b) {
      s.end.store(0, std::memory_order_release);
      s.begin.store(0, std::memory_order_release);
      break;
    }
  }
  os_release(base, round_to_pages(bytes));
}

bool replica_at(const void* addr, int* table, int* replica) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  for (const sealed_range& s : sealed) {
    const std::uintptr_t b = s.begin.load(std::memory_order_acquire);
    if (b != 0 && a >= b && a < s.end.load(std::memory_order_acquire)) {
      *table = s.table.load(std::memory_order_relaxed);
      *replica = s.replica.load(std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

}  // namespace pgas::detail
