// Integration program: thread 0 holds a lock while it waits in a UPC collective for thread 1,
// which can only make the call after taking that lock. argv[1] picks the collective's flags:
//   mysync   all_broadcast with in_mysync | out_mysync (thread 0, the root, waits for thread 1
//            to enter the call)
//   nosync   all_reduce with in_nosync | out_nosync (thread 0, the computing thread, waits for
//            thread 1's part)
//   spin     all_reduce with mysync flags, but thread 1 spins for ever instead of locking: no
//            deadlock, a hang that --timeout reports (thread 0 waits for thread 1)
// Other threads make the call too. The job must end with a report naming the lock wait and the
// collective wait (the driver finds the lines by the @lock_collective markers below).
#include <atomic>
#include <string>
#include <thread>

#include <pgas/pgas.hpp>

namespace {
std::atomic<bool> taken{false};
std::atomic<bool> never{false};
}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "mysync";
  return pgas::run(argc, argv, [&] {
    const auto n = static_cast<std::size_t>(pgas::threads());
    const pgas::shared_alloc in = pgas::all_alloc(n, sizeof(long));
    const pgas::shared_alloc out = pgas::all_alloc(n, sizeof(long));
    const auto src = pgas::sptr<long>::from_parts(0, in.offset());
    const auto dst = pgas::sptr<long>::from_parts(0, out.offset());
    src[pgas::mythread()] = 1;
    pgas::lock_t l = pgas::all_lock_alloc();
    pgas::barrier();
    const auto call = [&] {
      if (mode == "mysync") {
        const pgas::coll_flags f = pgas::in_mysync | pgas::out_mysync;
        pgas::all_broadcast(dst, src, sizeof(long), f);  // @lock_collective:broadcast
      } else {
        const pgas::coll_flags f = mode == "nosync" ? pgas::in_nosync | pgas::out_nosync
                                                    : pgas::in_mysync | pgas::out_mysync;
        const auto add = pgas::reduce_op::add;
        pgas::all_reduce<long>(dst, src, add, n, 1, {}, f);  // @lock_collective:reduce
      }
    };
    if (pgas::mythread() == 0) {
      l.lock();  // @lock_collective:held
      taken.store(true);
      call();
      l.unlock();
    } else if (pgas::mythread() == 1) {
      while (!taken.load())
        std::this_thread::yield();
      if (mode == "spin") {
        while (!never.load()) {  // @lock_collective:spin
        }
      }
      l.lock();  // @lock_collective:wait
      l.unlock();
      call();
    } else {
      call();
    }
    pgas::barrier();
  });
}
