// Integration program: a write into a privatization table ends the job with SIGSEGV naming the
// thread, the replica and the table, because replicas are sealed read-only once filled.
// Usage: table_write_fault [THREAD] (default 1). Every thread privatizes a shared [16] int
// A[8][16] (table 1, one replica per thread), reads every element through it and prints a line.
// The replica's address is private to a table handle, so the program then builds a second,
// identical table (table 2) through the library's own entry point, pgas::detail::table_build,
// which returns it; after a barrier THREAD stores into the first pointer of its replica of
// table 2 while every other thread waits at a second barrier.
#include <cstdio>
#include <cstdlib>
#include <source_location>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int victim = ac > 1 ? std::atoi(av[1]) : 1;
    const int me = pgas::mythread();
    const pgas::shared_array<int, 2> a({8, 16}, pgas::block_spec::cyclic(16));
    for (std::size_t i = 0; i < 8; ++i)
      for (std::size_t j = 0; j < 16; ++j)
        if (a.ptr(i, j).thread() == me) a(i, j) = static_cast<int>(i * 16 + j);
    pgas::barrier();

    const auto t = pgas::privatize(a, {.replicas = pgas::replicate::per_thread});
    int good = 0;
    for (std::size_t i = 0; i < 8; ++i)
      for (std::size_t j = 0; j < 16; ++j)
        good += t(i, j) == static_cast<int>(i * 16 + j) && &t(i, j) == &a(i, j);
    std::printf("thread %d read %d elements through replica %d of its table\n", me, good,
                t.replica());
    std::fflush(stdout);

    const pgas::table_shape shape(a.layout());
    const pgas::detail::table_ref second = pgas::detail::table_build(
        a.layout(), sizeof(int), reinterpret_cast<char*>(a.local_part(0).data()), shape,
        pgas::replicate::per_thread, false, nullptr, std::source_location::current());
    pgas::barrier();
    if (me == victim) {
      std::printf("thread %d writes into its replica of table 2\n", me);
      std::fflush(stdout);
      auto* volatile root = const_cast<const void**>(second.root);
      root[0] = nullptr;  // the replica is read-only: SIGSEGV
      std::printf("thread %d wrote into a table and was not stopped\n", me);
      std::fflush(stdout);
    }
    pgas::barrier();
    pgas::detail::table_release(second.state);
    return 0;
  });
}
