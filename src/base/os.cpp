// src/base/os.cpp — the one door to the operating system (see os.hpp for the contract).
//
// Linux-only: futex(2) for sleeping waits, sched_yield, pthreads, hwloc for binding,
// sigaction/sigaltstack for fatal-signal reports, tgkill for asking one thread for its backtrace,
// on_exit/at_quick_exit and dladdr.

#include "src/base/os.hpp"

#include <dlfcn.h>
#include <link.h>
#include <linux/futex.h>
#include <numaif.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <iterator>

namespace pgas::detail {

void os_yield() noexcept {
  sched_yield();
}

int os_futex_wait(std::atomic<uint32_t>* word, uint32_t expected, uint64_t timeout_ns) noexcept {
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout_ns != 0) {
    ts.tv_sec = static_cast<time_t>(timeout_ns / 1000000000u);
    ts.tv_nsec = static_cast<long>(timeout_ns % 1000000000u);
    tsp = &ts;
  }
  // std::atomic<uint32_t> is layout-compatible with uint32_t on Linux targets.
  long r = syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, tsp,
                   nullptr, 0);
  if (r == 0) return 0;
  return errno == EAGAIN ? 0 : -errno;
}

int os_futex_wake(std::atomic<uint32_t>* word, int count) noexcept {
  long r = syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, count, nullptr,
                   nullptr, 0);
  return r < 0 ? -errno : static_cast<int>(r);
}

uint64_t os_now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

int os_thread_create(pthread_t* out, std::size_t stack_bytes, void* (*fn)(void*),
                     void* arg) noexcept {
  pthread_attr_t attr;
  int r = pthread_attr_init(&attr);
  if (r != 0) return -r;
  if (stack_bytes != 0) r = pthread_attr_setstacksize(&attr, stack_bytes);
  if (r == 0) r = pthread_create(out, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  return -r;
}

int os_thread_join(pthread_t t) noexcept {
  return -pthread_join(t, nullptr);
}

int os_thread_id() noexcept {
  return static_cast<int>(gettid());
}

int os_signal_thread(int tid, int sig) noexcept {
  return tgkill(getpid(), tid, sig) == 0 ? 0 : -errno;
}

int os_thread_background(int tid) noexcept {
  const sched_param none{};
  if (sched_setscheduler(tid, SCHED_IDLE, &none) == 0) return 0;
  return setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19) == 0 ? 0 : -errno;
}

int os_bind_thread(hwloc_topology_t topo, const std::vector<int>& cpus) noexcept {
  if (cpus.empty()) return 0;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) return -ENOMEM;
  for (int c : cpus)
    hwloc_bitmap_set(set, static_cast<unsigned>(c));
  int r = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
  if (r != 0 && errno == EXDEV) {
    // Strict binding is not supported everywhere; a plain binding is still a binding.
    r = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
  }
  int err = r == 0 ? 0 : -errno;
  hwloc_bitmap_free(set);
  return err;
}

hwloc_bitmap_t os_get_thread_binding(hwloc_topology_t topo) noexcept {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set != nullptr && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0) {
    hwloc_bitmap_free(set);
    return nullptr;
  }
  return set;
}

int os_set_thread_binding(hwloc_topology_t topo, hwloc_const_bitmap_t set) noexcept {
  return hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0 ? 0 : -errno;
}

void os_write_stderr(std::string_view text) noexcept {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

namespace {
constexpr int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction saved_actions[sizeof(fatal_signals) / sizeof(fatal_signals[0])];
bool actions_saved = false;
thread_local void* signal_stack = nullptr;
}  // namespace

int os_thread_stack(std::uintptr_t* lo, std::size_t* bytes) noexcept {
  pthread_attr_t attr;
  if (const int r = pthread_getattr_np(pthread_self(), &attr); r != 0) return -r;
  void* addr = nullptr;
  std::size_t size = 0;
  const int r = pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  if (r != 0) return -r;
  *lo = reinterpret_cast<std::uintptr_t>(addr);
  *bytes = size;
  return 0;
}

int os_at_fork_child(void (*fn)()) noexcept {
  return -pthread_atfork(nullptr, nullptr, fn);
}

void os_block_signals() noexcept {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

int os_install_fatal_signals(os_signal_handler handler) noexcept {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(fatal_signals); ++i) {
    if (sigaction(fatal_signals[i], &sa, &saved_actions[i]) != 0) return -errno;
  }
  actions_saved = true;
  return 0;
}

void os_restore_fatal_signals() noexcept {
  if (!actions_saved) return;
  for (std::size_t i = 0; i < std::size(fatal_signals); ++i) {
    sigaction(fatal_signals[i], &saved_actions[i], nullptr);
  }
  actions_saved = false;
}

int os_install_signal(int sig, os_signal_handler handler, struct sigaction* saved) noexcept {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  return sigaction(sig, &sa, saved) == 0 ? 0 : -errno;
}

void os_restore_signal(int sig, const struct sigaction& saved) noexcept {
  sigaction(sig, &saved, nullptr);
}

int os_backtrace_signal() noexcept {
  return SIGRTMAX - 3;
}

int os_on_exit(void (*fn)(int status, void* arg), void* arg) noexcept {
  return on_exit(fn, arg) == 0 ? 0 : -ENOMEM;
}

int os_on_quick_exit(void (*quick_fn)()) noexcept {
  return at_quick_exit(quick_fn) == 0 ? 0 : -ENOMEM;
}

const char* os_module_of(const void* addr) noexcept {
  Dl_info info{};
  if (dladdr(addr, &info) == 0 || info.dli_fname == nullptr || *info.dli_fname == '\0')
    return nullptr;
  return info.dli_fname;
}

const char* os_symbol_of(const void* addr, std::uintptr_t& start) noexcept {
  Dl_info info{};
  if (dladdr(addr, &info) == 0 || info.dli_sname == nullptr || *info.dli_sname == '\0')
    return nullptr;
  start = reinterpret_cast<std::uintptr_t>(info.dli_saddr);
  return info.dli_sname;
}

bool os_in_static_storage(const void* addr) noexcept {
  struct query {
    std::uintptr_t addr;
    bool found;
  } q{reinterpret_cast<std::uintptr_t>(addr), false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto* q = static_cast<query*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) == 0) continue;
          const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          if (q->addr >= start && q->addr < start + ph.p_memsz) {
            q->found = true;
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.found;
}

int os_setup_signal_stack() noexcept {
  if (signal_stack != nullptr) return 0;
  // Large enough for the report: message formatting plus libunwind's unwinding.
  const std::size_t size = 64 * 1024;
  void* mem = std::malloc(size);
  if (mem == nullptr) return -ENOMEM;
  stack_t ss{};
  ss.ss_sp = mem;
  ss.ss_size = size;
  if (sigaltstack(&ss, nullptr) != 0) {
    int e = errno;
    std::free(mem);
    return -e;
  }
  signal_stack = mem;
  return 0;
}

void os_release_signal_stack() noexcept {
  if (signal_stack == nullptr) return;
  stack_t ss{};
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, nullptr);
  std::free(signal_stack);
  signal_stack = nullptr;
}

