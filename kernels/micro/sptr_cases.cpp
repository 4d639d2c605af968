// kernels/micro/sptr_cases.cpp — sptr_bench's cases: which variants exist, which --only
// selects, and sptr_cases_build(), which makes the shared arrays (and tables) of the selected
// ones and pairs each with its raw baselines. The loops themselves are in sptr_loops.hpp.
#include "sptr_cases.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <span>

#include <pgas/pgas.hpp>

#include "sptr_loops.hpp"

namespace pgas::micro {

namespace {

constexpr std::array<const char*, 16> variant_names = {
    "raw",         "raw_scalar",         "raw_strided",     "raw_write",
    "sptr_static", "sptr_dynamic",       "sptr_add",        "sptr_add_dynamic",
    "sptr_write",  "sptr_write_dynamic", "array_2d_static", "array_2d_dynamic",
    "local_part",  "my_chunks",          "table",           "table_row"};

bool is_variant(const std::string& v) {
  return std::find(variant_names.begin(), variant_names.end(), v) != variant_names.end();
}

// Whether `variant` is the variant named `v`, or `v` names its family (`sptr`, `array_2d`).
bool in_family(const std::string& variant, const std::string& v) {
  return is_variant(v) ? variant == v : variant.starts_with(v + "_");
}

std::size_t coprime_stride(std::size_t n, std::size_t s) {
  s = std::max<std::size_t>(s, 1) % n;
  while (std::gcd(s, n) != 1)
    ++s;
  return s;
}

std::string block_name(std::size_t b) {
  return b == pgas::indefinite ? "indefinite" : std::to_string(b);
}

// Builds the cases into a set; collective, like sptr_cases_build.
class builder {
 public:
  builder(const sptr_options& o, sptr_case_set& set)
      : o_(o),
        set_(set),
        n_(o.elements),
        rows_(o.elements / cols),
        raw_(std::make_shared<std::vector<int>>(o.elements)) {
    std::vector<int>& raw = *raw_;
    for (std::size_t i = 0; i < n_; ++i) {
      raw[i] = value_of(i);
      expected_ += static_cast<unsigned>(raw[i]);
    }
    set_.stride = coprime_stride(n_, o.stride);
    set_.owned.push_back(raw_);
  }

  void build() {
    const int* r = raw_->data();
    int* w = raw_->data();
    const std::size_t n = n_;
    const std::size_t st = set_.stride;
    add_raw("raw", [r, n] { return sum_raw(r, n); });
    add_raw("raw_scalar", [r, n] { return sum_raw_scalar(r, n); });
    add_raw("raw_strided", [r, n, st] { return sum_raw_strided(r, n, st); });
    // The fill overwrites the private values, so verify (outside the clock) checks the stores
    // and puts the values back for the read baselines.
    sptr_case fw{"raw_write", "", {}, n, [w, n] {
                   fill_raw(w, n, 7);
                   return 0u;
                 }};
    fw.verify = [raw = raw_] {
      const bool ok = std::all_of(raw->begin(), raw->end(), [](int v) { return v == 7; });
      for (std::size_t i = 0; i < raw->size(); ++i)
        (*raw)[i] = value_of(i);
      return ok;
    };
    out().push_back(std::move(fw));

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
  }

 private:
  template <std::size_t B>
  using array_1d = pgas::shared_array<int, 1, B>;

  std::vector<sptr_case>& out() { return set_.cases; }

  void add_raw(const char* name, std::function<unsigned()> f) {
    out().push_back({name, "", {}, n_, std::move(f), expected_});
  }

  // A case of `variant` at `block` that reads every element once, paired with the raw loops.
  void add_read(const char* variant, const std::string& block, std::size_t accesses,
                std::function<unsigned()> pass) {
    out().push_back({variant, block, {"raw", "raw_scalar"}, accesses, std::move(pass), expected_});
  }

  // The 1-D array `shared [B] int A[n]` holding value_of(i) at i, made on first use and
  // shared by the static, dynamic, add and write cases of that B.
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
      set_.owned.push_back(a);
      it = arrays_.emplace(key, a.get()).first;
    }
    return *static_cast<array_1d<B>*>(it->second);
  }

  template <std::size_t B>
  void static_1d() {
    const bool st = sptr_selected(o_, "sptr_static", block_name(B));
    const bool dy = sptr_selected(o_, "sptr_dynamic", block_name(B));
    if (!st && !dy) return;
    const pgas::sptr<int, B> p = get_1d<B>().begin_ptr();
    const std::size_t n = n_;
    if (st) add_read("sptr_static", block_name(B), n, [p, n] { return sum_sptr<B>(p, n); });
    if (dy) {
      const pgas::sptr<int, pgas::dynamic_block> d = p;
      add_read("sptr_dynamic", block_name(B), n,
               [d, n] { return sum_sptr<pgas::dynamic_block>(d, n); });
    }
  }

  template <std::size_t B, bool Dynamic = false>
  void add_sptr_add() {
    const char* variant = Dynamic ? "sptr_add_dynamic" : "sptr_add";
    if (!sptr_selected(o_, variant, block_name(B))) return;
    const pgas::sptr<int, B> p = get_1d<B>().begin_ptr();
    const std::size_t n = n_;
    const std::size_t st = set_.stride;
    std::function<unsigned()> pass;
    if constexpr (Dynamic) {
      const pgas::sptr<int, pgas::dynamic_block> d = p;
      pass = [d, n, st] { return sum_sptr_add<pgas::dynamic_block>(d, n, st); };
    } else {
      pass = [p, n, st] { return sum_sptr_add<B>(p, n, st); };
    }
    out().push_back({variant, block_name(B), {"raw_strided"}, n, std::move(pass), expected_});
  }

