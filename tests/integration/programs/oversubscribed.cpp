// Integration program: more threads than cores must progress, not hang. Every thread does 2000
// barriers, adding 1 to an atomic counter before each; after barrier p the counter must be at
// least (p+1)*THREADS (nobody passed early) and below (p+2)*THREADS (nobody ran two phases
// ahead). Fails with status 3 on a violation.
#include <atomic>
#include <cstdio>

#include <pgas/pgas.hpp>

namespace {
constexpr long phases = 2000;
std::atomic<long> counter{0};
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    const long n = pgas::threads();
    for (long p = 0; p < phases; ++p) {
      counter.fetch_add(1, std::memory_order_relaxed);
      pgas::barrier();
      const long seen = counter.load(std::memory_order_relaxed);
      if (seen < (p + 1) * n || seen >= (p + 2) * n) {
        std::fprintf(stderr, "thread %d phase %ld: counter %ld outside [%ld, %ld)\n",
                     pgas::mythread(), p, seen, (p + 1) * n, (p + 2) * n);
        return 3;
      }
    }
    if (pgas::mythread() == 0) std::printf("oversubscribed: %ld barriers ok\n", phases);
    return 0;
  });
}