void os_die_of_signal(int sig) noexcept {
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  // Deliver to the whole process, not only this thread, so no other thread lingers.
  kill(getpid(), sig);
  raise(sig);
  _exit(128 + sig);
}

void os_exit(int status) noexcept {
  _exit(status);
}

void os_park() noexcept {
  for (;;)
    pause();
}

void* os_reserve(std::size_t bytes) noexcept {
  void* p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

int os_release(void* addr, std::size_t bytes) noexcept {
  return munmap(addr, bytes) == 0 ? 0 : -errno;
}

int os_make_accessible(void* addr, std::size_t bytes) noexcept {
  return mprotect(addr, bytes, PROT_READ | PROT_WRITE) == 0 ? 0 : -errno;
}

int os_make_readonly(void* addr, std::size_t bytes) noexcept {
  return mprotect(addr, bytes, PROT_READ) == 0 ? 0 : -errno;
}

int os_bind_memory(void* addr, std::size_t bytes, int node) noexcept {
  if (node < 0) return -EINVAL;
  unsigned long mask[16] = {};
  const auto bits = sizeof(mask[0]) * 8;
  if (static_cast<std::size_t>(node) >= std::size(mask) * bits) return -EINVAL;
  mask[static_cast<std::size_t>(node) / bits] |= 1ul << (static_cast<std::size_t>(node) % bits);
  return mbind(addr, bytes, MPOL_BIND, mask, std::size(mask) * bits, 0) == 0 ? 0 : -errno;
}

int os_populate_write(void* addr, std::size_t bytes) noexcept {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; glibc 2.36 names it
#endif
  if (bytes == 0) return 0;
  const std::uintptr_t page = os_page_size();
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(addr) & ~(page - 1);
  const std::uintptr_t end =
      (reinterpret_cast<std::uintptr_t>(addr) + bytes + page - 1) & ~(page - 1);
  return madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0 ? 0
                                                                                        : -errno;
}

int os_advise_hugepages(void* addr, std::size_t bytes) noexcept {
  return madvise(addr, bytes, MADV_HUGEPAGE) == 0 ? 0 : -errno;
}

int os_policy_node(const void* addr) noexcept {
  int mode = 0;
  unsigned long mask[16] = {};
  const auto bits = sizeof(mask[0]) * 8;
  if (get_mempolicy(&mode, mask, std::size(mask) * bits, const_cast<void*>(addr), MPOL_F_ADDR) !=
      0) {
    return -errno;
  }
  if (mode == MPOL_DEFAULT) return -1;
  for (std::size_t n = 0; n < std::size(mask) * bits; ++n) {
    if ((mask[n / bits] >> (n % bits)) & 1ul) return static_cast<int>(n);
  }
  return -1;
}

int os_page_node(const void* addr) noexcept {
  const auto page = os_page_size();
  void* pages[1] = {reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(addr) & ~(page - 1))};
  int status[1] = {-1};
  if (move_pages(0, 1, pages, nullptr, status, 0) != 0) return -errno;
  return status[0];
}

std::size_t os_page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

const char* os_signal_name(int sig) noexcept {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGABRT:
      return "SIGABRT";
    case SIGQUIT:
      return "SIGQUIT";
    default:
      return "signal";
  }
}

// ---- Giving pages back (alloc/arenas.cpp purge hooks). ----

int os_advise_free(void* addr, std::size_t bytes) noexcept {
  return madvise(addr, bytes, MADV_FREE) == 0 ? 0 : -errno;
}

int os_advise_dontneed(void* addr, std::size_t bytes) noexcept {
  return madvise(addr, bytes, MADV_DONTNEED) == 0 ? 0 : -errno;
}

}  // namespace pgas::detail
