// alloc/replicas.hpp — memory for the replicas of privatization tables (pgas/privatize.hpp):
// whole pages of their own, bound to the NUMA node of the threads that read them, made
// read-only once filled. Each replica's range is registered so that the fatal-signal handler
// can say a faulting write hit a table rather than report a bare address.
#pragma once

#include <cstddef>

namespace pgas::detail {

/// Bytes mapped for a replica holding `bytes` bytes: whole pages (0 for 0).
std::size_t replica_mapped_size(std::size_t bytes) noexcept;

/// Maps a read-write replica of `bytes` bytes (> 0), bound to NUMA node `node` when it is
/// >= 0. Returns its address, or nullptr with -errno in *error.
void* replica_map(std::size_t bytes, int node, int* error) noexcept;

/// Makes a filled replica read-only and records it as replica `replica` of table `table` for
/// fault reports. Returns 0 or -errno.
int replica_seal(void* base, std::size_t bytes, int table, int replica) noexcept;

/// Unmaps a replica (sealed or not) and forgets it.
void replica_unmap(void* base, std::size_t bytes) noexcept;

/// When `addr` lies in a sealed replica: its table number and replica number (returns true).
/// Async-signal-safe.
bool replica_at(const void* addr, int* table, int* replica) noexcept;

}  // namespace pgas::detail
