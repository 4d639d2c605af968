// Integration program: a job whose reuse distances are known by hand, for the reuse driver
// (reuse_test.cpp). Thread 0 owns the 8 doubles of V's first block; thread 1 reads them in
// order twice, at two lines, with a barrier, a fence or nothing between the passes (the
// argument: "barrier", "fence" or "none"). By element, the first pass's 8 accesses are first
// accesses and the second pass's are each at distance 7 (the 7 others between), unless the
// barrier or fence dropped the last uses (8 first accesses again). By block (8 doubles, one
// unit), the first pass is one first access and 7 at distance 0, the second pass 8 at 0.
// Thread 1 also reads the block once through pgas::memget (one access of kind bulk).
#include <string_view>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string_view between = ac > 1 ? av[1] : "none";
    const int me = pgas::mythread();
    const auto n = static_cast<std::size_t>(pgas::threads());
    pgas::reuse_size(8 * n);
    pgas::shared_array<double> V({8 * n}, pgas::block_spec::cyclic(8));
    for (std::size_t i = 0; i < 8; ++i)
      V[8 * static_cast<std::size_t>(me) + i] = static_cast<double>(i);
    pgas::barrier();
    double sum = 0;
    if (me == 1) {
      for (std::size_t i = 0; i < 8; ++i)
        sum += V[i];  // @reuse_known:first
    }
    if (between == "barrier") pgas::barrier();
    if (between == "fence") pgas::fence();
    if (me == 1) {
      for (std::size_t i = 0; i < 8; ++i)
        sum += V[i];  // @reuse_known:second
      double copy[8];
      pgas::memget(copy, V.ptr(0), sizeof copy);  // @reuse_known:bulk
      sum += copy[7];
    }
    pgas::barrier();
    return sum == (me == 1 ? 2 * 28 + 7 : 0) ? 0 : 1;
  });
}
