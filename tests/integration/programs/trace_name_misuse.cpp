// Integration program: pgas::trace_name of an address no shared allocation holds, which a traced
// job reports as misuse naming the call: with "private", a thread's own stack variable; with
// "freed", a local allocation already freed. Thread 1 makes the call; the others wait at a
// barrier.
#include <string_view>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string_view what = ac > 1 ? av[1] : "";
    if (pgas::mythread() == 1) {
      long mine = 0;
      if (what == "private") pgas::trace_name(&mine, "mine");  // @trace_name_misuse:private
      pgas::sptr<long> p = pgas::local_alloc_shared(sizeof(long));
      pgas::free(p);
      if (what == "freed") pgas::trace_name(p.get(), "gone");  // @trace_name_misuse:freed
    }
    pgas::barrier();
    return 0;
  });
}
