// Integration program: value collectives (pgas/collectives.hpp) that disagree across threads,
// or are misused, chosen by argv[1]:
//   root      broadcast with root 0 on thread 0 and root 1 on the others
//   op        allreduce with std::plus on thread 0 and std::multiplies on the others
//   function  allreduce with one plain function on thread 0 and another of the same type on
//             the others (UPC_FUNC's form: the address is compared too)
//   type      allreduce of an int on thread 0 and of a long on the others
//   kind      allreduce on thread 0 and scan on the others
//   barrier   allreduce on thread 0 and pgas::barrier on the others
//   count     span allreduce of 3 elements on thread 0 and 4 on the others
//   bad_root  broadcast from root 7 on every thread (outside THREADS)
//   gather    allgather into a span of THREADS + 1 elements
//   notified  allreduce between pgas::notify() and pgas::wait() on every thread
//   notified_alloc  all_alloc (a collective that agrees through the barrier) there
// Each disagreement must end the job with status 1 naming every thread's call at its
// @value_mismatch:<case>:<side> line; the misuse cases name the call at @value_mismatch:<case>.
#include <pgas/pgas.hpp>

#include <array>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace {
int add(int a, int b) {
  return a + b;
}
int multiply(int a, int b) {
  return a * b;
}
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string c = ac > 1 ? av[1] : "";
    const bool zero = pgas::mythread() == 0;
    if (c == "root") {
      if (zero) {
        (void)pgas::broadcast(1.0, 0);  // @value_mismatch:root:0
      } else {
        (void)pgas::broadcast(1.0, 1);  // @value_mismatch:root:1
      }
    } else if (c == "op") {
      if (zero) {
        (void)pgas::allreduce(2, std::plus<>{});  // @value_mismatch:op:0
      } else {
        (void)pgas::allreduce(2, std::multiplies<>{});  // @value_mismatch:op:1
      }
    } else if (c == "function") {
      // Chosen at run time, as a port of UPC_FUNC's function pointer would.
      int (*const f)(int, int) = zero ? add : multiply;
      if (zero) {
        (void)pgas::allreduce(2, f);  // @value_mismatch:function:0
      } else {
        (void)pgas::allreduce(2, f);  // @value_mismatch:function:1
      }
    } else if (c == "type") {
      if (zero) {
        (void)pgas::allreduce(2, std::plus<>{});  // @value_mismatch:type:0
      } else {
        (void)pgas::allreduce(2L, std::plus<>{});  // @value_mismatch:type:1
      }
    } else if (c == "kind") {
      if (zero) {
        (void)pgas::allreduce(2, std::plus<>{});  // @value_mismatch:kind:0
      } else {
        (void)pgas::scan(2, std::plus<>{});  // @value_mismatch:kind:1
      }
    } else if (c == "barrier") {
      if (zero) {
        (void)pgas::allreduce(2, std::plus<>{});  // @value_mismatch:barrier:0
      } else {
        pgas::barrier();  // @value_mismatch:barrier:1
      }
    } else if (c == "count") {
      std::vector<int> v(zero ? 3 : 4, 1);
      if (zero) {
        pgas::allreduce(std::span(v), std::plus<>{});  // @value_mismatch:count:0
      } else {
        pgas::allreduce(std::span(v), std::plus<>{});  // @value_mismatch:count:1
      }
    } else if (c == "bad_root") {
      (void)pgas::broadcast(1, 7);  // @value_mismatch:bad_root
    } else if (c == "gather") {
      std::vector<int> out(static_cast<std::size_t>(pgas::threads()) + 1);
      pgas::allgather(1, std::span(out));  // @value_mismatch:gather
    } else if (c == "notified") {
      pgas::notify();
      (void)pgas::allreduce(1L, std::plus<>{});  // @value_mismatch:notified
      pgas::wait();
    } else if (c == "notified_alloc") {
      pgas::notify();
      (void)pgas::all_alloc(1, 64);  // @value_mismatch:notified_alloc
      pgas::wait();
    }
    return 0;
  });
}
