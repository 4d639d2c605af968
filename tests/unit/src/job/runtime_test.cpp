// Tests src/job/runtime.cpp: starting jobs, thread identity, exit statuses and real thread
// binding (checked with sched_getaffinity). Option resolution: run_options_test.cpp.
#include <sched.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <vector>

#include <pgas/pgas.hpp>

#include "../../test_job.hpp"

namespace {

std::vector<int> my_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace

TEST_CASE("outside a job there is one thread, number 0", "[runtime]") {
  CHECK(pgas::mythread() == 0);
  CHECK(pgas::threads() == 1);
  CHECK_FALSE(pgas::in_job());
}

TEST_CASE("the job's machine and placement are misuse outside a job", "[runtime][errors]") {
  CHECK_THROWS_AS(pgas::job_machine(), pgas::usage_error);
  CHECK_THROWS_WITH(pgas::job_placement(),
                    Catch::Contains("pgas::job_placement") && Catch::Contains("runtime_test.cpp:"));
}

TEST_CASE("every thread runs the body once with its own number", "[runtime]") {
  for (int n : {1, 2, 3, 5}) {
    std::vector<std::atomic<int>> seen(static_cast<std::size_t>(n));
    std::atomic<int> bad{0};
    int rc = pgas::run(test_job(n), 0, nullptr, [&](int, char**) {
      if (pgas::threads() != n || !pgas::in_job()) bad++;
      seen[static_cast<std::size_t>(pgas::mythread())]++;
      return 0;
    });
    CHECK(rc == 0);
    CHECK(bad == 0);
    for (auto& s : seen)
      CHECK(s == 1);
  }
  CHECK(pgas::threads() == 1);
}

TEST_CASE("the caller becomes thread 0", "[runtime]") {
  const auto caller = pthread_self();
  std::atomic<bool> same{false};
  pgas::run(test_job(3), 0, nullptr, [&] {
    if (pgas::mythread() == 0) same = pthread_equal(caller, pthread_self()) != 0;
  });
  CHECK(same);
}

TEST_CASE("argc and argv reach every thread", "[runtime]") {
  char a0[] = "prog", a1[] = "--flag";
  char* argv[] = {a0, a1, nullptr};
  std::atomic<int> ok{0};
  pgas::run(test_job(2), 2, argv, [&](int argc, char** av) {
    if (argc == 2 && std::string(av[1]) == "--flag") ok++;
    return 0;
  });
  CHECK(ok == 2);
}

TEST_CASE("the job status is the first non-zero status in thread order", "[runtime]") {
  CHECK(pgas::run(test_job(4), 0, nullptr,
                  [](int, char**) { return pgas::mythread() == 2 ? 5 : 0; }) == 5);
  CHECK(pgas::run(test_job(4), 0, nullptr, [](int, char**) {
          return pgas::mythread() >= 1 ? 10 + pgas::mythread() : 0;
        }) == 11);
  CHECK(pgas::run(test_job(3), 0, nullptr, [](int, char**) { return 0; }) == 0);
  CHECK(pgas::run(test_job(2), 0, nullptr, [] { return 3; }) == 3);
}

TEST_CASE("thread_local state is private to each thread", "[runtime]") {
  static thread_local int mine = -1;
  std::atomic<int> bad{0};
  pgas::run(test_job(4), 0, nullptr, [&] {
    mine = pgas::mythread();
    pgas::barrier();
    if (mine != pgas::mythread()) bad++;
  });
  CHECK(bad == 0);
}

// The per-thread globals rule of pgas/runtime.hpp: threads 1..N-1 are new in every job, so
// their thread_local objects start from their initialiser; thread 0 is the caller's thread.
TEST_CASE("thread_local objects are new in each job but thread 0's", "[runtime]") {
  static thread_local int calls = 0;
  std::vector<int> seen(3, -1);
  for (int job = 1; job <= 3; ++job) {
    pgas::run(test_job(3), 0, nullptr, [&] {
      ++calls;
      pgas::barrier();
      seen[pgas::mythread()] = calls;
    });
    CHECK(seen == std::vector<int>{job, 1, 1});
  }
  calls = 0;
}

TEST_CASE("bind-to core really binds each thread to its planned CPUs", "[runtime]") {
  const auto before = my_affinity();
  const int n = std::min(2, pgas::machine::current().pu_count());
  std::vector<std::vector<int>> got(static_cast<std::size_t>(n));
  std::vector<std::vector<int>> planned(static_cast<std::size_t>(n));
  int rc = pgas::run(test_job(n, pgas::bind_policy::core), 0, nullptr, [&] {
    const auto t = static_cast<std::size_t>(pgas::mythread());
    got[t] = my_affinity();
    planned[t] = pgas::job_placement()[t].cpus;
  });
  CHECK(rc == 0);
  for (int t = 0; t < n; ++t) {
    INFO("thread " << t);
    CHECK(got[static_cast<std::size_t>(t)] == planned[static_cast<std::size_t>(t)]);
    CHECK(planned[static_cast<std::size_t>(t)].size() >= 1);
  }
  // Thread 0 is the caller's thread: its binding is restored afterwards.
  CHECK(my_affinity() == before);
}

TEST_CASE("bind-to none leaves threads free", "[runtime]") {
  const auto before = my_affinity();
  std::vector<int> got;
  pgas::run(test_job(1, pgas::bind_policy::none), 0, nullptr, [&] { got = my_affinity(); });
  CHECK(got == before);
}

TEST_CASE("a described topology is planned and reported, never applied", "[runtime]") {
  const auto before = my_affinity();
  pgas::run_options o = test_job(4, pgas::bind_policy::core);
  o.topology = "synthetic:package:2 core:2 pu:1";
  std::vector<int> got;
  std::size_t plan_size = 0;
  int pus = 0;
  pgas::run(o, 0, nullptr, [&] {
    if (pgas::mythread() == 1) got = my_affinity();
    if (pgas::mythread() == 0) {
      plan_size = pgas::job_placement().size();
      pus = pgas::job_machine().pu_count();
    }
  });
  CHECK(plan_size == 4);
  CHECK(pus == 4);
  CHECK(got == before);
}

TEST_CASE("more threads than PUs still run correctly", "[runtime]") {
  std::atomic<int> sum{0};
  const int n = 3 * pgas::machine::current().pu_count() + 1;
  int rc = pgas::run(test_job(n, pgas::bind_policy::core), 0, nullptr, [&] {
    for (int i = 0; i < 50; ++i) {
      sum++;
      pgas::barrier();
    }
  });
  CHECK(rc == 0);
  CHECK(sum == 50 * n);
}

TEST_CASE("jobs can run one after another", "[runtime]") {
  for (int i = 0; i < 20; ++i) {
    CHECK(pgas::run(test_job(2), 0, nullptr, [] { pgas::barrier(); }) == 0);
  }
}
