// Integration program: misuse of forall steps, forall array affinity and typed pointer
// conversions that every build catches. Usage: typed_misuse MODE, where MODE is block_mismatch
// (converting &A[i] of a `shared [3] int` array to a `shared int *`, UPC's block 1), step_zero
// (pgas::step(0)), forall_past_array, forall_general_past_array or forall_nested_past_array
// (a forall, plain, general or general inside a controlling forall, with array affinity whose
// iterations run past the array). The misuse happens in thread 1 at the
// line with the MODE's marker; the job must end with status 1 naming thread 1, what was wrong and
// this file and line.
#include <string>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string mode = ac > 1 ? av[1] : "block_mismatch";
    pgas::shared_array<int> a({12}, pgas::block_spec::cyclic(3));
    pgas::shared_array<int> b({12});  // block 1: converts
    const pgas::sptr<int> fine = b.ptr(5);
    *fine = 1;
    pgas::barrier();
    if (pgas::mythread() == 1) {
      if (mode == "block_mismatch") {
        const pgas::sptr<int> p = a.ptr(4);  // @typed_misuse:block_mismatch
        *p = 1;
      } else if (mode == "step_zero") {
        const int k = pgas::threads() - 2;
        pgas::forall(0, 12, pgas::step(k), [&](int i) { a[i] = i; });  // @typed_misuse:step_zero
      } else if (mode == "forall_past_array") {
        const int n = 12 + pgas::threads() - 1;
        pgas::forall(0, n, a, [&](int i) { a[i] = i; });  // @typed_misuse:forall_past_array
      } else if (mode == "forall_nested_past_array") {
        pgas::forall(1, 2, [&](int) {  // iteration 1: thread 1 (THREADS is 2)
          pgas::forall(                // @typed_misuse:forall_nested_past_array
              0, [](int i) { return i < 14; }, [](int i) { return i + 1; }, a,
              [&](int i) { a[i] = i; });
        });
      } else if (mode == "forall_general_past_array") {
        pgas::forall(  // @typed_misuse:forall_general_past_array
            0, [](int i) { return i < 15; }, [](int i) { return i + 1; }, a,
            [&](int i) { a[i] = i; });
      }
    }
    pgas::barrier();
    return 0;
  });
}
