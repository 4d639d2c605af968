// Integration program: a traced job whose shared accesses are known exactly, per source line,
// issuing and owning thread, kind and direction, for the trace driver (trace_test.cpp) to
// compare with the file pgasrun --trace writes. Each @marker names a line the driver looks up.
// Thread t writes into the next thread's data and reads the previous thread's, in phases
// separated by barriers, so that no element is written while another thread accesses it (an
// element access's direction is decided by whether its bytes changed before the thread's next
// traced event). Arguments: "pause" runs the @paused lines inside a pgas::trace_scope that
// records nothing; "bulk-only" runs them inside one that records element accesses only.
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

#include <pgas/pgas.hpp>

namespace {
pgas::static_scalar<long> hits;                  // @trace_counts:hits
pgas::static_array<int> S(pgas::per_thread(1));  // @trace_counts:S
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const bool pause = ac > 1 && std::string_view(av[1]) == "pause";
    const bool elements_only = ac > 1 && std::string_view(av[1]) == "elements-only";
    const int me = pgas::mythread();
    const int n = pgas::threads();
    const int next = (me + 1) % n;
    const int prev = (me + n - 1) % n;
    const auto un = static_cast<std::size_t>(n);
    // Block 1: element i on thread i % n, thread t's part holding t, t + n, t + 2n, t + 3n.
    pgas::shared_array<long> A({4 * un});  // @trace_counts:A
    pgas::trace_name(A.ptr(0).get(), "vec");
    pgas::shared_array<int, 2> M({un, 8}, pgas::block_spec::cyclic(8));  // @trace_counts:M
    pgas::shared_array<long> B({4 * un});                                // @trace_counts:B
    pgas::shared_array<long> C({un});                                    // @trace_counts:C
    auto table = pgas::privatize(M);
    pgas::atomic_domain<long> d({pgas::atomic_op::get, pgas::atomic_op::set, pgas::atomic_op::add});
    pgas::lock_t l = pgas::all_lock_alloc();
    pgas::barrier();  // @trace_counts:b0

    for (int k = next; k < 4 * n; k += n)
      A[k] = me + k + 1;  // @trace_counts:aw
    for (int j = 0; j < 8; ++j)
      M(next, j) = 100 * me + j + 1;  // @trace_counts:mw
    if (me == 0) hits = 42;           // @trace_counts:sw
    S[next] = me + 1;                 // @trace_counts:Sw
    pgas::barrier();                  // @trace_counts:b1

    long sum = 0;
    for (int k = prev + n; k < 4 * n; k += n)  // not A[prev], which its owner writes now
      sum += A[k];                             // @trace_counts:ar
    for (int j = 0; j < 8; ++j)
      sum += M(me, j);           // @trace_counts:mr
    sum += M(me, 0) * M(me, 1);  // @trace_counts:two
    pgas::sptr<long> p = A.ptr(static_cast<std::size_t>(me));
    *p = -1 - me;     // @trace_counts:pw
    sum += p[n + 1];  // @trace_counts:pr
    for (int j = 0; j < 4; ++j)
      sum += table(prev, j);  // @trace_counts:tr
    sum += *hits;             // @trace_counts:sr
    sum += hits;              // @trace_counts:conv
    sum += S[me];             // @trace_counts:Sr
    pgas::barrier();          // @trace_counts:b2

    const auto to_next = static_cast<std::size_t>(next);
    const auto to_prev = static_cast<std::size_t>(prev);
    const auto far = static_cast<std::size_t>(next + 2 * n);
    long buf[2] = {me, me};
    long one = 0;
    pgas::memget(buf, A.ptr(to_next), sizeof buf);                  // @trace_counts:get
    pgas::memput(B.ptr(to_next), buf, sizeof buf);                  // @trace_counts:put
    pgas::memcpy(B.ptr(far), A.ptr(to_prev), sizeof(long));         // @trace_counts:copy
    pgas::sync(pgas::memget_nb(&one, A.ptr(to_prev), sizeof one));  // @trace_counts:nb
    sum += d.load(C.ptr(to_next));                                  // @trace_counts:aget
    d.store(C.ptr(static_cast<std::size_t>(me)), 5);                // @trace_counts:aset
    d.add(C.ptr(0), 1);                                             // @trace_counts:aadd
    pgas::strict(B[far + n]) = 100 + me;                            // @trace_counts:strict_w
    sum += pgas::strict(S[me]);                                     // @trace_counts:strict_r
    pgas::fence();                                                  // @trace_counts:fence
    pgas::barrier();                                                // @trace_counts:b3

    l.lock();                                                // @trace_counts:lock
    *hits += 1;                                              // @trace_counts:locked
    hits += 2;                                               // @trace_counts:compound
    ++hits;                                                  // @trace_counts:incr
    l.unlock();                                              // @trace_counts:unlock
    const long total = pgas::allreduce(sum, std::plus<>{});  // @trace_counts:allreduce
    sum += total;

    {
      std::optional<pgas::trace_scope> quiet;
      if (pause) quiet.emplace();
      if (elements_only) quiet.emplace(pgas::trace_mask::element);
      sum += A[prev];                                 // @trace_counts:paused_read
      B[next + 3 * n] = me + 1;                       // @trace_counts:paused_write
      pgas::memget(buf, B.ptr(to_prev), sizeof buf);  // @trace_counts:paused_get
      pgas::barrier();                                // @trace_counts:paused_barrier
    }
    pgas::barrier();                                         // @trace_counts:b4
    return sum == std::numeric_limits<long>::min() ? 3 : 0;  // the reads are used
  });
}
