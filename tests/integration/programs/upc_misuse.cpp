// Integration program: misuse through the UPC names of <pgas/upc.hpp>, which must be reported
// at the UPC call's file and line as the pgas call would be. Usage: upc_misuse MODE, where MODE
// is barrier_mismatch (thread 1 in upc_barrier(2) while the others are in upc_barrier(1)),
// relock (thread 1 calls upc_lock on a lock it holds), free_array (thread 1 calls upc_free on
// a shared array's element), all_free_array (every thread calls upc_all_free on one),
// reduce_op (every thread passes an operation of the atomics, UPC_FADD, to upc_all_reduceI),
// reduce_mismatch (thread 1 passes upc_all_reduceI another element count; the report names
// upc_all_reduceI, as the program spells it), unlock_unheld (thread 1 calls upc_unlock on a
// lock no thread holds), nb_null (thread 1 starts upc_memget_nb from the null
// pointer-to-shared), memput_null, memget_past_segment, memget_segment_tail,
// memget_null_private and memcpy_overlap (thread 1's blocking upc_memput to the null
// pointer-to-shared, upc_memget of bytes past the end of thread 0's segment, of its last bytes
// that no allocation reached, or into a null pointer, upc_memcpy between overlapping ranges:
// caught in every build), notify_collective (a UPC collective between upc_notify and upc_wait),
// notify_barrier (thread 1's upc_barrier there), wait_id (thread 1's upc_wait(2) after
// upc_notify(1)), mixed_wait (pgas::wait(2) after upc_notify(1)), all_lock_free_held
// (upc_all_lock_free of a lock thread 1 holds): reports name the UPC statements as written;
// atomic_size and atomic_kind (thread 1's UPC atomic on a `shared long` through a UPC_INT or
// UPC_DOUBLE domain), atomic_unnamed (on a char16_t through UPC_UINT); sync_twice and
// sync_garbage (thread 1's upc_sync of a copy of a handle already completed, or of a malloc'd
// handle slot that no call filled). The job must end with status 1 naming the call at the MODE's
// marker.
#include <cstdlib>
#include <cstring>
#include <string>

