// kernels/micro/sptr_cases.hpp — what sptr_bench measures: its options, the variants and how
// --only selects them, and the cases (one traversal of one variant and block, with the raw
// baselines it is compared with) built over collectively made shared arrays.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pgas::micro {

struct sptr_options {
  std::size_t elements = std::size_t{1} << 20;
  int reps = 7;
  std::vector<std::string> only;
  std::string measure = "0";  // "0": thread 0 alone; "all": every thread at once
  std::size_t min_accesses = std::size_t{1} << 23;
  std::size_t stride = 97;
};

struct sptr_case {
  sptr_case(std::string v, std::string b, std::vector<std::string> base, std::size_t n,
            std::function<unsigned()> f, unsigned sum = 0)
      : variant(std::move(v)),
        block(std::move(b)),
        baselines(std::move(base)),
        accesses(n),
        pass(std::move(f)),
        expected(sum) {}

  std::string variant;
  std::string block;                   // "" for the raw baselines
  std::vector<std::string> baselines;  // paired with this one in every rep; first is vs_raw's
  std::size_t accesses;                // per pass
  std::function<unsigned()> pass;      // one traversal; returns its checksum
  unsigned expected;
  std::function<bool()> verify;  // after a sample, for fills: were the stores right?
  bool shared_write = false;     // stores to shared data: thread 0 only
  int uses_table = -1;           // array_2d: whether A(i, j) went through a table (0/1)
};

/// Whether `v` is a variant's name or a family's (`sptr`, `array_2d`): what an --only entry
/// may start with.
bool sptr_variant_known(const std::string& v);

/// Whether --only selects `variant` with `block`. An --only entry is VARIANT or VARIANT:BLOCK,
/// where VARIANT may name a family. Without BLOCK every block matches, and so does an empty one
/// (a caller asking about the variant alone). No --only selects everything.
bool sptr_selected(const sptr_options& o, const std::string& variant,
                   const std::string& block = "");

struct sptr_case_set {
  std::vector<sptr_case> cases;              // the raw baselines first, each once
  std::size_t stride = 1;                    // of sptr_add and raw_strided: --stride made coprime
  std::vector<std::shared_ptr<void>> owned;  // the arrays and tables the cases traverse
};

/// Builds the selected cases and the raw baselines. Collective: every thread calls it with the
/// same options, so the shared arrays are made in the same order everywhere; the set must
/// outlive every call of a case's pass and verify.
sptr_case_set sptr_cases_build(const sptr_options& o);

}  // namespace pgas::micro
