// kernels/npb_common.hpp — what the NAS Parallel Benchmarks kernels (npb_cg, npb_ft, npb_mg)
// share: NAS's pseudo-random number generator and the kernels' command line and JSON line.
//
//   pgasrun -n T build/kernels/NAME --variant seq|ndarray|openmp --class S|W|A [--reps R] [--json]
//
// prints the contract's JSON line of kernels/harness.hpp plus "class" and "mops" (millions of
// operations per second as NAS counts them for the kernel, over the median repetition), and
// exits 1 when the result does not verify against NAS's published values for the class, 2 for a
// usage error. "size" is the class's main dimension (the kernel says which). Variants:
//   seq      plain C++ on plain arrays, no runtime (threads is reported as 1);
//   ndarray  inside pgas::run, every thread owning its piece of the data as pgas::ndarray
//            pieces in its own segment, published with pgas::exchange and moved with
//            pgas::copy (the local-view style);
//   openmp   the same kernel as an OpenMP user writes it, on PGAS_THREADS threads.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness.hpp"

namespace pgas::kernels::npb {

// --- NAS's random numbers -------------------------------------------------------------------
//
// NAS's generator (the NPB report RNR-94-007, "pseudorandom numbers"): the linear congruential
// sequence x(k+1) = a · x(k) mod 2^46, with the value x(k) / 2^46 in (0, 1). NAS computes it
// in double precision, splitting a and x into 23-bit halves so that every product is exact;
// the integers here are the same integers (64-bit products keep their low 46 bits exact), so the
// sequence is bit-for-bit NAS's. x is kept as a double holding an integer in [1, 2^46), as NAS
// passes it.

/// a = 5^13, the multiplier of every NAS kernel.
inline constexpr double amult = 1220703125.0;
/// The seed of CG's matrix, FT's initial field and MG's right-hand side.
inline constexpr double seed = 314159265.0;

namespace detail {
inline constexpr std::uint64_t mask46 = (std::uint64_t{1} << 46) - 1;
inline constexpr double r46 = 1.0 / static_cast<double>(std::uint64_t{1} << 46);

inline std::uint64_t mul46(std::uint64_t a, std::uint64_t x) {
  return (a * x) & mask46;  // unsigned products wrap modulo 2^64, a multiple of 2^46
}
}  // namespace detail

/// Advances x to a · x mod 2^46 and returns the new x / 2^46, in (0, 1): NAS's randlc. x and a
/// must hold integers in [1, 2^46) (odd a, x not a multiple of 2 keep the period at 2^44).
inline double randlc(double& x, double a) {
  const std::uint64_t next =
      detail::mul46(static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(x));
  x = static_cast<double>(next);
  return static_cast<double>(next) * detail::r46;
}

/// Writes the next n values of the sequence into y[0..n) and advances x past them: n calls of
/// randlc, NAS's vranlc.
inline void vranlc(std::size_t n, double& x, double a, double* y) {
  const std::uint64_t am = static_cast<std::uint64_t>(a);
  std::uint64_t v = static_cast<std::uint64_t>(x);
  for (std::size_t i = 0; i < n; ++i) {
    v = detail::mul46(am, v);
    y[i] = static_cast<double>(v) * detail::r46;
  }
  x = static_cast<double>(v);
}

/// a^n mod 2^46 (a^0 = 1): the multiplier that jumps the sequence n steps ahead, so that a
/// thread can start its part of a sequence where the sequential program would be (NAS's
/// ipow46 and power). n must be >= 0.
inline double pow46(double a, std::int64_t n) {
  std::uint64_t result = 1, base = static_cast<std::uint64_t>(a);
  for (; n > 0; n >>= 1) {
    if ((n & 1) != 0) result = detail::mul46(result, base);
    base = detail::mul46(base, base);
  }
  return static_cast<double>(result);
}

// --- command line and result ----------------------------------------------------------------

/// The NAS kernels' variants (see the top of this file).
inline const std::vector<std::string> npb_variants = {"seq", "ndarray", "openmp"};

struct npb_args {
  kernel_args run;  // kernel, variant, reps, json; size is set by the kernel from the class
  char cls = 'S';   // the problem class, one of the kernel's classes
};

/// Parses --variant (one of `variants`), --class (one letter of `classes`, required), --reps and
/// --json; exits 2 with CLI11's message on a usage error, 0 for --help. `size_of_class` gives
/// the JSON line's size (and pgasrun --reuse's) for a class.
template <class SizeOf>
npb_args parse_npb_args(int argc, char** argv, const std::string& kernel,
                        const std::string& summary, const std::string& classes,
                        SizeOf&& size_of_class,
                        const std::vector<std::string>& variants = npb_variants) {
  npb_args a;
  a.run.kernel = kernel;
  std::vector<std::string> names;
  for (const char c : classes)
    names.emplace_back(1, c);
  std::string cls;
  CLI::App app(summary, kernel);
  app.add_option("--variant", a.run.variant, variants_text(variants))
      ->required()
      ->check(CLI::IsMember(variants));
  app.add_option("--class", cls, "NAS problem class: " + variants_text(names))
      ->required()
      ->check(CLI::IsMember(names));
  app.add_option("--reps", a.run.reps, "Timed repetitions; seconds is their median (default 5)")
      ->check(CLI::Range(1, 100000));
  app.add_flag("--json", a.run.json, "Print the result as one JSON line (the default)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    std::exit(status == 0 ? 0 : 2);
  }
  a.cls = cls[0];
  a.run.size = size_of_class(a.cls);
  pgas::reuse_size(a.run.size);
  return a;
}

/// Prints the JSON line with "class" and "mops" (`operations` NAS counts for one repetition,
/// over the median seconds, in millions) and returns the exit status: 0 when verified, 1
/// otherwise.
inline int print_npb_result(const npb_args& a, int threads, const timing& t, bool verified,
                            double operations,
                            nlohmann::ordered_json extra = nlohmann::ordered_json::object()) {
  nlohmann::ordered_json j;
  j["class"] = std::string(1, a.cls);
  j["mops"] = t.median > 0 ? operations / t.median * 1e-6 : 0.0;
  for (auto it = extra.begin(); it != extra.end(); ++it)
    j[it.key()] = it.value();
  return print_result(a.run, threads, t, verified, j);
}

}  // namespace pgas::kernels::npb
