// kernels/micro/cuts_bench.cpp — what computing the locality cuts costs, as JSON lines: for each
// tile edge, the time to build every thread's pgas::cut_plan of a 5-point stencil over the
// interior of a size × size array (shared [b][b] double, offsets (−1,0) (1,0) (0,−1) (0,1)
// (0,0)), the time to walk all their runs and targets, and, in the same run, the time of the
// same loop written on a plain array (one thread, vectorised), which the plans' cost is a share
// of: each thread's plan against its share of the loop is the same ratio. Medians and minima
// over --reps, interleaved. The plans are pure models: no job is needed.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include <pgas/cut_model.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

struct options {
  std::size_t size = 1002;  // 10^6 interior iterations
  std::vector<std::size_t> tiles = {16, 64, 256};
  int threads = 4;
  int reps = 201;
};

double since_us(clock_type::time_point t0) {
  return std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
}

// The stencil on plain memory, as a hand-written C loop would do it.
[[gnu::noinline]] void plain_sweep(const double* in, double* out, std::size_t n) {
  for (std::size_t i = 1; i + 1 < n; ++i)
    for (std::size_t j = 1; j + 1 < n; ++j)
      out[i * n + j] = 0.2 * (in[(i - 1) * n + j] + in[(i + 1) * n + j] + in[i * n + j - 1] +
                              in[i * n + j + 1] + in[i * n + j]);
}

bool run_tile(const options& o, std::size_t b) {
  const std::size_t n = o.size;
  const pgas::layout l({n, n}, pgas::block_spec::tiles({b, b}), o.threads);
  const pgas::box box{{1, n - 1}, {1, n - 1}};
  const pgas::offsets k{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {0, 0}};
  std::vector<double> in(n * n, 1.0);
  std::vector<double> out(n * n, 0.0);
  std::vector<double> plan_us, hot_us, walk_us, loop_us;
  std::size_t runs = 0;
  std::size_t iterations = 0;
  std::size_t walked = 0;
  std::size_t sink = 0;
  for (int r = 0; r < o.reps; ++r) {
    std::vector<pgas::cut_plan> plans;
    plans.reserve(static_cast<std::size_t>(o.threads));
    auto t0 = clock_type::now();
    for (int t = 0; t < o.threads; ++t)
      plans.emplace_back(l, box, k, t);
    plan_us.push_back(since_us(t0));
    // Again at once, with the caches the first build warmed: the same plans, hot.
    {
      std::vector<pgas::cut_plan> again;
      again.reserve(static_cast<std::size_t>(o.threads));
      t0 = clock_type::now();
      for (int t = 0; t < o.threads; ++t)
        again.emplace_back(l, box, k, t);
      hot_us.push_back(since_us(t0));
    }
    t0 = clock_type::now();
    walked = 0;
    for (const pgas::cut_plan& p : plans) {
      for (const pgas::cut_run& run : p.runs()) {
        for (const pgas::cut_target& g : p.targets(run))
          sink += g.offset + static_cast<std::size_t>(g.owner);
        ++walked;
      }
    }
    walk_us.push_back(since_us(t0));
    t0 = clock_type::now();
    plain_sweep(in.data(), out.data(), n);
    loop_us.push_back(since_us(t0));
    runs = 0;
    iterations = 0;
    for (const pgas::cut_plan& p : plans) {
      runs += p.runs().size();
      iterations += p.iterations();
    }
  }
  const stats plan = summarise(plan_us);
  const stats hot = summarise(hot_us);
  const stats walk = summarise(walk_us);
  const stats loop = summarise(loop_us);
  nlohmann::ordered_json j;
  j["kernel"] = "cut_plan";
  j["threads"] = 1;
  j["plans"] = o.threads;
  j["size"] = n;
  j["tile"] = b;
  j["iterations"] = iterations;
  j["runs"] = runs;
  j["plans_us"] = round_places(plan.median, 3);
  j["plans_us_min"] = round_places(plan.min, 3);
  j["plans_hot_us"] = round_places(hot.median, 3);
  j["walk_us"] = round_places(walk.median, 3);
  j["loop_us"] = round_places(loop.median, 2);
  j["plans_share_of_loop"] = round_places(plan.median / loop.median, 5);
  j["walk_share_of_loop"] = round_places(walk.median / loop.median, 5);
  const bool verified = iterations == (n - 2) * (n - 2) && walked == runs && out[n + 1] == 1.0;
  j["verified"] = verified;
  j["sink"] = sink % 2;  // keeps the walk
  print_row(j);
  return verified;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{
      "What computing the locality cuts costs: every thread's cut_plan of a 5-point stencil, and "
      "a walk of their runs, against the same loop on a plain array (JSON lines)"};
  app.add_option("--size", o.size, "Array edge; the loop is its interior (default 1002)")
      ->check(CLI::Range(std::size_t{3}, std::size_t{1} << 15));
  app.add_option("--tiles", o.tiles, "Tile edges b of shared [b][b] double (default 16,64,256)")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 15));
  app.add_option("--threads", o.threads, "Threads of the layout, one plan each (default 4)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--reps", o.reps, "Repetitions, interleaved (default 201)")
      ->check(CLI::Range(1, 100000));
  app.add_flag("--json")->description("Print JSON lines (the default)");
  CLI11_PARSE(app, argc, argv);
  bool ok = true;
  for (const std::size_t b : o.tiles) {
    if (b > o.size) {
      std::fprintf(stderr, "cuts_bench: tile %zu is larger than --size %zu\n", b, o.size);
      return 2;
    }
  }
  for (const std::size_t b : o.tiles)
    ok = run_tile(o, b) && ok;
  return ok ? 0 : 1;
}
