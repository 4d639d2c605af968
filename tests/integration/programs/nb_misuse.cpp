// Integration program: misuse of the non-blocking transfers (pgas/nb.hpp). Usage: nb_misuse
// MODE, where MODE is double_sync, test_after_sync, other_thread, discard, overlap, null_private,
// null_shared, past_segment, outside_alloc (checked builds), engine_fault or leak. Thread 1 misuses
// at the line with the MODE's marker (for other_thread, thread 0 syncs thread 1's handle; for
// discard, the marker is where the discarded transfer started) while the others wait at a barrier;
// the job must end with status 1 naming the thread, what was wrong and this file and line. leak
// keeps a handle past the job in static storage: the job ends with status 0 and a warning naming
// the transfer's line. engine_fault makes the copy engine fault: the job dies of SIGSEGV, the
// report naming the engine. engine_fault_at_end starts such a transfer on thread 1 and every
// thread returns at once (each having printed a line, left in stdout's buffer when it is a
// pipe), so that the engine faults as the job ends: the same report, and the lines survive.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

namespace {
pgas::nb_handle* handed_over = nullptr;
pgas::nb_handle leaked;
}  // namespace

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const std::string mode = ac > 1 ? av[1] : "double_sync";
    constexpr std::size_t big = 2u << 20;  // through a copy engine
    const pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(pgas::threads()), big);
    const auto on = [&](int t, std::size_t k) {
      return pgas::sptr<char, pgas::indefinite>::from_parts(t, a.offset() + k);
    };
    std::vector<char> buffer(big);
    pgas::nb_handle mine;
    pgas::barrier();
    if (pgas::mythread() == 1) {
      if (mode == "double_sync") {
        pgas::nb_handle h = pgas::memget_nb(buffer.data(), on(0, 0), big);
        pgas::sync(h);
        pgas::sync(h);  // @nb:double_sync
      } else if (mode == "test_after_sync") {
        pgas::nb_handle h = pgas::memput_nb(on(0, 0), buffer.data(), big);
        while (!pgas::test(h)) {
        }
        (void)pgas::test(h);  // @nb:test_after_sync
      } else if (mode == "other_thread") {
        mine = pgas::memget_nb(buffer.data(), on(0, 0), big);  // @nb:other_thread_start
        handed_over = &mine;
      } else if (mode == "discard") {
        pgas::nb_handle h = pgas::memset_nb(on(0, 0), 0, big);  // @nb:discard
      } else if (mode == "overlap") {
        pgas::memcpy_nbi(on(0, 100), on(0, 0), big / 2);  // @nb:overlap
      } else if (mode == "null_private") {
        char* null = mode.size() > 100 ? buffer.data() : nullptr;
        pgas::memget_nbi(null, on(0, 0), 10);  // @nb:null_private
      } else if (mode == "null_shared") {
        const auto null = pgas::sptr<char>::from_word(mode.size() > 100 ? 64 : 0);
        (void)pgas::memset_nb(null, 0, 4);  // @nb:null_shared
      } else if (mode == "past_segment") {
        // Far more bytes than thread 0's segment holds.
        pgas::memput_nbi(on(0, big - 8), buffer.data(), std::size_t{1} << 62);  // @nb:past_segment
      } else if (mode == "outside_alloc") {
        // Inside the segment but past the allocation: caught by checked builds only.
        pgas::memget_nbi(buffer.data(), on(0, big - 8), 100);  // @nb:outside_alloc
      } else if (mode == "engine_fault") {
        // A private destination the checks cannot judge (not null, not shared): the copy engine
        // faults writing it, and the report must not blame a UPC thread.
        auto* unmapped = reinterpret_cast<char*>(std::uintptr_t{4096});
        pgas::memget_nbi(unmapped, on(0, 0), big);
        while (!pgas::testi()) {  // testi() never copies: the engine does, and faults
        }
      } else if (mode == "engine_fault_at_end") {
        pgas::memget_nbi(reinterpret_cast<char*>(std::uintptr_t{4096}), on(0, 0), big);
      } else if (mode == "leak") {
        static std::vector<char> outlives_the_job(big);
        leaked = pgas::memget_nb(outlives_the_job.data(), on(0, 0), big);  // @nb:leak
      }
    }
    if (mode == "engine_fault_at_end") {
      std::printf("thread %d printed before the end\n", pgas::mythread());
      return 0;
    }
    pgas::barrier();
    if (mode == "other_thread" && pgas::mythread() == 0) {
      pgas::sync(*handed_over);  // @nb:other_thread
    }
    pgas::barrier();
    if (mode == "leak") return 0;  // `leaked` keeps its transfer past the job
    pgas::sync(mine);
    pgas::all_free(a);
    return 0;
  });
}
