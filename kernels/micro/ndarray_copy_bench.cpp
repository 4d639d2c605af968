// ndarray_copy_bench — what pgas::copy (pgas/ndarray_copy.hpp) costs beside std::memcpy: thread
// 0 copies from the last thread's piece, a rows x cols array of doubles (--mib MiB, default
// 64, two columns per row for each row), into its own, in five forms, each timed side by side
// with std::memcpy of the whole array in the same rep:
//   contiguous  copy(dst, src), same domains: one memcpy after the walk merges every dimension;
//   rows        copy(dst, src.constrict(box)) with the first and last column left out: one
//               memcpy per row of cols - 2 elements;
//   strided     every other column of src into a compact array (strided reads, contiguous
//               writes: half the elements, from every cache line of src);
//   scattered   a compact array into every other column of dst (contiguous reads, strided
//               writes);
//   transposed  copy(dst_t, src.transpose()) (reads with a stride of a row).
// GB/s counts the bytes copied (the elements of the intersection) over the median time;
// percent_of_memcpy is that over memcpy's GB/s. The targets: contiguous (and rows) at
// least 80 %, strided at least 50 %.
//
// Output: one JSON line; `verified` is false (exit 1) when a copied element differs.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;
using pgas::nd_index;
using pgas::point;
using pgas::rectdomain;
using array2 = pgas::ndarray<double, 2>;

struct options {
  std::size_t mib = 64;
  int reps = 7;
};

double seconds_of(const std::function<void()>& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double value(nd_index i, nd_index j) {
  return static_cast<double>(i * 65536 + j);
}

struct form {
  const char* name;
  double bytes;                              // copied per rep
  std::function<void()> run;                 // the copy
  std::function<bool()> check;               // its result, spot-checked
  std::vector<double> copy_s{}, memcpy_s{};  // per rep
};

int body(const options& o) {
  const int me = pgas::mythread(), from = pgas::threads() - 1;
  const nd_index cols = 2048;
  const auto rows = static_cast<nd_index>(o.mib * (std::size_t{1} << 20) / sizeof(double) /
                                          static_cast<std::size_t>(cols));
  const rectdomain<2> all({0, 0}, {rows, cols});
  const array2 src(all);
  pgas::foreach_n(all, [&](nd_index i, nd_index j) { src(i, j) = value(i, j); });
  const std::vector<array2> dir = pgas::exchange(src);
  int status = 0;
  if (me == 0) {
    const array2& s = dir[static_cast<std::size_t>(from)];
    const array2 dst(all), half(rectdomain<2>({0, 0}, {rows, cols / 2}));
    const array2 dst_t(rectdomain<2>({0, 0}, {cols, rows}));
    const auto bytes = static_cast<double>(all.size() * sizeof(double));
    const rectdomain<2> inner({0, 1}, {rows, cols - 1});
    const rectdomain<2> even({0, 0}, {rows, cols}, {1, 2});
    // src's even columns as a compact index space (column j is src's 2j), and dst's likewise.
    const array2 s_even = s.constrict(even).project(point<2>(1, 2));
    const array2 d_even = dst.constrict(even).project(point<2>(1, 2));
    std::vector<form> forms = {
        {"contiguous", bytes, [&] { pgas::copy(dst, s); },
         [&] { return dst(rows - 1, cols - 1) == value(rows - 1, cols - 1); }},
        {"rows", bytes * static_cast<double>(cols - 2) / static_cast<double>(cols),
         [&] { pgas::copy(dst, s.constrict(inner)); },
         [&] { return dst(rows / 2, cols - 2) == value(rows / 2, cols - 2); }},
        {"strided", bytes / 2, [&] { pgas::copy(half, s_even); },
         [&] { return half(rows - 1, cols / 2 - 1) == value(rows - 1, cols - 2); }},
        {"scattered", bytes / 2, [&] { pgas::copy(d_even, half); },
         [&] { return dst(3, 6) == value(3, 6); }},
        {"transposed", bytes, [&] { pgas::copy(dst_t, s.transpose()); },
         [&] { return dst_t(5, rows - 1) == value(rows - 1, 5); }},
    };
    std::vector<double> scratch(all.size());
    bool verified = true;
    for (int r = 0; r < o.reps + 1; ++r) {  // rep 0 warms up
      for (form& f : forms) {
        const double c = seconds_of(f.run);
        verified = verified && f.check();
        const double m =
            seconds_of([&] { std::memcpy(scratch.data(), s.base(), all.size() * sizeof(double)); });
        if (r > 0) {
          f.copy_s.push_back(c);
          f.memcpy_s.push_back(m);
        }
      }
    }
    nlohmann::ordered_json j;
    j["kernel"] = "ndarray_copy";
    j["threads"] = pgas::threads();
    j["from_thread"] = from;
    j["rows"] = rows;
    j["cols"] = cols;
    j["reps"] = o.reps;
    std::vector<double> all_memcpy;
    for (const form& f : forms)
      all_memcpy.insert(all_memcpy.end(), f.memcpy_s.begin(), f.memcpy_s.end());
    const double memcpy_gbs = bytes / median(all_memcpy) / 1e9;
    j["memcpy_gbytes_per_s"] = round_places(memcpy_gbs, 2);
    for (const form& f : forms) {
      const double gbs = f.bytes / median(f.copy_s) / 1e9;
      // Each form against the memcpy runs beside it (the machine's state at that moment).
      const double beside = bytes / median(f.memcpy_s) / 1e9;
      j[std::string(f.name) + "_gbytes_per_s"] = round_places(gbs, 2);
      j[std::string(f.name) + "_percent_of_memcpy"] = round_places(100 * gbs / beside, 1);
    }
    j["verified"] = verified;
    print_row(j);
    status = verified ? 0 : 1;
  }
  pgas::barrier();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app("pgas::copy of ndarray views against std::memcpy, from the last thread's piece",
               "ndarray_copy_bench");
  app.add_option("--mib", o.mib, "MiB of the source array (default 64)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  app.add_option("--reps", o.reps, "Timed repetitions (default 7)")->check(CLI::Range(1, 1000));
  CLI11_PARSE(app, argc, argv);
  return pgas::run(argc, argv, [&] { return body(o); });
}
