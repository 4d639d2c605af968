// Integration program: misused UPC collectives (pgas/upc_collectives.hpp). The argument picks
// the misuse; each ends the job with status 1 and a message naming the threads and the calls'
// file:line (the @upc_collective_misuse markers):
//   nbytes   thread 0 broadcasts 8 bytes, the others 16 (default flags: allsync)
//   nosync   the same with in_nosync | out_nosync (no barrier at all)
//   other    thread 0 calls all_broadcast, the others all_gather
//   barrier  thread 0 calls all_exchange with in_mysync, the others pgas::barrier()
//   null     every thread passes a null dst
//   range    nbytes runs past the end of src's allocation
//   overlap  src and dst of all_exchange overlap
//   perm     all_permute's perm holds a thread twice
//   address  thread 0 broadcasts from src, the others from src + 8 (UPC's arguments are
//            single-valued, addresses too)
//   func     all_reduce with reduce_op::func, thread 0 passing one function, the others another
//   overrun  all_reduce one int past a 16-byte-per-thread array (inside its 64-byte padding)
//   skipped  thread 0 meets the others' NOSYNC all_broadcast with a barrier: the barrier
//            reports that thread 0 made one UPC collective call fewer
//   skipped_last  thread 0 skips the others' NOSYNC all_broadcast, and no barrier follows: the
//            last thread to return reports it
//   nelems   all_reduce over a garbage count (-1 converted to size_t): reported at once, not
//            after walking 2^64 elements
#include <pgas/pgas.hpp>

#include <string>

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "nbytes";
  return pgas::run(argc, argv, [&] {
    const int n = pgas::threads();
    const pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(n), 64);
    const pgas::shared_alloc b = pgas::all_alloc(static_cast<std::size_t>(n), 64);
    const auto src = pgas::sptr<char, pgas::indefinite>::from_parts(0, a.offset());
    const auto dst = pgas::sptr<char>::from_parts(0, b.offset());
    const auto all_src = pgas::sptr<char>::from_parts(0, a.offset());
    const bool zero = pgas::mythread() == 0;
    if (what == "nbytes") {
      if (zero) {
        pgas::all_broadcast(dst, src, 8);  // @upc_collective_misuse:nbytes0
      } else {
        pgas::all_broadcast(dst, src, 16);  // @upc_collective_misuse:nbytes1
      }
    } else if (what == "nosync") {
      const pgas::coll_flags f = pgas::in_nosync | pgas::out_nosync;
      if (zero) {
        pgas::all_broadcast(dst, src, 8, f);  // @upc_collective_misuse:nosync0
      } else {
        pgas::all_broadcast(dst, src, 16, f);  // @upc_collective_misuse:nosync1
      }
    } else if (what == "other") {
      if (zero) {
        pgas::all_broadcast(dst, src, 4);  // @upc_collective_misuse:other0
      } else {
        pgas::all_gather(src, dst, 4);  // @upc_collective_misuse:other1
      }
    } else if (what == "barrier") {
      if (zero) {
        pgas::all_exchange(dst, all_src, 4, pgas::in_mysync);  // @upc_collective_misuse:barrier0
      } else {
        pgas::barrier();  // @upc_collective_misuse:barrier1
      }
    } else if (what == "null") {
      pgas::all_broadcast(nullptr, src, 8);  // @upc_collective_misuse:null
    } else if (what == "range") {
      pgas::all_broadcast(dst, src, 100);  // @upc_collective_misuse:range
    } else if (what == "overlap") {
      const auto inside = pgas::sptr<char, pgas::indefinite>::from_parts(0, b.offset() + 1);
      pgas::all_exchange(dst, inside, 4);  // @upc_collective_misuse:overlap
    } else if (what == "perm") {
      const pgas::shared_alloc p = pgas::all_alloc(static_cast<std::size_t>(n), sizeof(int));
      const auto perm = pgas::sptr<int>::from_parts(0, p.offset());
      perm[pgas::mythread()] = 0;
      pgas::barrier();
      pgas::all_permute(dst, all_src, perm, 4);  // @upc_collective_misuse:perm
    } else if (what == "address") {
      if (zero) {
        pgas::all_broadcast(dst, src, 8);  // @upc_collective_misuse:address0
      } else {
        pgas::all_broadcast(dst, src + 8, 8);  // @upc_collective_misuse:address1
      }
    } else if (what == "func") {
      const auto f = pgas::reduce_op::func;
      long (*first)(long, long) = [](long x, long y) { return x + y; };
      long (*second)(long, long) = [](long x, long y) { return x * y; };
      if (zero) {
        pgas::all_reduce<long>(dst, all_src, f, 4, 1, first);  // @upc_collective_misuse:func0
      } else {
        pgas::all_reduce<long>(dst, all_src, f, 4, 1, second);  // @upc_collective_misuse:func1
      }
    } else if (what == "overrun") {
      const pgas::shared_alloc small = pgas::all_alloc(static_cast<std::size_t>(n), 16);
      const auto ints = pgas::sptr<const void>(pgas::sptr<int, 4>::from_parts(0, small.offset()));
      const auto add = pgas::reduce_op::add;
      const std::size_t past = 4 * static_cast<std::size_t>(n) + 1;
      pgas::all_reduce<int>(dst, ints, add, past, 4, {});  // @upc_collective_misuse:overrun
    } else if (what == "skipped") {
      if (zero) {
        pgas::barrier();
      } else {
        const pgas::coll_flags f = pgas::in_nosync | pgas::out_nosync;
        pgas::all_broadcast(dst, src, 8, f);  // @upc_collective_misuse:skipped
      }
    } else if (what == "skipped_last") {
      if (!zero) {
        const pgas::coll_flags f = pgas::in_nosync | pgas::out_nosync;
        pgas::all_broadcast(dst, src, 8, f);  // @upc_collective_misuse:skipped_last
      }
      return;
    } else if (what == "nelems") {
      const auto garbage = static_cast<std::size_t>(-1);
      const auto add = pgas::reduce_op::add;
      pgas::all_reduce<long>(dst, all_src, add, garbage, 1, {});  // @upc_collective_misuse:nelems
    }
    pgas::barrier();
  });
}
