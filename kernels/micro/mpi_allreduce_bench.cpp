// mpi_allreduce_bench — the MPI reference for allreduce_bench: MPI_Allreduce of one double next
// to MPI_Barrier, timed rep by rep in the same run, with allreduce_bench's JSON rows (impl
// mpi_barrier and mpi_allreduce). Run it as `mpirun --oversubscribe -np N mpi_allreduce_bench`
// (as root add --allow-run-as-root); the rank count is the thread count of the rows.
//
// Entry point: main() calibrates a batch size on the barrier (rank 0 decides, MPI_Bcast tells
// the others), then times --reps batches of each. Only rank 0 prints.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "micro.hpp"

namespace {

using namespace pgas::micro;

double batch_ns(long k, bool allreduce, double mine, double want, bool& wrong) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < k; ++i) {
    if (allreduce) {
      double sum = 0;
      MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      wrong = wrong || sum != want;
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) * 1e9 / static_cast<double>(k);
}

void print(const char* impl, int n, long k, const std::vector<double>& ns, int reps, bool ok,
           const std::vector<double>* ratio) {
  const stats st = summarise(ns);
  nlohmann::ordered_json j;
  j["kernel"] = "allreduce";
  j["impl"] = impl;
  j["variant"] = impl;
  j["threads"] = n;
  j["cores"] = std::thread::hardware_concurrency();
  j["iterations"] = k;
  j["reps"] = reps;
  j["median_ns"] = round_places(median(ns), 1);
  j["min_ns"] = round_places(st.min, 1);
  j["max_ns"] = round_places(st.max, 1);
  if (ratio != nullptr) j["ratio_to_barrier"] = round_places(median(*ratio), 3);
  j["verified"] = ok;
  print_row(j);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  int reps = 7;
  double seconds = 0.1;
  CLI::App app{"MPI_Allreduce(double) latency next to MPI_Barrier."};
  app.add_option("--reps", reps, "Timed batches per measurement.")->check(CLI::PositiveNumber);
  app.add_option("--seconds", seconds, "Wanted duration of one timed barrier batch.")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json")->description("Accepted for the kernel contract; output is JSON lines.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = rank == 0 ? app.exit(e) : 1;
    MPI_Finalize();
    return rc;
  }

  const double mine = rank + 1;
  const double want = n * (n + 1) / 2.0;
  bool wrong = false;
  long k = 1;
  for (;;) {
    int enough = batch_ns(k, false, mine, want, wrong) * static_cast<double>(k) >= seconds * 1e9 ||
                 k >= (1L << 30);
    MPI_Bcast(&enough, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (enough != 0) break;
    k *= 2;
  }
  std::vector<double> barrier;
  std::vector<double> allreduce;
  std::vector<double> ratio;
  for (int rep = 0; rep < reps; ++rep) {
    barrier.push_back(batch_ns(k, false, mine, want, wrong));
    allreduce.push_back(batch_ns(k, true, mine, want, wrong));
    ratio.push_back(allreduce.back() / barrier.back());
  }
  int bad = wrong ? 1 : 0;
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    print("mpi_barrier", n, k, barrier, reps, any_bad == 0, nullptr);
    print("mpi_allreduce", n, k, allreduce, reps, any_bad == 0, &ratio);
  }
  MPI_Finalize();
  return any_bad == 0 ? 0 : 1;
}
