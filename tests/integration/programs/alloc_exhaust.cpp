// Integration program: shared memory exhaustion is an exception the program can handle.
// Each thread allocates 256 KiB local blocks until pgas::bad_shared_alloc (the limit comes from
// pgasrun --shared-heap), prints what it caught, frees everything, allocates once more, and
// returns 0 — the job goes on after running out.
#include <cstdio>
#include <vector>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    std::vector<void*> blocks;
    try {
      for (;;)
        blocks.push_back(pgas::local_alloc(256 * 1024));
    } catch (const pgas::bad_shared_alloc& e) {
      std::printf("thread %d caught after %zu blocks: %s\n", pgas::mythread(), blocks.size(),
                  e.what());
    }
    for (void* p : blocks)
      pgas::free(p);
    void* again = pgas::local_alloc(256 * 1024);
    pgas::free(again);
    pgas::barrier();
    return 0;
  });
}
