// kernels/micro/table_bench.cpp — what inter-thread privatization tables cost to build, as JSON
// lines: for each replication policy, the time of one collective pgas::privatize() of a
// `shared [size] int A[size][size]` array (the matmul / RandomAccess arrays of Serres et al.),
// timed on thread 0 from the barrier before to the return (so it includes mapping, filling
// and sealing every replica and the two barriers), for three arrays per repetition, with the
// median, min and max over --reps, and the table's bytes per replica and replicas.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

struct options {
  std::size_t size = 1024;
  int reps = 21;
  std::vector<std::string> policies = {"auto", "single", "per-numa", "per-thread"};
  std::string levels = "one";
};

int body(const options& o) {
  using array = pgas::shared_array<int, 2>;
  const pgas::block_spec rows = pgas::block_spec::cyclic(o.size);
  std::vector<array> arrays;
  for (int k = 0; k < 3; ++k)
    arrays.emplace_back(array::extents_type{o.size, o.size}, rows);
  const pgas::table_levels levels = pgas::parse_table_levels(o.levels);
  for (const std::string& name : o.policies) {
    const pgas::replicate policy = pgas::parse_replicate(name);
    std::vector<double> us;
    std::size_t bytes = 0;
    int replicas = 0;
    bool verified = true;
    for (int r = 0; r < o.reps; ++r) {
      for (const array& a : arrays) {
        pgas::barrier();
        const auto t0 = clock_type::now();
        pgas::table<int, 2> t = pgas::privatize(a, {.replicas = policy, .levels = levels});
        const double dt = std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
        us.push_back(dt);
        bytes = t.bytes();
        replicas = t.replicas();
        // Every row pointer must be the row's address (checked outside the clock).
        for (std::size_t i = 0; i < o.size; i += 7)
          verified = verified && t.row(i) == &a(i, 0);
      }
    }
    if (pgas::mythread() != 0) continue;
    const stats s = summarise(us);
    nlohmann::ordered_json j;
    j["kernel"] = "table_build";
    j["variant"] = name;
    j["threads"] = pgas::threads();
    j["size"] = o.size;
    j["arrays"] = arrays.size();
    j["levels"] = o.levels;
    j["resolved_policy"] = std::string(pgas::to_string(pgas::job_replica_policy(policy)));
    j["replicas"] = replicas;
    j["table_bytes"] = bytes;
    j["builds"] = us.size();
    j["median_us"] = round_places(s.median, 2);
    j["min_us"] = round_places(s.min, 2);
    j["max_us"] = round_places(s.max, 2);
    j["seconds"] = s.median * 1e-6;
    j["verified"] = verified;
    print_row(j);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app("Time to build privatization tables for three SIZE x SIZE int arrays");
  app.add_option("--size", o.size, "Rows and columns of each array (default 1024)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 15));
  app.add_option("--reps", o.reps, "Repetitions (each builds three tables; default 21)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--policy", o.policies,
                 "Replication policies to time (default auto single per-numa per-thread)");
  app.add_option("--levels", o.levels, "one or n-1 (default one)");
  app.add_flag("--json")->description(
      "Accepted for the kernel contract; output is always JSON lines");
  CLI11_PARSE(app, argc, argv);
  try {
    for (const std::string& p : o.policies)
      (void)pgas::parse_replicate(p);
    (void)pgas::parse_table_levels(o.levels);
  } catch (const pgas::table_error& e) {
    std::fprintf(stderr, "table_bench: error: %s\n", e.what());
    return 2;
  }
  return pgas::run(argc, argv, [&o](int, char**) { return body(o); });
}
