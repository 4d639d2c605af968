// src/job/reuse.hpp — the reuse distance recorder behind `pgasrun --reuse` (pgas/reuse.hpp):
// fed by the access hooks of pgas/detail/trace_hook.hpp (src/job/trace.cpp calls it while
// trace_on is set for it), per-thread stacks of last uses (src/models/reuse_distance.hpp) and
// per-site histograms, and the file written when the job ends.
//
// Only accesses to other threads' data count. Each thread owns one reuse_thread, written only
// by that thread while the job runs and read by thread 0 after the join; it is a sync_listener
// that drops the thread's last-use data at barriers, notify and fences (strict accesses fence).
// The block grain finds an address's UPC block in a registry of allocations and their block
// sizes, shared by every thread (a lock, taken when an access leaves the thread's last block
// range or an allocation changes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

#include <pgas/detail/trace_hook.hpp>

namespace pgas::detail {

struct job;
struct reuse_thread;

/// The calling thread's recorder while a job records reuse, else null.
extern thread_local constinit reuse_thread* reuse_mine __attribute__((tls_model("initial-exec")));

/// An inline element access of `bytes` at `element` from the code address `pc`.
void reuse_element(reuse_thread& r, std::uintptr_t pc, const void* element,
                   std::size_t bytes) noexcept;
/// A library call's access at `shared` (one access to the unit of its first byte).
void reuse_call(reuse_thread& r, trace_kind kind, const void* shared, std::size_t bytes,
                const std::source_location& where) noexcept;

/// A shared allocation of `bytes` at `offset` of `thread`'s segment (-1: symmetric, the same
/// range of every segment) whose UPC blocks are `block` bytes (the allocation's own bytes for
/// a local allocation, one indefinite block), for the block grain. Cheap when not recording.
void reuse_allocation(std::uint64_t offset, std::size_t bytes, std::size_t block,
                      int thread) noexcept;
/// The allocation at `offset` of `thread`'s segment (-1: symmetric) is freed.
void reuse_release(std::uint64_t offset, int thread) noexcept;

/// Before the threads start: records the job's reuse into `path` when not empty, with the
/// grain ("element", "line", "block") and mode ("exact", "approximate") of the env table.
/// Checks that the file can be written (a throw of std::runtime_error naming the path and the
/// reason when it cannot: nothing has run).
void reuse_job_begin(job& j, const std::string& path, std::string_view grain,
                     std::string_view mode);
/// On each job thread as it starts and as its body has returned.
void reuse_thread_begin(int thread);
void reuse_thread_end() noexcept;
/// After the join, on thread 0: writes the file and clears the recorder. Returns false after
/// printing why when the file could not be written.
bool reuse_job_end(const job& j);

}  // namespace pgas::detail
