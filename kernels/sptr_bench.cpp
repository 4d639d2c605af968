// sptr_bench — what one shared access costs: pointer-to-shared traversal (`++p`, `*p`), the
// general `p + k`, and `A(i, j)` on 2-D shared arrays, each against a plain `int*` loop over
// private memory measured beside it, as ns and retired instructions per access.
// Entry point: main() parses options and starts the job; job_body() builds the selected
// benchmarks on every thread (arrays are collective) and takes --reps samples of each, right
// after samples of its raw baselines. Output: one JSON line per (variant, block), medians.
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

namespace {

using clock_type = std::chrono::steady_clock;

// The 2-D arrays are rows × cols: cols = 1024 makes cyclic 1024 "one row per block", the
// papers' layout, and cyclic 4096 four rows.
constexpr std::size_t cols = 1024;

struct options {
  std::size_t elements = std::size_t{1} << 20;
  int reps = 7;
  std::vector<std::string> only;
  std::string measure = "0";  // "0": thread 0 alone; "all": every thread at once
  std::size_t min_accesses = std::size_t{1} << 23;
  std::size_t stride = 97;
};

// --- retired instructions of the calling thread ------------------------------------------

// perf_event_open on the calling thread, user space only (allowed up to perf_event_paranoid 2
// without privileges). Unavailable (no PMU in a VM, paranoid 3, seccomp) means null figures.
class instruction_counter {
 public:
  instruction_counter() {
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd_ = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
    if (fd_ < 0) why_ = std::strerror(errno);
  }
  ~instruction_counter() {
    if (fd_ >= 0) close(fd_);
  }
  instruction_counter(const instruction_counter&) = delete;
  instruction_counter& operator=(const instruction_counter&) = delete;

  bool available() const noexcept { return fd_ >= 0; }
  const std::string& why_unavailable() const noexcept { return why_; }
  std::uint64_t read_count() const noexcept {
    std::uint64_t v = 0;
    if (fd_ < 0 || ::read(fd_, &v, sizeof v) != static_cast<ssize_t>(sizeof v)) return 0;
    return v;
  }

 private:
  int fd_ = -1;
  std::string why_;
};

// --- the traversals ------------------------------------------------------------------------
//
// Each hot loop is its own non-inlined function so that its code can be found by name in
// `objdump -d` and read. Sums are unsigned (wrapping, no UB) and returned, so no loop can be
// dropped, and each is compared with the known sum of the values.

// Element i of every array, raw or shared, holds value_of(i): scattered values, so that reading
// a wrong element almost surely changes the sum.
int value_of(std::size_t i) {
  return static_cast<int>(((i * 2654435761u) >> 13) & 0xffff);
}

[[gnu::noinline]] unsigned sum_raw(const int* p, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i)
    s += static_cast<unsigned>(p[i]);
  return s;
}

// One element per iteration, as a pointer-to-shared loop must go: the empty asm makes `s` a
// scalar the compiler cannot split into vector lanes, and costs no instruction.
[[gnu::noinline]] unsigned sum_raw_scalar(const int* p, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += static_cast<unsigned>(p[i]);
    asm("" : "+r"(s));
  }
  return s;
}

// The baseline of sptr_add: every element once, `stride` apart (stride coprime with n), wrapping
// without a modulo.
[[gnu::noinline]] unsigned sum_raw_strided(const int* p, std::size_t n, std::size_t stride) {
  unsigned s = 0;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += static_cast<unsigned>(p[k]);
    k += stride;
    if (k >= n) k -= n;
  }
  return s;
}

[[gnu::noinline]] void fill_raw(int* p, std::size_t n, int v) {
  for (std::size_t i = 0; i < n; ++i)
    p[i] = v;
}

template <std::size_t B>
[[gnu::noinline]] unsigned sum_sptr(pgas::sptr<int, B> p, std::size_t n) {
  unsigned s = 0;
  for (std::size_t i = 0; i < n; ++i, ++p)
    s += static_cast<unsigned>(*p);
  return s;
}

template <std::size_t B>
[[gnu::noinline]] unsigned sum_sptr_add(pgas::sptr<int, B> p0, std::size_t n, std::size_t stride) {
  unsigned s = 0;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += static_cast<unsigned>(*(p0 + static_cast<std::ptrdiff_t>(k)));
    k += stride;
    if (k >= n) k -= n;
  }
  return s;
}

