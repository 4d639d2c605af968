// tests/fuzz/fuzz_parsers.cpp — a bounded-time mutation fuzzer for every parser that reads what
// a user types or writes: UPC declarations (tools/declaration.hpp, then layout_for at several
// thread counts), hwloc synthetic topology descriptions (pgas::machine::synthetic), and
// pgas-bench's runs.json files (read_runs, then the summary).
//
//   fuzz_parsers TARGET CORPUS_DIR SECONDS [SEED]
//
// Each input of CORPUS_DIR is parsed, then mutated inputs (bytes flipped, inserted, deleted,
// duplicated, spliced with another input, runs of one character repeated thousands of times)
// until SECONDS pass. A parser may only answer with its documented error types; any other
// exception fails the run with the input that caused it (written to fuzz-failure-TARGET), and
// a crash is the run's death. An input still being parsed after input_limit_s seconds is a
// hang: it is written to fuzz-failure-TARGET and the run fails naming it (the suite's timeout
// would otherwise end the run with the input lost). The seed is printed first, so that any run
// can be repeated; the corpus is kept in the repository.

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <pgas/topology.hpp>

#include "bench_results.hpp"
#include "declaration.hpp"
#include "src/base/file.hpp"

namespace {

namespace fs = std::filesystem;

// One parse of `input`; returns normally or throws one of the target's documented errors.
using target_fn = std::function<void(const std::string& input)>;

void parse_declaration(const std::string& input) {
  try {
    const auto d = pgas::tools::declaration::parse(input);
    for (int threads : {1, 2, 3, 7, 64, 4032})
      (void)d.layout_for(threads);
  } catch (const pgas::tools::declaration_error&) {
  } catch (const std::invalid_argument&) {  // the models' impossible extents or blocks
  }
}

void parse_topology(const std::string& input) {
  try {
    const pgas::machine m = pgas::machine::synthetic(input);
    if (m.pu_count() < 1) throw std::logic_error("a machine without PUs");
  } catch (const pgas::topology_error&) {
  }
}

void parse_runs(const std::string& input, const std::string& scratch) {
  pgas::detail::replace_file(scratch, input);
  try {
    pgas::tools::bench::json meta;
    const auto runs = pgas::tools::bench::read_runs(scratch, meta);
    const pgas::tools::bench::summary s(runs);
    (void)s.kernels();
  } catch (const pgas::tools::bench::results_error&) {
  }
}

// The mutations a hostile or careless user makes.
std::string mutate(const std::string& in, const std::vector<std::string>& corpus,
                   std::mt19937_64& rng) {
  std::string s = in;
  const auto pick = [&](std::size_t n) { return n == 0 ? 0 : rng() % n; };
  static const std::string alphabet = "[]()*+-/%;,: 0123456789\"{}.eE-xTHREADSsharedintpu:core";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 7) {
      case 0:  // flip a byte
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 1:  // insert a likely character
        s.insert(s.begin() + static_cast<long>(pick(s.size() + 1)),
                 alphabet[pick(alphabet.size())]);
        break;
      case 2:  // delete a run
        if (!s.empty()) {
          const std::size_t at = pick(s.size());
          s.erase(at, 1 + pick(std::min<std::size_t>(8, s.size() - at)));
        }
        break;
      case 3:  // duplicate a slice
        if (!s.empty()) {
          const std::size_t at = pick(s.size());
          const std::size_t len = 1 + pick(std::min<std::size_t>(32, s.size() - at));
          s.insert(pick(s.size() + 1), s.substr(at, len));
        }
        break;
      case 4:  // splice with another input
        if (!corpus.empty()) {
          const std::string& other = corpus[pick(corpus.size())];
          s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size() + 1));
        }
        break;
      case 5:  // a long run of one character (deep nesting, huge numbers)
        s.insert(pick(s.size() + 1), std::string(1 + pick(20000), alphabet[pick(alphabet.size())]));
        break;
      case 6:  // a digit string replaced by an extreme number
        s.insert(pick(s.size() + 1), rng() % 2 ? "18446744073709551616" : "9223372036854775807");
        break;
    }
    if (s.size() > (1u << 20)) s.resize(1u << 20);
  }
  return s;
}

