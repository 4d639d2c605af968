// Tests src/job/sync_listener.cpp and its calls from the job layer: each thread's listeners are
// told of that thread's barriers (at barrier() and notify(), not wait()), collectives, fences,
// locks (lock() and a successful try_lock(), not a failed one) and unlocks, in registration
// order; a listener may unregister itself from on_sync, and one that throws makes the
// synchronising call throw before it synchronises; sync_count counts each kind per thread.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pgas/detail/sync_listener.hpp>
#include <pgas/pgas.hpp>

#include "../../test_job.hpp"

namespace {

using pgas::detail::sync_kind;

// A listener that appends "NAME:KIND" to a log, and runs `also` after.
class recorder final : public pgas::detail::sync_listener {
 public:
  recorder(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  void on_sync(sync_kind kind) override {
    static constexpr std::array<const char*, 4> names = {"barrier", "fence", "lock", "unlock"};
    log_.push_back(name_ + ":" + names[static_cast<std::size_t>(kind)]);
    if (also) also(kind);
  }
  std::function<void(sync_kind)> also;

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

std::array<std::uint64_t, 4> counts_now() {
  std::array<std::uint64_t, 4> c{};
  for (int k = 0; k < 4; ++k)
    c[static_cast<std::size_t>(k)] = pgas::detail::sync_count(static_cast<sync_kind>(k));
  return c;
}

}  // namespace

TEST_CASE("sync listeners run in registration order, and not once unregistered",
          "[sync_listener]") {
  std::vector<std::string> log;
  recorder a("a", log), b("b", log), c("c", log);
  const auto before = counts_now();
  pgas::detail::sync_listen(&a);
  pgas::detail::sync_listen(&b);
  pgas::detail::sync_listen(&c);
  pgas::detail::sync_point(sync_kind::fence);
  pgas::detail::sync_unlisten(&b);
  pgas::detail::sync_point(sync_kind::lock);
  pgas::detail::sync_unlisten(&a);
  pgas::detail::sync_unlisten(&c);
  pgas::detail::sync_point(sync_kind::unlock);
  CHECK(log == std::vector<std::string>{"a:fence", "b:fence", "c:fence", "a:lock", "c:lock"});
  const auto after = counts_now();
  CHECK(after[0] - before[0] == 0);
  CHECK(after[1] - before[1] == 1);
  CHECK(after[2] - before[2] == 1);
  CHECK(after[3] - before[3] == 1);
}

TEST_CASE("a sync listener may unregister itself from on_sync; the next one still runs",
          "[sync_listener]") {
  std::vector<std::string> log;
  recorder a("a", log), b("b", log), c("c", log);
  b.also = [&](sync_kind) { pgas::detail::sync_unlisten(&b); };
  a.also = [&](sync_kind) { pgas::detail::sync_unlisten(&a); };
  pgas::detail::sync_listen(&a);
  pgas::detail::sync_listen(&b);
  pgas::detail::sync_listen(&c);
  pgas::detail::sync_point(sync_kind::barrier);
  pgas::detail::sync_point(sync_kind::fence);
  pgas::detail::sync_unlisten(&c);
  pgas::detail::sync_point(sync_kind::fence);
  CHECK(log == std::vector<std::string>{"a:barrier", "b:barrier", "c:barrier", "c:fence"});
}

TEST_CASE(
    "each thread's sync listeners hear its barriers, collectives, fences, locks and "
    "unlocks",
    "[sync_listener]") {
  constexpr int n = 2;
  std::array<std::vector<std::string>, n> logs;
  std::array<std::array<std::uint64_t, 4>, n> counted{};
  std::atomic<int> try_lock_wrong{0};
  pgas::run(test_job(n), 0, nullptr, [&] {
    const int me = pgas::mythread();
    pgas::lock_t l = pgas::all_lock_alloc();
    std::vector<std::string>& log = logs[static_cast<std::size_t>(me)];
    recorder first("first", log), second("second", log);
    const auto before = counts_now();
    pgas::detail::sync_listen(&first);
    pgas::detail::sync_listen(&second);

    pgas::barrier();
    log.push_back("-");
    pgas::notify();
    log.push_back("-");
    pgas::wait();
    log.push_back("-");
    pgas::fence();
    log.push_back("-");
    l.lock();
    log.push_back("-");
    l.unlock();
    log.push_back("-");
    (void)pgas::allreduce(me, std::plus<>{});
    log.push_back("-");
    // Thread 0 holds the lock while thread 1's try_lock fails, then thread 1's succeeds.
    if (me == 0) {
      l.lock();
      log.push_back("-");
    }
    pgas::barrier();
    log.push_back("-");
    if (me == 1 && l.try_lock()) try_lock_wrong++;
    log.push_back("-");
    pgas::barrier();
    log.push_back("-");
    if (me == 0) {
      l.unlock();
      log.push_back("-");
    }
    pgas::barrier();
    log.push_back("-");
    if (me == 1) {
      if (!l.try_lock()) try_lock_wrong++;
      log.push_back("-");
      l.unlock();
      log.push_back("-");
    }

    pgas::detail::sync_unlisten(&second);
    pgas::detail::sync_unlisten(&first);
    const auto after = counts_now();
    for (std::size_t k = 0; k < 4; ++k)
      counted[static_cast<std::size_t>(me)][k] = after[k] - before[k];
    pgas::barrier();
    pgas::all_lock_free(l);
  });
  CHECK(try_lock_wrong == 0);
  const auto both = [](const char* kind) {
    return std::vector<std::string>{std::string("first:") + kind, std::string("second:") + kind,
                                    "-"};
  };
  const auto join = [](std::initializer_list<std::vector<std::string>> parts) {
    std::vector<std::string> out;
    for (const auto& p : parts)
      out.insert(out.end(), p.begin(), p.end());
    return out;
  };
  const std::vector<std::string> none = {"-"};
  // barrier, notify, wait, fence, lock, unlock, allreduce
  const auto common = join({both("barrier"), both("barrier"), none, both("fence"), both("lock"),
                            both("unlock"), both("barrier")});
  CHECK(logs[0] == join({common, both("lock"), both("barrier"), none, both("barrier"),
                         both("unlock"), both("barrier")}));
  CHECK(logs[1] == join({common, both("barrier"), none, both("barrier"), both("barrier"),
                         both("lock"), both("unlock")}));
  // barrier, fence, lock, unlock
  CHECK(counted[0] == std::array<std::uint64_t, 4>{6, 1, 2, 2});
  CHECK(counted[1] == std::array<std::uint64_t, 4>{6, 1, 2, 2});
}

TEST_CASE("a sync listener that throws makes the barrier throw before the thread arrives",
          "[sync_listener]") {
  std::atomic<int> thrown{0};
  std::atomic<int> passed{0};
  pgas::run(test_job(3), 0, nullptr, [&] {
    std::vector<std::string> log;
    recorder thrower("thrower", log);
    thrower.also = [&](sync_kind) {
      pgas::detail::sync_unlisten(&thrower);
      throw std::runtime_error("listener");
    };
    pgas::detail::sync_listen(&thrower);
    try {
      pgas::barrier();
    } catch (const std::runtime_error&) {
      thrown++;
    }
    // Had the throwing call arrived, this barrier would be a phase ahead of the others'.
    pgas::barrier();
    passed++;
    pgas::barrier();
  });
  CHECK(thrown == 3);
  CHECK(passed == 3);
}
