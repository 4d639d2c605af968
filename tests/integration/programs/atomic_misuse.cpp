// Integration program: misuse of atomic domains (pgas/atomic.hpp) that every build catches.
// Usage: atomic_misuse MODE, where MODE is not_in_set, bitwise_float, bitwise_float_upc,
// mismatch_ops, mismatch_type, freed, not_shared, misaligned or null. The misuse happens at the
// line with the MODE's marker (in every thread for bitwise_float, in thread 1 for the others;
// the mismatches are made by thread 1 disagreeing with thread 0's line). The job must end with
// status 1 naming the thread, what was wrong and this file and line.
#include <string>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    using pgas::atomic_op;
    const std::string mode = ac > 1 ? av[1] : "not_in_set";
    const bool one = pgas::mythread() == 1;
    pgas::shared_array<long> a({2 * static_cast<std::size_t>(pgas::threads())});
    if (mode == "bitwise_float") {
      const pgas::atomic_ops ops = atomic_op::fadd | atomic_op::and_;
      pgas::atomic_domain<double> d(ops);  // @atomic_misuse:bitwise_float
    } else if (mode == "mismatch_ops") {
      if (one) {
        const pgas::atomic_ops ops = atomic_op::fadd | atomic_op::cswap;
        pgas::atomic_domain<long> d(ops);  // @atomic_misuse:mismatch_ops1
      } else {
        pgas::atomic_domain<long> d(atomic_op::fadd);  // @atomic_misuse:mismatch_ops0
      }
    } else if (mode == "mismatch_type") {
      if (one) {
        pgas::atomic_domain<double> d(atomic_op::fadd);  // @atomic_misuse:mismatch_type1
      } else {
        pgas::atomic_domain<long> d(atomic_op::fadd);  // @atomic_misuse:mismatch_type0
      }
    } else if (mode == "bitwise_float_upc") {
      pgas::atomic_domain<double> d({atomic_op::fadd, atomic_op::get});
      pgas::shared_array<double> x({1});
      double v = 1, old = 0;
      const auto op = atomic_op::fxor;
      pgas::atomicdomain* dd = d.get();
      const auto t = x.ptr(0);
      if (one) pgas::atomic_relaxed(dd, &old, op, t, &v, 0);  // @atomic_misuse:bitwise_float_upc
      pgas::barrier();
    } else {
      pgas::atomic_domain<long> d(atomic_op::add);
      if (mode == "freed") {
        pgas::atomicdomain* raw = d.get();
        d.free();
        long old = 0;
        if (one)
          pgas::atomic_strict(raw, &old, atomic_op::get, a.ptr(0), 0, 0);  // @atomic_misuse:freed
      } else if (one) {
        long local = 0;
        if (mode == "not_in_set") {
          (void)d.fetch_add(a.ptr(0), 1);  // @atomic_misuse:not_in_set
        } else if (mode == "not_shared") {
          d.add(local, 1);  // @atomic_misuse:not_shared
        } else if (mode == "misaligned") {
          const auto p = pgas::sptr_cast<long, pgas::indefinite>(
              pgas::sptr_cast<char, pgas::indefinite>(a.ptr(1)) + 1);
          d.add(p, 1);  // @atomic_misuse:misaligned
        } else if (mode == "null") {
          d.add(pgas::sptr<long>(), 1);  // @atomic_misuse:null
        }
      }
      pgas::barrier();
    }
    return 0;
  });
}