template <std::size_t B>
[[gnu::noinline]] void fill_sptr(pgas::sptr<int, B> p, std::size_t n, int v) {
  for (std::size_t i = 0; i < n; ++i, ++p)
    *p = v;
}

template <class Array>
[[gnu::noinline]] unsigned sum_2d(const Array& a, std::size_t rows) {
  unsigned s = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j)
      s += static_cast<unsigned>(a(i, j));
  }
  return s;
}

// --- benchmarks ----------------------------------------------------------------------------

struct bench {
  bench(std::string v, std::string b, std::vector<std::string> base, std::size_t n,
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
  std::size_t accesses = 0;            // per pass
  std::function<unsigned()> pass;      // one traversal; returns its checksum
  unsigned expected = 0;
  std::function<bool()> verify;  // after a sample, for fills: were the stores right?
  bool shared_write = false;     // stores to shared data: thread 0 only
  int uses_table = -1;           // array_2d: whether A(i, j) went through a table (0/1)
};

// Where thread 0 keeps one benchmark's samples.
struct samples {
  std::vector<double> ns;
  std::vector<double> instructions;
  std::map<std::string, std::vector<double>> ratio;  // per paired baseline
};

// Set by any thread whose checksum was wrong, by benchmark index.
std::array<std::atomic<bool>, 256> checksum_bad{};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 != 0 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double round3(double x) {
  return std::round(x * 1000) / 1000;
}

constexpr std::array<const char*, 15> variant_names = {"raw",
                                                       "raw_scalar",
                                                       "raw_strided",
                                                       "raw_write",
                                                       "sptr_static",
                                                       "sptr_dynamic",
                                                       "sptr_add",
                                                       "sptr_add_dynamic",
                                                       "sptr_write",
                                                       "sptr_write_dynamic",
                                                       "array_2d_static",
                                                       "array_2d_dynamic",
                                                       "local_part",
                                                       "table",
                                                       "table_row"};

bool is_variant(const std::string& v) {
  return std::find(variant_names.begin(), variant_names.end(), v) != variant_names.end();
}

// Whether `variant` is the variant named `v`, or `v` names its family (`sptr`, `array_2d`).
bool in_family(const std::string& variant, const std::string& v) {
  return is_variant(v) ? variant == v : variant.starts_with(v + "_");
}

// An --only entry is VARIANT or VARIANT:BLOCK, where VARIANT may name a family. Without BLOCK
// every block matches, and so does an empty one (a caller asking about the variant alone).
bool selected(const options& o, const std::string& variant, const std::string& block = "") {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& entry) {
    const std::size_t colon = entry.find(':');
    return in_family(variant, entry.substr(0, colon)) &&
           (colon == std::string::npos || block.empty() || entry.substr(colon + 1) == block);
  });
}

std::size_t coprime_stride(std::size_t n, std::size_t s) {
  s = std::max<std::size_t>(s, 1) % n;
  while (std::gcd(s, n) != 1)
    ++s;
  return s;
}

// Builds the selected benchmarks. Collective: every thread calls it with the same options, so
// the shared arrays are made in the same order everywhere. `keep` owns the arrays.
class builder {
 public:
  builder(const options& o, std::vector<std::shared_ptr<void>>& keep)
      : o_(o), keep_(keep), n_(o.elements), rows_(o.elements / cols), raw_(o.elements) {
    for (std::size_t i = 0; i < n_; ++i) {
      raw_[i] = value_of(i);
      expected_ += static_cast<unsigned>(raw_[i]);
    }
    stride_ = coprime_stride(n_, o.stride);
  }

  std::size_t stride() const noexcept { return stride_; }

