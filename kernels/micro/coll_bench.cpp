// kernels/micro/coll_bench.cpp — the bandwidth of UPC's collectives library
// (pgas/upc_collectives.hpp) against plain memcpy, as JSON lines. For each collective, --bytes
// is what each thread receives (broadcast and scatter: one block of --bytes; gather_all and
// exchange: THREADS blocks of --bytes / THREADS). Thread 0 times each call from a barrier
// before to a barrier after; the reference, in the same run, is every thread memcpy-ing the
// same number of bytes between two buffers of its own segment between the same barriers. A row
// gives both medians over --reps, the bandwidths (bytes received by all threads per second)
// and their ratio, `of_memcpy` (and the same of the fastest repetitions, `of_memcpy_min`). Every
// call's result is checked (a sample of each block).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

struct options {
  std::size_t bytes = std::size_t{16} << 20;
  int reps = 11;
  std::vector<std::string> collectives = {"broadcast", "exchange", "scatter", "gather_all"};
  std::string flags = "allsync";
};

pgas::coll_flags parse_flags(const std::string& s) {
  if (s == "allsync") return pgas::in_allsync | pgas::out_allsync;
  if (s == "mysync") return pgas::in_mysync | pgas::out_mysync;
  return pgas::in_nosync | pgas::out_nosync;
}

unsigned char byte_of(int thread, std::size_t i) {
  return static_cast<unsigned char>(thread * 131 + static_cast<int>(i % 251));
}

// Seconds between two barriers around `f`, measured on thread 0. The first barrier wakes every
// thread, the second starts the clock with all of them running.
template <class F>
double timed(F f) {
  pgas::barrier();
  pgas::barrier();
  const auto t0 = clock_type::now();
  f();
  pgas::barrier();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

int body(const options& o) {
  const int n = pgas::threads();
  const int me = pgas::mythread();
  const auto un = static_cast<std::size_t>(n);
  const pgas::coll_flags flags = parse_flags(o.flags);
  bool all_verified = true;
  for (const std::string& name : o.collectives) {
    const bool rooted = name == "broadcast" || name == "scatter";
    // Block size and the bytes of each thread's src and dst parts.
    const std::size_t block = rooted ? o.bytes : std::max<std::size_t>(o.bytes / un, 1);
    const std::size_t received = rooted ? block : block * un;
    const std::size_t src_part = name == "broadcast" ? block : block * un;
    const pgas::shared_alloc src = pgas::all_alloc(un, src_part);
    const pgas::shared_alloc dst = pgas::all_alloc(un, received);
    const pgas::shared_alloc scratch = pgas::all_alloc(un, received);
    auto* mine = static_cast<unsigned char*>(src.part(me));
    for (std::size_t i = 0; i < src_part; ++i)
      mine[i] = byte_of(me, i);
    std::memset(dst.part(me), 0, received);
    std::memset(scratch.part(me), 1, received);
    const auto s0 = pgas::sptr<char, pgas::indefinite>::from_parts(0, src.offset());
    const auto d0 = pgas::sptr<char, pgas::indefinite>::from_parts(0, dst.offset());
    std::vector<double> coll_s, copy_s;
    bool verified = true;
    for (int r = 0; r < o.reps; ++r) {
      // Alternating which goes first: a thread that slept through the check below (the
      // other's) wakes late, and the first timing after it would pay for that.
      const auto collective = [&] {
        if (name == "broadcast") pgas::all_broadcast(d0, s0, block, flags);
        if (name == "scatter") pgas::all_scatter(d0, s0, block, flags);
        if (name == "gather_all") pgas::all_gather_all(d0, s0, block, flags);
        if (name == "exchange") pgas::all_exchange(d0, s0, block, flags);
      };
      const auto copy = [&] { std::memcpy(scratch.part(me), src.part(me), received); };
      if (r % 2 == 0) {
        coll_s.push_back(timed(collective));
        copy_s.push_back(timed(copy));
      } else {
        copy_s.push_back(timed(copy));
        coll_s.push_back(timed(collective));
      }
      // Check a sample of every block this thread received (outside the clock).
      const auto* got = static_cast<const unsigned char*>(dst.part(me));
      for (std::size_t b = 0; b < received / block; ++b) {
        const int from = rooted ? 0 : static_cast<int>(b);
        const std::size_t off = name == "scatter"    ? static_cast<std::size_t>(me) * block
                                : name == "exchange" ? static_cast<std::size_t>(me) * block
                                                     : 0;
        for (std::size_t i = 0; i < block; i += 4093)
          verified = verified && got[b * block + i] == byte_of(from, off + i);
        verified = verified && got[b * block + block - 1] == byte_of(from, off + block - 1);
      }
    }
    // Every thread's verdict, through a reduction.
    const pgas::shared_alloc ok = pgas::all_alloc(un, sizeof(int));
    const pgas::shared_alloc ok_all = pgas::all_alloc(1, sizeof(int));
    *static_cast<int*>(ok.part(me)) = verified ? 1 : 0;
    pgas::all_reduce<int>(pgas::sptr<int, pgas::indefinite>::from_parts(0, ok_all.offset()),
                          pgas::sptr<int>::from_parts(0, ok.offset()), pgas::reduce_op::log_and, un,
                          1, nullptr);
    verified = *static_cast<int*>(ok_all.part(0)) != 0;
    all_verified = all_verified && verified;
    if (me == 0) {
      const double c = median(coll_s);
      const double m = median(copy_s);
      const double c_min = *std::min_element(coll_s.begin(), coll_s.end());
      const double m_min = *std::min_element(copy_s.begin(), copy_s.end());
      const double total = static_cast<double>(received) * n;
      nlohmann::ordered_json j;
      j["kernel"] = "upc_collectives";
      j["variant"] = name;
      j["flags"] = o.flags;
      j["threads"] = n;
      j["nbytes"] = block;
      j["bytes_per_thread"] = received;
      j["reps"] = o.reps;
      j["median_ms"] = round_places(c * 1e3, 3);
      j["memcpy_median_ms"] = round_places(m * 1e3, 3);
      j["gb_per_s"] = round_places(total / c * 1e-9, 2);
      j["memcpy_gb_per_s"] = round_places(total / m * 1e-9, 2);
      j["of_memcpy"] = round_places(m / c, 3);
      // The fastest of each: what a quiet machine gives when other processes share the cores.
      j["min_ms"] = round_places(c_min * 1e3, 3);
      j["memcpy_min_ms"] = round_places(m_min * 1e3, 3);
      j["of_memcpy_min"] = round_places(m_min / c_min, 3);
      j["seconds"] = c;
      j["verified"] = verified;
      print_row(j);
    }
    pgas::all_free(ok_all);
    pgas::all_free(ok);
    pgas::all_free(scratch);
    pgas::all_free(dst);
    pgas::all_free(src);
  }
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app("Bandwidth of the UPC collectives against memcpy");
  app.add_option("--bytes", o.bytes, "Bytes each thread receives (default 16 MiB)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  app.add_option("--reps", o.reps, "Repetitions (default 11)")->check(CLI::Range(1, 100000));
  app.add_option("--collective", o.collectives,
                 "Collectives to time (default broadcast exchange scatter gather_all)")
      ->check(CLI::IsMember({"broadcast", "exchange", "scatter", "gather_all"}));
  app.add_option("--flags", o.flags, "allsync, mysync or nosync (in and out; default allsync)")
      ->check(CLI::IsMember({"allsync", "mysync", "nosync"}));
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines");
  CLI11_PARSE(app, argc, argv);
  return pgas::run(argc, argv, [&o](int, char**) { return body(o); });
}
