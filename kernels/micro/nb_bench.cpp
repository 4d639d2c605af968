// nb_bench — how much of a non-blocking copy (pgas/nb.hpp) hides behind computation: thread 0
// gets BYTES (default 64 MiB) from the last thread's segment with pgas::memget_nb while it runs
// a compute loop that touches no memory, then syncs. Each rep times, side by side: the copy
// alone (memget_nb, then sync at once), the compute loop alone, and both overlapped (memget_nb,
// compute, sync); the blocking pgas::memget of the same bytes is the reference. Alone, the copy
// is made by the engine and the syncing thread together (sync copies the pieces the engine has
// not started), so it can beat the blocking memget where a second core is free. The loop is
// calibrated to last as long as the blocking copy, so the overlap fraction
//     (copy + compute - both) / min(copy, compute)
// is 1 when the copy hides completely and 0 when nothing overlaps.
//
// Output: one JSON line with the median (and min, max) milliseconds of each and the overlap
// fraction of the medians; `verified` is false (exit 1) when a copied byte differs.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

struct options {
  std::size_t bytes = std::size_t{64} << 20;
  int reps = 9;
};

volatile std::uint64_t sink;

// A dependent chain of multiply-xorshift steps: registers only, so it competes with the copy
// engine for nothing but the core it runs on.
void compute(long iterations) {
  std::uint64_t x = 0x2545F4914F6CDD1Dull;
  for (long i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    x ^= x >> 29;
  }
  sink = x;
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

int body(const options& o) {
  const int me = pgas::mythread();
  const int from = pgas::threads() - 1;
  const pgas::shared_alloc a = pgas::all_alloc(static_cast<std::size_t>(pgas::threads()), o.bytes);
  auto* mine = static_cast<unsigned char*>(a.part(me));
  for (std::size_t k = 0; k < o.bytes; ++k)
    mine[k] = static_cast<unsigned char>((k * 2654435761u) >> 13);
  pgas::barrier();
  int status = 0;
  if (me == 0) {
    const auto src = pgas::sptr<const char, pgas::indefinite>::from_parts(from, a.offset());
    std::vector<unsigned char> dst(o.bytes, 0);  // touched before any timing
    bool verified = true;
    const auto check = [&] {
      verified = verified && std::memcmp(dst.data(), a.part(from), o.bytes) == 0;
      std::memset(dst.data(), 0, 64);
    };
    // Calibrate: the loop's rate, and the blocking copy's time (median of three).
    std::vector<double> blocking;
    for (int i = 0; i < 3; ++i) {
      const auto t0 = clock_type::now();
      pgas::memget(dst.data(), src, o.bytes);
      blocking.push_back(ms_since(t0));
    }
    long probe = 1 << 20;
    double probe_ms = 0;
    for (; (probe_ms =
                [&] {
                  const auto t0 = clock_type::now();
                  compute(probe);
                  return ms_since(t0);
                }()) < 5;
         probe *= 2) {
    }
    const long iterations =
        std::max(1L, static_cast<long>(static_cast<double>(probe) * median(blocking) / probe_ms));

    std::vector<double> copy_ms, compute_ms, both_ms;
    for (int r = 0; r < o.reps; ++r) {
      auto t0 = clock_type::now();
      pgas::memget(dst.data(), src, o.bytes);
      blocking.push_back(ms_since(t0));
      check();

      t0 = clock_type::now();
      pgas::nb_handle h = pgas::memget_nb(dst.data(), src, o.bytes);
      pgas::sync(h);
      copy_ms.push_back(ms_since(t0));
      check();

      t0 = clock_type::now();
      compute(iterations);
      compute_ms.push_back(ms_since(t0));

      t0 = clock_type::now();
      h = pgas::memget_nb(dst.data(), src, o.bytes);
      compute(iterations);
      pgas::sync(h);
      both_ms.push_back(ms_since(t0));
      check();
    }
    const stats copy = summarise(copy_ms), comp = summarise(compute_ms), both = summarise(both_ms);
    const stats block = summarise(std::vector<double>(blocking.begin() + 3, blocking.end()));
    const double overlap =
        (copy.median + comp.median - both.median) / std::min(copy.median, comp.median);
    nlohmann::ordered_json j;
    j["kernel"] = "nb_overlap";
    j["threads"] = pgas::threads();
    j["bytes"] = o.bytes;
    j["from_thread"] = from;
    j["threshold"] = pgas::nb_threshold() == SIZE_MAX ? -1.0 : double(pgas::nb_threshold());
    j["reps"] = o.reps;
    j["compute_iterations"] = iterations;
    for (const auto& [name, s] : {std::pair{"copy", copy}, std::pair{"compute", comp},
                                  std::pair{"both", both}, std::pair{"blocking_memget", block}}) {
      j[std::string(name) + "_ms"] = round_places(s.median, 3);
      j[std::string(name) + "_min_ms"] = round_places(s.min, 3);
      j[std::string(name) + "_max_ms"] = round_places(s.max, 3);
    }
    j["overlap"] = round_places(overlap, 3);
    j["verified"] = verified;
    print_row(j);
    status = verified ? 0 : 1;
  }
  pgas::barrier();
  pgas::all_free(a);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app("Overlap of pgas::memget_nb with a compute loop");
  app.add_option("--bytes", o.bytes, "Bytes to copy (default 67108864, 64 MiB)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 34));
  app.add_option("--reps", o.reps, "Repetitions of each measurement (default 9)")
      ->check(CLI::Range(1, 100000));
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines");
  CLI11_PARSE(app, argc, argv);
  return pgas::run(argc, argv, [&o](int, char**) { return body(o); });
}
