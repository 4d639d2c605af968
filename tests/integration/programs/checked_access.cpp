// Integration program: accesses outside an allocation, caught only by checked builds
// (-Dbounds_check=true or -Ddebug_level>=1). Usage: checked_access MODE, where MODE is index,
// negative, rank1, ptr, deref, dangling, atomic_dangling, memget, memput, memcpy, memset_range,
// memset, double_free or foreign_free (pgas::free of a local allocation already freed, or of a
// pointer inside one that local_alloc never returned). Thread 1 makes the bad access at the line
// with the MODE's marker while the others wait at a barrier; the job must end with status 1 naming
// thread 1, what was wrong and this file and line (for a dereference, which has no call to name
// it, in its backtrace: this build has debug information).
#include <cstring>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string mode = ac > 1 ? av[1] : "index";
    pgas::shared_array<int, 2> a({4, 6}, pgas::block_spec::cyclic(3));
    pgas::shared_array<double> v({10});
    std::vector<char> buffer(1 << 20);
    pgas::sptr<double, 4> dangling;
    {
      pgas::shared_array<double, 1, 4> gone({100});
      dangling = gone.ptr(5);
    }
    int j = 6;
    const pgas::atomic_domain<double> d(pgas::atomic_op::add);
    if (pgas::mythread() == 1) {
      if (mode == "index") {
        a(2, j) = 1;  // @checked:index
      } else if (mode == "negative") {
        a(-1, 2) = 1;  // @checked:negative
      } else if (mode == "rank1") {
        v[10] = 1.0;  // @checked:rank1
      } else if (mode == "ptr") {
        (void)a.ptr(4, 0);  // @checked:ptr
      } else if (mode == "deref") {
        auto p = a.ptr(0, 0) + 100000;
        *p = 1;  // @checked:deref
      } else if (mode == "dangling") {
        *dangling = 1.0;  // @checked:dangling
      } else if (mode == "atomic_dangling") {
        d.add(dangling, 1.0);  // @checked:atomic_dangling
      } else if (mode == "memget") {
        pgas::memget(buffer.data(), a.ptr(3, 0), 100);  // @checked:memget
      } else if (mode == "memput") {
        pgas::memput(a.ptr(0, 0) + 10000, buffer.data(), 4);  // @checked:memput
      } else if (mode == "memcpy") {
        pgas::memcpy(a.ptr(1, 0), v.ptr(0), 1000);  // @checked:memcpy
      } else if (mode == "memset_range") {
        pgas::memset(a.ptr(3, 5), 0, 64);  // @checked:memset_range
      } else if (mode == "memset") {
        // The null pointer-to-shared, made so that the compiler cannot see it is null.
        const auto null = pgas::sptr<char>::from_word(mode.size() > 100 ? 64 : 0);
        pgas::memset(null, 0, 4);  // @checked:memset
      } else if (mode == "double_free") {
        void* p = pgas::local_alloc(64);
        pgas::free(p);
        pgas::free(p);  // @checked:double_free
      } else if (mode == "foreign_free") {
        char* p = static_cast<char*>(pgas::local_alloc(64));
        pgas::free(p + 16);  // @checked:foreign_free
      }
      pgas::exit(3);  // not reached in a checked build
    }
    pgas::barrier();
    return 0;
  });
}
