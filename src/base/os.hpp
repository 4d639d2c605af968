// src/base/os.hpp — the one door to the operating system.
//
// Every system call the runtime makes (futex, yield, thread creation and binding, signal
// handling, writing to stderr, ending the process) goes through this layer, so the rest of
// the runtime is plain C++ and tests can reason about one small surface.
//
// Contract for every function here: pointer arguments are non-null; functions returning int
// return 0 on success or -errno on failure and never throw; none of them allocates unless its
// comment says so. Functions marked "async-signal-safe" may be called from a signal handler.
#pragma once

#include <hwloc.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace pgas::detail {

/// One pause instruction: tells the core we are spinning (saves power, frees the sibling
/// hyperthread, avoids the memory-order flush on loop exit).
inline void os_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

/// Gives the processor to another runnable thread (sched_yield).
void os_yield() noexcept;

/// Sleeps while `*word == expected`, for at most `timeout_ns` (0: no limit). Returns 0 when
/// woken or when the value already differed, -ETIMEDOUT, or -EINTR. Private futex.
int os_futex_wait(std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns) noexcept;

/// Wakes up to `count` threads sleeping on `word`. Returns how many were woken, or -errno.
int os_futex_wake(std::atomic<uint32_t>* word, int count) noexcept;

/// Monotonic clock in nanoseconds. Async-signal-safe.
uint64_t os_now_ns() noexcept;

/// Creates a joinable thread with a stack of `stack_bytes` (0: the system default).
int os_thread_create(pthread_t* out, std::size_t stack_bytes, void* (*fn)(void*),
                     void* arg) noexcept;
/// Joins a thread created by os_thread_create.
int os_thread_join(pthread_t t) noexcept;
/// The calling thread's kernel thread id (gettid), never 0. Async-signal-safe.
int os_thread_id() noexcept;
/// The calling thread's stack: its lowest address and its size (pthread_getattr_np; for the
/// main thread, as far as its limit lets it grow). Returns 0 or -errno.
int os_thread_stack(std::uintptr_t* lo, std::size_t* bytes) noexcept;
/// Registers `fn` to run in the child after fork() (pthread_atfork), for state that names
/// threads the child does not have. Registrations cannot be undone: register once.
int os_at_fork_child(void (*fn)()) noexcept;
/// Blocks every signal that can be blocked in the calling thread, so that the kernel delivers
/// process-directed signals to other threads (a runtime helper thread that must not field them).
void os_block_signals() noexcept;
/// Sends `sig` to thread `tid` of this process (tgkill). -ESRCH when that thread has ended.
/// Async-signal-safe.
int os_signal_thread(int tid, int sig) noexcept;
/// Lets thread `tid` of this process run only when no other thread wants the processor
/// (SCHED_IDLE; where that is refused, nice 19), so that a report written while the job's
/// threads spin gets the processors. Returns 0 or -errno. Async-signal-safe.
int os_thread_background(int tid) noexcept;

/// Binds the calling thread to the given OS CPU indices with hwloc (`topo` must describe this
/// machine). An empty list is a no-op.
int os_bind_thread(hwloc_topology_t topo, const std::vector<int>& cpus) noexcept;
/// Saves / restores the calling thread's binding (the caller owns the bitmap: free it with
/// hwloc_bitmap_free).
hwloc_bitmap_t os_get_thread_binding(hwloc_topology_t topo) noexcept;
int os_set_thread_binding(hwloc_topology_t topo, hwloc_const_bitmap_t set) noexcept;

/// Writes all of `text` to stderr with write(2), retrying short writes. Async-signal-safe.
void os_write_stderr(std::string_view text) noexcept;

/// Installs `handler` (SA_SIGINFO | SA_ONSTACK) for the fatal synchronous signals SIGSEGV,
/// SIGBUS, SIGFPE, SIGILL and SIGABRT, saving the previous actions; os_restore_fatal_signals
/// puts them back.
using os_signal_handler = void (*)(int, siginfo_t*, void*);
int os_install_fatal_signals(os_signal_handler handler) noexcept;
void os_restore_fatal_signals() noexcept;

/// Installs `handler` for one signal (SA_SIGINFO | SA_ONSTACK | SA_RESTART), saving the previous
/// action in `saved`; os_restore_signal puts it back.
int os_install_signal(int sig, os_signal_handler handler, struct sigaction* saved) noexcept;
void os_restore_signal(int sig, const struct sigaction& saved) noexcept;

