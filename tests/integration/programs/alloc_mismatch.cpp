// Integration program: pgas::all_alloc called with different arguments on different threads.
// Thread t asks for 4 blocks of 100 + t bytes; the job must end with status 1 naming the
// threads and their values (nblocks=4, nbytes=100 / 101) at the marked line.
#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [] {
    const std::size_t nbytes = 100 + static_cast<std::size_t>(pgas::mythread());
    pgas::shared_alloc a = pgas::all_alloc(4, nbytes);  // @alloc_mismatch
    pgas::all_free(a);
  });
}