  std::vector<bench> build() {
    const int* r = raw_.data();
    int* w = raw_.data();
    const std::size_t n = n_;
    const std::size_t st = stride_;
    add_raw("raw", [r, n] { return sum_raw(r, n); });
    add_raw("raw_scalar", [r, n] { return sum_raw_scalar(r, n); });
    add_raw("raw_strided", [r, n, st] { return sum_raw_strided(r, n, st); });
    // The fill overwrites the private values, so verify (outside the clock) checks the stores
    // and puts the values back for the read baselines.
    bench fw{"raw_write", "", {}, n, [w, n] {
               fill_raw(w, n, 7);
               return 0u;
             }};
    fw.verify = [this] { return restore_raw(); };
    out_.push_back(std::move(fw));

    static_1d<1>();
    static_1d<4>();
    static_1d<64>();
    static_1d<3>();
    static_1d<1000>();
    static_1d<pgas::indefinite>();
    add_sptr_add<1>();
    add_sptr_add<64>();
    add_sptr_add<1000>();
    add_sptr_add<1000, true>();
    add_write<1>();
    add_write<64>();
    add_write<1000>();
    add_write<1000, true>();

    dynamic_2d("1", pgas::block_spec::cyclic(1));
    dynamic_2d("3", pgas::block_spec::cyclic(3));
    dynamic_2d("1024", pgas::block_spec::cyclic(cols));
    dynamic_2d("4096", pgas::block_spec::cyclic(4 * cols));
    dynamic_2d("[32][32]", pgas::block_spec::tiles({32, 32}));
    static_2d<1>();
    static_2d<3>();
    static_2d<1024>();
    static_2d<4096>();
    return std::move(out_);
  }

 private:
  template <std::size_t B>
  using array_1d = pgas::shared_array<int, 1, B>;

  static std::string block_name(std::size_t b) {
    return b == pgas::indefinite ? "indefinite" : std::to_string(b);
  }

  void add_raw(const char* name, std::function<unsigned()> f) {
    out_.push_back({name, "", {}, n_, std::move(f), expected_});
  }

  // The 1-D array `shared [B] int A[n]` holding value_of(i) at i, made on first use and
  // shared by the static, dynamic, add and write benchmarks of that B.
  template <std::size_t B>
  array_1d<B>& get_1d() {
    const std::string key = "1d/" + block_name(B);
    auto it = arrays_.find(key);
    if (it == arrays_.end()) {
      auto a = std::make_shared<array_1d<B>>(typename array_1d<B>::extents_type{n_});
      if (pgas::mythread() == 0) {
        for (std::size_t i = 0; i < n_; ++i)
          (*a)[i] = value_of(i);
      }
      pgas::barrier();
      keep_.push_back(a);
      it = arrays_.emplace(key, a.get()).first;
    }
    return *static_cast<array_1d<B>*>(it->second);
  }

  template <std::size_t B>
  void static_1d() {
    const bool st = selected(o_, "sptr_static", block_name(B));
    const bool dy = selected(o_, "sptr_dynamic", block_name(B));
    if (!st && !dy) return;
    const pgas::sptr<int, B> p = get_1d<B>().begin_ptr();
    const std::size_t n = n_;
    if (st) {
      out_.push_back({"sptr_static",
                      block_name(B),
                      {"raw", "raw_scalar"},
                      n,
                      [p, n] { return sum_sptr<B>(p, n); },
                      expected_});
    }
    if (dy) {
      const pgas::sptr<int, pgas::dynamic_block> d = p;
      out_.push_back({"sptr_dynamic",
                      block_name(B),
                      {"raw", "raw_scalar"},
                      n,
                      [d, n] { return sum_sptr<pgas::dynamic_block>(d, n); },
                      expected_});
    }
  }

  template <std::size_t B, bool Dynamic = false>
  void add_sptr_add() {
    if (!selected(o_, Dynamic ? "sptr_add_dynamic" : "sptr_add", block_name(B))) return;
    const pgas::sptr<int, B> p = get_1d<B>().begin_ptr();
    const std::size_t n = n_;
    const std::size_t st = stride_;
    if constexpr (Dynamic) {
      const pgas::sptr<int, pgas::dynamic_block> d = p;
      out_.push_back({"sptr_add_dynamic",
                      block_name(B),
                      {"raw_strided"},
                      n,
                      [d, n, st] { return sum_sptr_add<pgas::dynamic_block>(d, n, st); },
                      expected_});
    } else {
      out_.push_back({"sptr_add",
                      block_name(B),
                      {"raw_strided"},
                      n,
                      [p, n, st] { return sum_sptr_add<B>(p, n, st); },
                      expected_});
    }
  }

