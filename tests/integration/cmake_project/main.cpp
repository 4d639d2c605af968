// Built by tests/integration/cmake_project/CMakeLists.txt against pgas's CMake package: every
// thread writes its number + 1 into a shared array, thread 0 sums them and prints the sum.
#include <cstdio>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    pgas::shared_array<long> a({static_cast<std::size_t>(pgas::threads())});
    a(static_cast<std::size_t>(pgas::mythread())) = pgas::mythread() + 1;
    pgas::barrier();
    if (pgas::mythread() == 0) {
      long sum = 0;
      for (int t = 0; t < pgas::threads(); ++t)
        sum += a(static_cast<std::size_t>(t));
      std::printf("cmake package: %d threads, sum %ld\n", pgas::threads(), sum);
    }
  });
}