  template <std::size_t B, bool Dynamic = false>
  void add_write() {
    const char* variant = Dynamic ? "sptr_write_dynamic" : "sptr_write";
    if (!sptr_selected(o_, variant, block_name(B))) return;
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
    sptr_case c(variant, block_name(B), {"raw_write"}, n, std::move(pass));
    // Checked element by element through the array's own indexing (not the pointer under
    // test), then the values are put back for the read cases.
    c.verify = [&a, n] {
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) {
        ok = ok && a[i] == 7;
        a[i] = value_of(i);
      }
      return ok;
    };
    c.shared_write = true;
    out().push_back(std::move(c));
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
    const bool part = name == "1024" && sptr_selected(o_, "local_part", name);
    const bool whole = sptr_selected(o_, "array_2d_dynamic", name);
    const bool table = sptr_selected(o_, "table", name) || sptr_selected(o_, "table_row", name);
    const bool chunks = sptr_selected(o_, "my_chunks", name);
    if (!whole && !part && !table && !chunks) return;
    using array = pgas::shared_array<int, 2>;
    auto a = std::make_shared<array>(array::extents_type{rows_, cols}, std::move(spec));
    fill_2d(*a);
    set_.owned.push_back(a);
    const array* ap = a.get();
    const std::size_t rows = rows_;
    if (whole) {
      add_read("array_2d_dynamic", name, n_, [ap, rows] { return sum_2d(*ap, rows); });
      out().back().uses_table = ap->uses_table() ? 1 : 0;
    }
    // Inter-thread privatization: an explicit one-level table (a replica per NUMA node or one),
    // read per element, and with the row pointer hoisted out of the inner loop (the paper's
    // `int *ppc_i = pc[i]`). Layouts with no table have no such variant.
    if (table && pgas::table_shape::why_not(ap->layout()).empty()) {
      auto t = std::make_shared<pgas::table<int, 2>>(pgas::privatize(*ap));
      set_.owned.push_back(t);
      const pgas::table<int, 2>* tp = t.get();
      if (sptr_selected(o_, "table", name))
        add_read("table", name, n_, [tp, rows] { return sum_2d(*tp, rows); });
      if (sptr_selected(o_, "table_row", name) && tp->shape().segments_per_row() == 1) {
        add_read("table_row", name, n_, [tp, rows] {
          unsigned s = 0;
          for (std::size_t i = 0; i < rows; ++i)
            s += sum_raw(tp->row(i), cols);
          return s;
        });
      }
    }
    // The privatised loop: every part through plain pointers (padding is zero, so the sum
    // is the same), as the kernels' `privatized` variant reads its own part.
    if (part) {
      const std::size_t parts =
          ap->local_part(0).size() * static_cast<std::size_t>(pgas::threads());
      add_read("local_part", name, parts, [ap] {
        unsigned s = 0;
        for (int t = 0; t < pgas::threads(); ++t) {
          const std::span<int> part = ap->local_part(t);
          s += sum_raw(part.data(), part.size());
        }
        return s;
      });
    }
    // Every thread's chunks (A.chunks_of(t), what my_chunks() gives thread t): a plain loop
    // over each run of the owner's part, padding skipped.
    if (chunks) {
      add_read("my_chunks", name, n_, [ap] {
        unsigned s = 0;
        for (int t = 0; t < pgas::threads(); ++t) {
          const int* const part = ap->local_part(t).data();
          for (const pgas::index_chunk& c : ap->chunks_of(t))
            s += sum_raw(part + c.offset, c.size());
        }
        return s;
      });
    }
  }

  template <std::size_t B>
  void static_2d() {
    if (!sptr_selected(o_, "array_2d_static", block_name(B))) return;
    using array = pgas::shared_array<int, 2, B>;
    auto a = std::make_shared<array>(typename array::extents_type{rows_, cols});
    fill_2d(*a);
    set_.owned.push_back(a);
    const array* ap = a.get();
    const std::size_t rows = rows_;
    add_read("array_2d_static", block_name(B), n_, [ap, rows] { return sum_2d(*ap, rows); });
    out().back().uses_table = ap->uses_table() ? 1 : 0;
  }

  const sptr_options& o_;
  sptr_case_set& set_;
  std::size_t n_, rows_;
  std::shared_ptr<std::vector<int>> raw_;  // this thread's private copy of the values
  unsigned expected_ = 0;
  std::map<std::string, void*> arrays_;  // the 1-D arrays by "1d/BLOCK", owned by set_
};

}  // namespace

bool sptr_variant_known(const std::string& v) {
  return std::any_of(variant_names.begin(), variant_names.end(),
                     [&](const char* name) { return in_family(name, v); });
}

bool sptr_selected(const sptr_options& o, const std::string& variant, const std::string& block) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& entry) {
    const std::size_t colon = entry.find(':');
    return in_family(variant, entry.substr(0, colon)) &&
           (colon == std::string::npos || block.empty() || entry.substr(colon + 1) == block);
  });
}

sptr_case_set sptr_cases_build(const sptr_options& o) {
  sptr_case_set set;
  builder(o, set).build();
  return set;
}

}  // namespace pgas::micro
