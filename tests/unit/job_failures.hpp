// tests/unit/job_failures.hpp — collecting assertion failures from inside a job's threads.
// Catch2's assertions are not thread-safe, so job threads record failures here (EXPECT) and the
// test's own thread checks them after the job ends (check_no_failures).
#pragma once

#include <atomic>
#include <mutex>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <pgas/runtime.hpp>

// The first few failure messages of a job, and how many there were.
class failures {
 public:
  void add(const std::string& what) {
    if (count_.fetch_add(1) < 12) {
      std::lock_guard g(mutex_);
      messages_ += what + "\n";
    }
  }
  int count() const { return count_.load(); }
  std::string messages() const {
    std::lock_guard g(mutex_);
    return messages_;
  }

 private:
  std::atomic<int> count_{0};
  mutable std::mutex mutex_;
  std::string messages_;
};

#define EXPECT(f, cond, what)                                                                   \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::ostringstream expect_os_;                                                            \
      expect_os_ << "thread " << pgas::mythread() << " of " << pgas::threads() << ": " << #cond \
                 << " failed at line " << __LINE__ << ": " << what;                             \
      (f).add(expect_os_.str());                                                                \
    }                                                                                           \
  } while (0)

inline void check_no_failures(const failures& f) {
  INFO(f.messages());
  CHECK(f.count() == 0);
}