  template <std::size_t B, bool Dynamic = false>
  void add_write() {
    const char* variant = Dynamic ? "sptr_write_dynamic" : "sptr_write";
    if (!selected(o_, variant, block_name(B))) return;
    array_1d<B>& a = get_1d<B>();
    const pgas::sptr<int, B> p = a.begin_ptr();
    const std::size_t n = n_;
    std::function<unsigned()> pass;
    if constexpr (Dynamic) {
      const pgas::sptr<int, pgas::dynamic_block> d = p;
      pass = [d, n] {
        fill_sptr<pgas::dynamic_block>(d, n, 7);
        return 0u;
      };
    } else {
      pass = [p, n] {
        fill_sptr<B>(p, n, 7);
        return 0u;
      };
    }
    bench b(variant, block_name(B), {"raw_write"}, n, std::move(pass));
    // Checked element by element through the array's own indexing (not the pointer under
    // test), then the values are put back for the read benchmarks.
    b.verify = [&a, n] {
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) {
        ok = ok && a[i] == 7;
        a[i] = value_of(i);
      }
      return ok;
    };
    b.shared_write = true;
    out_.push_back(std::move(b));
  }

  template <class Array>
  void fill_2d(Array& a) {
    if (pgas::mythread() == 0) {
      for (std::size_t i = 0; i < rows_; ++i) {
        for (std::size_t j = 0; j < cols; ++j)
          a(i, j) = value_of(i * cols + j);
      }
    }
    pgas::barrier();
  }

  void dynamic_2d(const std::string& name, pgas::block_spec spec) {
    const bool part = name == "1024" && selected(o_, "local_part", name);
    const bool whole = selected(o_, "array_2d_dynamic", name);
    const bool table = selected(o_, "table", name) || selected(o_, "table_row", name);
    if (!whole && !part && !table) return;
    using array = pgas::shared_array<int, 2>;
    auto a = std::make_shared<array>(array::extents_type{rows_, cols}, std::move(spec));
    fill_2d(*a);
    keep_.push_back(a);
    const array* ap = a.get();
    const std::size_t rows = rows_;
    if (whole) {
      out_.push_back({"array_2d_dynamic",
                      name,
                      {"raw", "raw_scalar"},
                      n_,
                      [ap, rows] { return sum_2d(*ap, rows); },
                      expected_});
      out_.back().uses_table = ap->uses_table() ? 1 : 0;
    }
    // Inter-thread privatization: an explicit one-level table (a replica per NUMA node or one),
    // read per element, and with the row pointer hoisted out of the inner loop (the paper's
    // `int *ppc_i = pc[i]`). Layouts with no table have no such variant.
    if (table && pgas::table_shape::why_not(ap->layout()).empty()) {
      auto t = std::make_shared<pgas::table<int, 2>>(pgas::privatize(*ap));
      keep_.push_back(t);
      const pgas::table<int, 2>* tp = t.get();
      if (selected(o_, "table", name)) {
        out_.push_back({"table",
                        name,
                        {"raw", "raw_scalar"},
                        n_,
                        [tp, rows] { return sum_2d(*tp, rows); },
                        expected_});
      }
      if (selected(o_, "table_row", name) && tp->shape().segments_per_row() == 1) {
        out_.push_back({"table_row",
                        name,
                        {"raw", "raw_scalar"},
                        n_,
                        [tp, rows] {
                          unsigned s = 0;
                          for (std::size_t i = 0; i < rows; ++i)
                            s += sum_raw(tp->row(i), cols);
                          return s;
                        },
                        expected_});
      }
    }
    // The privatised loop: every part through plain pointers (padding is zero, so the sum
    // is the same), as the kernels' `privatized` variant reads its own part.
    if (part) {
      const std::size_t parts =
          ap->local_part(0).size() * static_cast<std::size_t>(pgas::threads());
      out_.push_back({"local_part",
                      name,
                      {"raw", "raw_scalar"},
                      parts,
                      [ap] {
                        unsigned s = 0;
                        for (int t = 0; t < pgas::threads(); ++t) {
                          const std::span<int> part = ap->local_part(t);
                          s += sum_raw(part.data(), part.size());
                        }
                        return s;
                      },
                      expected_});
    }
  }

  template <std::size_t B>
  void static_2d() {
    if (!selected(o_, "array_2d_static", block_name(B))) return;
    using array = pgas::shared_array<int, 2, B>;
    auto a = std::make_shared<array>(typename array::extents_type{rows_, cols});
    fill_2d(*a);
    keep_.push_back(a);
    const array* ap = a.get();
    const std::size_t rows = rows_;
    out_.push_back({"array_2d_static",
                    block_name(B),
                    {"raw", "raw_scalar"},
                    n_,
                    [ap, rows] { return sum_2d(*ap, rows); },
                    expected_});
    out_.back().uses_table = ap->uses_table() ? 1 : 0;
  }

  bool restore_raw() {
    bool ok = std::all_of(raw_.begin(), raw_.end(), [](int v) { return v == 7; });
    for (std::size_t i = 0; i < n_; ++i)
      raw_[i] = value_of(i);
    return ok;
  }

  const options& o_;
  std::vector<std::shared_ptr<void>>& keep_;
  std::size_t n_, rows_;
  std::vector<int> raw_;  // this thread's private copy of the values
  unsigned expected_ = 0;
  std::size_t stride_ = 1;
  std::map<std::string, void*> arrays_;
  std::vector<bench> out_;
};

