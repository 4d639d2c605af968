// Integration program: more distinct trace keys than a small PGAS_TRACE_MEMORY holds. Each
// thread makes ALLOCS local allocations (first argument, default 1000) and writes one element
// of each from one line, so that every write is a new (site, allocation, owner) key, then meets
// BARRIERS barriers (second argument, default 0), each a wait for the timeline.
#include <cstdlib>
#include <vector>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const int allocs = ac > 1 ? std::atoi(av[1]) : 1000;
    const int barriers = ac > 2 ? std::atoi(av[2]) : 0;
    std::vector<pgas::sptr<long>> elements;
    for (int i = 0; i < allocs; ++i)
      elements.push_back(pgas::local_alloc_shared(sizeof(long)));
    for (const auto& p : elements)
      *p = 1;  // @trace_many:write
    for (int b = 0; b < barriers; ++b)
      pgas::barrier();  // @trace_many:barrier
    for (const auto& p : elements)
      pgas::free(p);
    return 0;
  });
}