/// The real-time signal that asks a thread for its backtrace (src/base/backtrace.hpp):
/// SIGRTMAX - 3, far from SIGRTMIN, where programs usually take their real-time signals from.
int os_backtrace_signal() noexcept;

/// Runs `fn(status, arg)` when the process calls exit() (glibc on_exit, which unlike atexit
/// passes the status), and `quick_fn` when it calls quick_exit(). Handlers cannot be removed.
int os_on_exit(void (*fn)(int status, void* arg), void* arg) noexcept;
int os_on_quick_exit(void (*quick_fn)()) noexcept;

/// The path of the loaded file (program or shared library) whose code holds `addr`, or null
/// (dladdr). Not async-signal-safe.
const char* os_module_of(const void* addr) noexcept;

/// The exported symbol (the dynamic symbol table) nearest below `addr` in its loaded file, and
/// that symbol's address in `start`; null when there is none (dladdr). Not async-signal-safe.
const char* os_symbol_of(const void* addr, std::uintptr_t& start) noexcept;

/// True when `addr` lies in the writable static storage (.data, .bss) of the program or of a
/// loaded shared library (dl_iterate_phdr: writable PT_LOAD segments); false for stacks, the
/// heap, mappings and thread-local storage. Takes the loader's lock; not async-signal-safe.
bool os_in_static_storage(const void* addr) noexcept;

/// Gives the calling thread an alternate signal stack (so a stack overflow can still be
/// reported). Allocates once per thread; os_release_signal_stack frees it.
int os_setup_signal_stack() noexcept;
void os_release_signal_stack() noexcept;

/// Dies of `sig` with its default action (after restoring it). Async-signal-safe.
[[noreturn]] void os_die_of_signal(int sig) noexcept;

/// Blocks the calling thread forever (until the process ends). Async-signal-safe.
[[noreturn]] void os_park() noexcept;

/// Ends the process now with `status`, without destructors or atexit handlers.
[[noreturn]] void os_exit(int status) noexcept;

/// The name of a signal ("SIGSEGV"). Async-signal-safe.
const char* os_signal_name(int sig) noexcept;

// ---- Memory. Addresses and lengths are page aligned unless said otherwise. ----

/// Reserves `bytes` of address space, inaccessible (PROT_NONE), with no commit charge.
/// Returns the address or nullptr (errno set).
void* os_reserve(std::size_t bytes) noexcept;
/// Unmaps a range.
int os_release(void* addr, std::size_t bytes) noexcept;
/// Makes a range readable and writable (it is committed on first touch).
int os_make_accessible(void* addr, std::size_t bytes) noexcept;
/// Makes a range read-only (a later write faults with SIGSEGV).
int os_make_readonly(void* addr, std::size_t bytes) noexcept;
/// Binds a range's memory policy to one NUMA node (MPOL_BIND), moving nothing.
int os_bind_memory(void* addr, std::size_t bytes, int node) noexcept;
/// Faults a range's pages in writable without storing to them (MADV_POPULATE_WRITE), under the
/// range's memory policy and from the calling thread's node, as a first touch would. The range
/// is widened to whole pages. -EINVAL where the kernel predates Linux 5.14.
int os_populate_write(void* addr, std::size_t bytes) noexcept;
/// Asks for transparent huge pages on a range (MADV_HUGEPAGE).
int os_advise_hugepages(void* addr, std::size_t bytes) noexcept;
/// The node a page's memory policy binds it to (get_mempolicy MPOL_F_ADDR): the first node of
/// an MPOL_BIND/MPOL_PREFERRED mask, or -1 for the default policy. `addr` need not be aligned.
int os_policy_node(const void* addr) noexcept;
/// The node a page currently is on (move_pages query), or -ENOENT when it is not present.
/// `addr` need not be aligned.
int os_page_node(const void* addr) noexcept;
/// The system page size.
std::size_t os_page_size() noexcept;

// ---- Giving pages back, for the jemalloc arenas' purge hooks (alloc/arenas.cpp). ----

/// Lets the kernel reclaim a private anonymous range's pages lazily (MADV_FREE): until it does,
/// they keep their contents; afterwards they read as zeros. The range stays mapped.
int os_advise_free(void* addr, std::size_t bytes) noexcept;
/// Drops a private anonymous range's pages now (MADV_DONTNEED): the next touch reads zeros and
/// takes a fresh page under the range's memory policy. The range stays mapped.
int os_advise_dontneed(void* addr, std::size_t bytes) noexcept;

}  // namespace pgas::detail