#include <pgas/upc.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string mode = ac > 1 ? av[1] : "barrier_mismatch";
    pgas::shared_array<int, 1, 1> a({static_cast<std::size_t>(THREADS)});
    upc_lock_t* l = upc_all_lock_alloc();
    upc_barrier;
    if (mode == "barrier_mismatch") {
      if (MYTHREAD == 1) {
        upc_barrier(2);  // @upc:barrier_mismatch
      } else {
        upc_barrier(1);
      }
    } else if (mode == "relock") {
      if (MYTHREAD == 1) {
        upc_lock(l);
        upc_lock(l);  // @upc:relock
      }
    } else if (mode == "free_array") {
      if (MYTHREAD == 1) upc_free(a.ptr(1));  // @upc:free_array
    } else if (mode == "all_free_array") {
      upc_all_free(a.ptr(0));  // @upc:all_free_array
    } else if (mode == "reduce_mismatch") {
      const std::size_t count = MYTHREAD == 1 ? 2 : 1;
      pgas::shared_array<int, 1, 1> sum({1});
      upc_all_reduceI(sum.ptr(0), a.ptr(0), UPC_ADD, count, 1, nullptr,  // @upc:reduce_mismatch
                      UPC_IN_ALLSYNC | UPC_OUT_ALLSYNC);
    } else if (mode == "reduce_op") {
      upc_all_reduceI(a.ptr(0), a.ptr(0), UPC_FADD, 1, 1, nullptr, 0);  // @upc:reduce_op
    } else if (mode == "unlock_unheld") {
      if (MYTHREAD == 1) upc_unlock(l);  // @upc:unlock_unheld
    } else if (mode == "notify_collective") {
      pgas::shared_array<int, 1, 1> sum({1});
      upc_notify;
      upc_all_reduceI(sum.ptr(0), a.ptr(0), UPC_ADD, 1, 1, nullptr,  // @upc:notify_collective
                      UPC_IN_NOSYNC | UPC_OUT_NOSYNC);
      upc_wait;
    } else if (mode == "notify_barrier") {
      upc_notify;
      if (MYTHREAD == 1) upc_barrier;  // @upc:notify_barrier
      upc_wait;
    } else if (mode == "wait_id") {
      upc_notify(1);
      if (MYTHREAD == 1) {
        upc_wait(2);  // @upc:wait_id
      } else {
        upc_wait(1);
      }
    } else if (mode == "mixed_wait") {
      upc_notify(1);
      if (MYTHREAD == 1) {
        pgas::wait(2);  // @upc:mixed_wait
      } else {
        upc_wait(1);
      }
    } else if (mode == "atomic_unnamed") {
      pgas::shared_array<char16_t, 1, 1> units({static_cast<std::size_t>(THREADS)});
      upc_atomicdomain_t* d = upc_all_atomicdomain_alloc(UPC_UINT, UPC_INC, 0);
      if (MYTHREAD == 1) {
        upc_atomic_relaxed(d, nullptr, UPC_INC, units.ptr(0), nullptr,  // @upc:atomic_unnamed
                           nullptr);
      }
      upc_barrier;
      upc_all_atomicdomain_free(d);
    } else if (mode == "all_lock_free_held") {
      upc_lock_t* held = upc_all_lock_alloc();
      if (MYTHREAD == 1) upc_lock(held);
      upc_barrier;
      upc_all_lock_free(held);  // @upc:all_lock_free_held
    } else if (mode == "atomic_size" || mode == "atomic_kind") {
      pgas::shared_array<long, 1, 1> counters({static_cast<std::size_t>(THREADS)});
      upc_atomicdomain_t* d =
          upc_all_atomicdomain_alloc(mode == "atomic_size" ? UPC_INT : UPC_DOUBLE, UPC_INC, 0);
      if (MYTHREAD == 1 && mode == "atomic_size") {
        upc_atomic_relaxed(d, nullptr, UPC_INC, counters.ptr(0), nullptr,  // @upc:atomic_size
                           nullptr);
      } else if (MYTHREAD == 1) {
        upc_atomic_strict(d, nullptr, UPC_INC, counters.ptr(0), nullptr,  // @upc:atomic_kind
                          nullptr);
      }
      upc_barrier;
      upc_all_atomicdomain_free(d);
    } else if (mode == "memput_null") {
      if (MYTHREAD == 1) {
        // The null pointer-to-shared, made so that the compiler cannot see it is null: its
        // address is thread 0's first shared byte, which an unchecked copy would overwrite.
        const int x = 1;
        const auto null = pgas::sptr<int>::from_word(mode.size() > 100 ? 64 : 0);
        upc_memput(null, &x, sizeof x);  // @upc:memput_null
      }
    } else if (mode == "memget_past_segment") {
      if (MYTHREAD == 1) {
        // 64 bytes from 8 bytes before the end of thread 0's segment.
        char buffer[64];
        const auto end = pgas::sptr<const char, 0>::from_parts(0, pgas::segment_size() - 8);
        upc_memget(buffer, end, sizeof buffer);  // @upc:memget_past_segment
      }
    } else if (mode == "memget_segment_tail") {
      if (MYTHREAD == 1) {
        // The last 64 bytes of thread 0's segment, which no allocation reached: not mapped.
        char buffer[64];
        const auto tail = pgas::sptr<const char, 0>::from_parts(0, pgas::segment_size() - 64);
        upc_memget(buffer, tail, sizeof buffer);  // @upc:memget_segment_tail
      }
    } else if (mode == "memget_null_private") {
      if (MYTHREAD == 1) {
        int* volatile nowhere = nullptr;
        upc_memget(nowhere, a.ptr(0), sizeof(int));  // @upc:memget_null_private
      }
    } else if (mode == "memcpy_overlap") {
      if (MYTHREAD == 1) {
        pgas::sptr<char, pgas::indefinite> buffer = upc_alloc(64);  // shared [] char *buffer
        upc_memcpy(buffer + 4, buffer, 32);                         // @upc:memcpy_overlap
        upc_free(buffer);
      }
    } else if (mode == "nb_null") {
      if (MYTHREAD == 1) {
        int x = 0;
        upc_handle_t h = upc_memget_nb(&x, pgas::sptr<const void>(), sizeof x);  // @upc:nb_null
        upc_sync(h);
      }
    } else if (mode == "sync_twice" || mode == "sync_garbage") {
      if (MYTHREAD == 1) {
        // 2 MiB: past the default threshold, so the transfer goes to a copy engine.
        constexpr std::size_t big = 2u << 20;
        pgas::sptr<char, pgas::indefinite> from = upc_alloc(big);
        auto* to = static_cast<char*>(std::malloc(big));
        auto* handles = static_cast<upc_handle_t*>(std::malloc(2 * sizeof(upc_handle_t)));
        std::memset(handles, 0x5c, 2 * sizeof(upc_handle_t));  // a reused block's old bytes
        handles[0] = upc_memget_nb(to, from, big);
        const upc_handle_t copy = handles[0];
        upc_sync(handles[0]);
        if (mode == "sync_twice") {
          upc_sync(copy);  // @upc:sync_twice
        } else {
          upc_sync(handles[1]);  // @upc:sync_garbage
        }
      }
    }
    upc_barrier;
    if (MYTHREAD == 0) upc_lock_free(l);
    return 0;
  });
}