// One parse may take this long (they take milliseconds; a loaded machine slows them tenfold).
constexpr double input_limit_s = 20;

// Watches the parses from a thread of its own: when one input has been parsed for longer than
// input_limit_s, writes it to `out` and ends the process with status 1. The loop takes `lock`
// to change the input and count it; the watcher takes it to read them.
class hang_watch {
 public:
  hang_watch(const std::string& name, std::uint64_t seed, const std::string& out)
      : name_(name), seed_(seed), out_(out), thread_([this] { watch(); }) {}
  ~hang_watch() {
    stop_.store(true);
    thread_.join();
  }
  std::mutex lock;
  std::string input;  // the input being parsed
  long count = 0;     // inputs begun

 private:
  void watch() {
    using clock = std::chrono::steady_clock;
    long seen = -1;
    clock::time_point since = clock::now();
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::lock_guard g(lock);
      if (count != seen) {
        seen = count;
        since = clock::now();
      } else if (std::chrono::duration<double>(clock::now() - since).count() > input_limit_s) {
        std::ofstream(out_, std::ios::binary) << input;
        std::fprintf(stderr,
                     "fuzz %s (seed %llu): input %ld still parsing after %.0f s (a hang); "
                     "input in %s\n",
                     name_.c_str(), static_cast<unsigned long long>(seed_), count, input_limit_s,
                     out_.c_str());
        std::fflush(stderr);
        std::_Exit(1);
      }
    }
  }
  std::string name_;
  std::uint64_t seed_;
  std::string out_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::vector<std::string> read_corpus(const fs::path& dir) {
  std::vector<std::string> inputs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      inputs.push_back(pgas::detail::read_bounded_file(entry.path().string(), 1 << 20));
    }
  }
  if (inputs.empty()) inputs.emplace_back();
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s declaration|topology|runs CORPUS_DIR SECONDS [SEED]\n",
                 argv[0]);
    return 2;
  }
  const std::string name = argv[1];
  const std::string scratch =
      (fs::temp_directory_path() / fmt::format("pgas-fuzz-runs-{}.json", ::getpid())).string();
  target_fn target;
  if (name == "declaration") {
    target = parse_declaration;
  } else if (name == "topology") {
    target = parse_topology;
  } else if (name == "runs") {
    target = [&](const std::string& in) { parse_runs(in, scratch); };
  } else {
    std::fprintf(stderr, "unknown target '%s'\n", name.c_str());
    return 2;
  }
  const std::vector<std::string> corpus = read_corpus(argv[2]);
  const double seconds = std::strtod(argv[3], nullptr);
  const std::uint64_t seed =
      argc > 4 ? std::strtoull(argv[4], nullptr, 10) : std::random_device{}();
  std::mt19937_64 rng(seed);
  std::fprintf(stderr, "fuzz %s: seed %llu\n", name.c_str(), static_cast<unsigned long long>(seed));
  const std::string out = "fuzz-failure-" + name;
  hang_watch watch(name, seed, out);
  const std::string& input = watch.input;
  const auto next = [&](std::string in) {
    std::lock_guard g(watch.lock);
    watch.input = std::move(in);
    ++watch.count;
  };

  const auto start = std::chrono::steady_clock::now();
  long runs = 0;
  try {
    for (const std::string& in : corpus) {
      next(in);
      target(input);
      ++runs;
    }
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           seconds) {
      next(mutate(corpus[rng() % corpus.size()], corpus, rng));
      target(input);
      ++runs;
    }
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (what.size() > 300) what = what.substr(0, 297) + "...";
    std::ofstream(out, std::ios::binary) << input;
    std::fprintf(stderr, "fuzz %s (seed %llu): undocumented %s after %ld inputs; input in %s\n",
                 name.c_str(), static_cast<unsigned long long>(seed), what.c_str(), runs,
                 out.c_str());
    std::remove(scratch.c_str());
    return 1;
  }
  std::remove(scratch.c_str());
  std::printf("fuzz %s: %ld inputs in %.0f s, seed %llu, no undocumented failure\n", name.c_str(),
              runs, seconds, static_cast<unsigned long long>(seed));
  return 0;
}
