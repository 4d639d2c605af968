// kernels/micro/instruction_counter.hpp — retired instructions of the calling thread, through a
// perf_event counter, for the micro-benchmarks that report instructions per access.
#pragma once

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace pgas::micro {

/// perf_event_open on the calling thread, user space only (allowed up to perf_event_paranoid 2
/// without privileges). It may be unavailable (no PMU in a VM, paranoid 3, seccomp): then
/// available() is false, why_unavailable() says why, and read_count() returns 0. Each thread
/// opens its own; read it only from the thread that made it.
class instruction_counter {
 public:
  instruction_counter() {
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd_ = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
    if (fd_ < 0) why_ = std::strerror(errno);
  }
  ~instruction_counter() {
    if (fd_ >= 0) close(fd_);
  }
  instruction_counter(const instruction_counter&) = delete;
  instruction_counter& operator=(const instruction_counter&) = delete;

  bool available() const noexcept { return fd_ >= 0; }
  const std::string& why_unavailable() const noexcept { return why_; }
  std::uint64_t read_count() const noexcept {
    std::uint64_t v = 0;
    if (fd_ < 0 || ::read(fd_, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return 0;
    return v;
  }

 private:
  int fd_ = -1;
  std::string why_;
};

}  // namespace pgas::micro