// One sample of benchmark k: `passes` traversals between two barriers. Every thread calls it;
// thread 0 (or, with --threads-measure all, every thread) traverses, the others wait at the
// closing barrier. Returns {ns, instructions} per access on a measuring thread.
std::pair<double, std::optional<double>> sample(const bench& b, std::size_t k, std::size_t passes,
                                                bool all, const instruction_counter& ic) {
  const bool measuring = pgas::mythread() == 0 || (all && !b.shared_write);
  pgas::barrier();
  double ns = 0;
  std::optional<double> instr;
  if (measuring) {
    bool ok = true;
    const std::uint64_t i0 = ic.read_count();
    const auto t0 = clock_type::now();
    for (std::size_t p = 0; p < passes; ++p)
      ok = (b.pass() == b.expected) && ok;
    const auto t1 = clock_type::now();
    const std::uint64_t i1 = ic.read_count();
    if (b.verify) ok = b.verify() && ok;
    if (!ok) checksum_bad[k].store(true, std::memory_order_relaxed);
    const double accesses = static_cast<double>(passes * b.accesses);
    ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / accesses;
    if (ic.available()) instr = static_cast<double>(i1 - i0) / accesses;
  }
  pgas::barrier();
  return {ns, instr};
}

int job_body(const options& o) {
  const bool all = o.measure == "all";
  const bool me0 = pgas::mythread() == 0;
  const instruction_counter ic;
  if (me0 && !ic.available()) {
    std::fprintf(stderr,
                 "sptr_bench: no instruction counter (perf_event_open: %s; "
                 "perf_event_paranoid must be <= 2 and the machine must expose a PMU)\n",
                 ic.why_unavailable().c_str());
  }
  std::vector<std::shared_ptr<void>> keep;
  builder bld(o, keep);
  const std::vector<bench> benches = bld.build();
  if (benches.size() > checksum_bad.size()) return 1;
  std::map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < benches.size(); ++k)
    index[benches[k].variant] = k;  // the raw baselines are unique by name

  std::vector<samples> got(benches.size());
  const auto passes_of = [&](const bench& b) {
    return std::max<std::size_t>(1, o.min_accesses / std::max<std::size_t>(b.accesses, 1));
  };
  const auto take = [&](std::size_t k) {
    return sample(benches[k], k, passes_of(benches[k]), all, ic);
  };
  // Baselines no selected variant pairs with (`--only raw`) are sampled on their own.
  std::vector<bool> paired(benches.size(), false);
  for (const bench& b : benches) {
    for (const std::string& name : b.baselines)
      paired[index.at(name)] = true;
  }
  // Rep -1 warms caches, pages and branch predictors and is not recorded. Then, in each rep,
  // each variant is measured right after its baselines, so a ratio compares samples taken
  // within milliseconds of each other (this VM's speed drifts over seconds).
  for (int rep = -1; rep < o.reps; ++rep) {
    for (std::size_t k = 0; k < benches.size(); ++k) {
      const bench& b = benches[k];
      if (b.baselines.empty() && (paired[k] || !selected(o, b.variant))) continue;
      std::map<std::string, double> base_ns;
      for (const std::string& name : b.baselines) {
        const std::size_t bk = index.at(name);
        const auto [ns, instr] = take(bk);
        base_ns[name] = ns;
        if (rep >= 0) {
          got[bk].ns.push_back(ns);
          if (instr) got[bk].instructions.push_back(*instr);
        }
      }
      const auto [ns, instr] = take(k);
      if (rep < 0) continue;
      got[k].ns.push_back(ns);
      if (instr) got[k].instructions.push_back(*instr);
      for (const auto& [name, bns] : base_ns)
        got[k].ratio[name].push_back(ns / bns);
    }
  }

  bool all_ok = true;
  for (std::size_t k = 0; k < benches.size(); ++k)
    all_ok = all_ok && !checksum_bad[k].load();
  if (!me0) return 0;
  for (std::size_t k = 0; k < benches.size(); ++k) {
    const bench& b = benches[k];
    const samples& s = got[k];
    if (s.ns.empty()) continue;  // a baseline no selected variant needed
    if (!selected(o, b.variant, b.block) && !b.baselines.empty()) continue;
    const double med = median(s.ns);
    const bool ok = !checksum_bad[k].load();
    nlohmann::ordered_json j;
    j["bench"] = "sptr";
    j["kernel"] = "sptr";
    j["variant"] = b.variant;
    j["block"] = b.block.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.block);
    if (b.uses_table >= 0) j["uses_table"] = b.uses_table == 1;
    j["threads"] = pgas::threads();
    j["measure"] = all ? "all" : "thread0";
    j["elements"] = o.elements;
    j["size"] = o.elements;
    j["accesses"] = b.accesses;
    j["passes"] = passes_of(b);
    if (b.variant == "raw_strided" || b.variant.starts_with("sptr_add")) j["stride"] = bld.stride();
    j["reps"] = s.ns.size();
    j["ns_per_access"] = round3(med);
    j["min_ns_per_access"] = round3(*std::min_element(s.ns.begin(), s.ns.end()));
    j["max_ns_per_access"] = round3(*std::max_element(s.ns.begin(), s.ns.end()));
    j["instructions_per_access"] = s.instructions.empty()
                                       ? nlohmann::json(nullptr)
                                       : nlohmann::json(round3(median(s.instructions)));
    if (!b.baselines.empty()) {
      j["baseline"] = b.baselines.front();
      j["vs_raw"] = round3(median(s.ratio.at(b.baselines.front())));
      for (std::size_t i = 1; i < b.baselines.size(); ++i)
        j["vs_" + b.baselines[i]] = round3(median(s.ratio.at(b.baselines[i])));
    }
    j["seconds"] = med * 1e-9 * static_cast<double>(passes_of(b) * b.accesses);
    j["checksum_ok"] = ok;
    j["verified"] = ok;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
  }
  return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  CLI::App app{
      "Cost of shared accesses: pointer-to-shared and shared-array indexing against "
      "plain pointers."};
  app.add_option("--elements,--size", o.elements,
                 "Elements per array (a multiple of 1024: the 2-D arrays are N/1024 x 1024).")
      ->check(CLI::PositiveNumber);
  app.add_option("--reps", o.reps, "Samples per benchmark; medians are reported.")
      ->check(CLI::PositiveNumber);
  app.add_option("--only,--variant", o.only,
                 "Variants to run, comma-separated, each VARIANT or VARIANT:BLOCK (a prefix such "
                 "as `sptr` or `array_2d` selects its family): sptr_static, sptr_dynamic, "
                 "sptr_add, sptr_add_dynamic, sptr_write, sptr_write_dynamic, array_2d_static, "
                 "array_2d_dynamic, local_part, table, table_row; blocks as printed (3, "
                 "indefinite, [32][32]). "
                 "The raw baselines a variant is compared with always run.")
      ->delimiter(',')
      ->check(
          [](const std::string& entry) {
            const std::string v = entry.substr(0, entry.find(':'));
            const bool known = std::any_of(variant_names.begin(), variant_names.end(),
                                           [&](const char* name) { return in_family(name, v); });
            return known ? std::string() : "no variant is named " + v;
          },
          "VARIANT[:BLOCK]");
  app.add_option("--threads-measure", o.measure,
                 "Who traverses: 0 (thread 0 while the others wait at a barrier) or all (every "
                 "thread at once; stores to shared arrays stay on thread 0).")
      ->check(CLI::IsMember({"0", "all"}));
  app.add_option("--min-accesses", o.min_accesses,
                 "Accesses per sample: passes over the array are repeated up to this many.")
      ->check(CLI::PositiveNumber);
  app.add_option("--stride", o.stride,
                 "Element stride of sptr_add and raw_strided (raised to the next value coprime "
                 "with --elements).")
      ->check(CLI::PositiveNumber);
  bool json = true;  // the kernel contract's --json; output is JSON lines either way
  app.add_flag("--json", json, "Accepted for the kernel contract; output is always JSON lines.");
  CLI11_PARSE(app, argc, argv);
  if (o.elements % cols != 0) {
    std::fprintf(stderr, "sptr_bench: --elements must be a multiple of %zu\n", cols);
    return 2;
  }
  return pgas::run(argc, argv, [&o] { return job_body(o); });
}
