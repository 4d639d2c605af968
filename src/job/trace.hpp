// src/job/trace.hpp — the access tracer behind `pgasrun --trace` (pgas/trace.hpp): per-thread
// tables of counts filled by the hooks of pgas/detail/trace_hook.hpp, and the trace file
// written when the job ends (trace_file.cpp).
//
// Recording (trace.cpp). Each thread owns one thread_trace, written only by that thread while
// the job runs and read by thread 0 after the join. Its counts are keyed by site (a code
// address, or a source_location's file and line), allocation, owning thread and kind, with a
// call and byte count per direction; an open-addressing index finds them, and element
// accesses go through a small direct-mapped cache of recent (code address, owner, allocation
// range) first. Allocations are named in one registry shared by every thread (a lock, taken
// only when an access reaches a site or allocation the thread has not seen).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <pgas/detail/trace_hook.hpp>
#include <source_location>

namespace pgas::detail {

struct job;

inline constexpr std::uint32_t trace_pc_site = 0xffffffffu;  // site_line of a code address

/// The counts of one key.
struct trace_entry {
  std::uintptr_t site = 0;      // code address (site_line == trace_pc_site) or file name
  std::uint32_t site_line = 0;  // source line, or trace_pc_site
  std::int32_t array = -1;      // allocation id, -1 none or unknown
  std::int32_t to = -1;         // owning thread, -1 none
  trace_kind kind = trace_kind::element;
  const char* function = nullptr;  // a source_location site's function name
  std::uint64_t calls[trace_dirs] = {};
  std::uint64_t bytes[trace_dirs] = {};
};

struct trace_wait_entry {
  const char* file = nullptr;
  std::uint32_t line = 0;
  trace_kind kind = trace_kind::barrier;
  const char* function = nullptr;
  std::uint64_t calls = 0;
  std::uint64_t ns = 0;
  std::uint64_t max_ns = 0;
};

struct trace_event {
  std::uint32_t wait;  // index into the thread's waits
  std::uint64_t start_ns;
  std::uint64_t ns;
};

struct trace_cache_entry {
  const char* file = nullptr;
  std::uint32_t line = 0;
  const char* function = nullptr;
  std::int32_t array = -1;
  std::uint64_t hits = 0, misses = 0, written_back = 0;
};

struct trace_allocation_record {
  std::string name;
  std::string where;
  std::size_t bytes = 0;
  int thread = -1;
};

/// One thread's tables (only that thread writes them while the job runs).
struct thread_trace;

/// What the job's end hands to the file writer: every thread's tables, merged per thread.
struct trace_snapshot {
  std::vector<std::vector<trace_entry>> entries;       // per thread
  std::vector<std::vector<trace_wait_entry>> waits;    // per thread
  std::vector<std::vector<trace_event>> timeline;      // per thread
  std::vector<std::vector<trace_cache_entry>> caches;  // per thread
  std::vector<trace_allocation_record> allocations;    // by id
  std::uint64_t detail_lost = 0;
  std::uint64_t events_lost = 0;
};

/// Before the threads start: traces the job into `path` when not empty, with `memory` bytes
/// per thread. Checks that the file can be written (a throw of std::runtime_error naming the
/// path and the reason when it cannot: nothing has run).
void trace_job_begin(job& j, const std::string& path, std::size_t memory);
/// On each job thread as it starts and as its body has returned (settles its last element).
void trace_thread_begin(int thread);
void trace_thread_end();
/// After the join, on thread 0: writes the file (trace_file.cpp) and clears the tracer.
/// Returns false after printing why when the file could not be written.
bool trace_job_end(const job& j);

/// A collective call on the calling thread, for its whole length: the thread's software caches
/// write back first (a collective synchronises as a barrier does), and a traced job counts the
/// call and times it as a wait.
class collective_scope {
 public:
  collective_scope(const std::source_location& where, std::size_t bytes);
  ~collective_scope() {
    if (started_ != 0) trace_wait_end(trace_kind::collective, started_, where_);
  }
  collective_scope(const collective_scope&) = delete;
  collective_scope& operator=(const collective_scope&) = delete;

 private:
  const std::source_location& where_;
  std::uint64_t started_ = 0;
};

/// trace_file.cpp: the file's text, the format of pgas-trace(1).
std::string trace_file_text(const job& j, const trace_snapshot& s, std::size_t memory);

/// True when pc-1 lies in the library's public headers (attributed to the caller's line).
bool trace_header_file(const std::string& file) noexcept;

/// A site as the files name it.
struct trace_site_text {
  std::string file;
  int line = 0;
  std::string function;
};
/// The user's source line of each code address of an element hook's caller: the innermost
/// call site outside the library's headers; the function and offset when there is no line
/// table. Called after the job (reads the images' debug information).
std::unordered_map<std::uintptr_t, trace_site_text> trace_attribute(
    std::vector<std::uintptr_t> pcs);
/// The kind's name in the files ("element", "bulk", ...).
const char* trace_kind_name(trace_kind k) noexcept;
/// The job's program as an absolute path (argv[0] when /proc/self/exe cannot be read).
std::string trace_program(const job& j);

/// Turns the hooks on (or off) for a recorder other than the tracer (src/job/reuse.cpp), while
/// no job thread runs: trace_on is true while either records.
void trace_hooks_set(bool on) noexcept;

}  // namespace pgas::detail
