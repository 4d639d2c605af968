// Tests pgas/shared_array.hpp (and src/objects/shared_array.cpp) in jobs of 1 to 8 threads, for
// 1-D, 2-D and 3-D arrays with cyclic, [*], indefinite and tiled layouts: element addresses against
// the layout model and against A.ptr(), owners, walking begin_ptr() with ++, zero
// initialisation, owner writes seen by all after a barrier, for_each_mine coverage, local_part,
// the UPC size queries, compile-time against run-time blocks, moves, and memory reuse.

#include <pgas/pgas.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::block_spec;
using pgas::shared_array;

struct s24 {
  double a, b, c;
};

// The element bytes written at linear position l: never all zero.
void fill_value(char* e, std::size_t size, std::size_t l) {
  for (std::size_t k = 0; k < size; ++k)
    e[k] = static_cast<char>((l * 31 + k * 7) % 251 + 1);
}
bool has_value(const char* e, std::size_t size, std::size_t l) {
  for (std::size_t k = 0; k < size; ++k) {
    if (e[k] != static_cast<char>((l * 31 + k * 7) % 251 + 1)) return false;
  }
  return true;
}
bool is_zero(const char* e, std::size_t size) {
  for (std::size_t k = 0; k < size; ++k) {
    if (e[k] != 0) return false;
  }
  return true;
}

std::string show_index(std::span<const std::size_t> idx) {
  std::string s = "(";
  for (std::size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + ")";
}

// What the API says about one pointer-to-shared.
struct pointer_seen {
  std::uint64_t word = 0;
  int thread = 0;
  std::size_t phase = 0, addrfield = 0, block = 0;
  const char* get = nullptr;   // p.get()
  const char* cast = nullptr;  // static_cast<T*>(p)
};

// One step of a walk from begin_ptr() with ++.
struct walk_step {
  pointer_seen p;
  std::ptrdiff_t from_begin = 0;  // p - begin_ptr()
  std::uint64_t jump = 0;         // (begin_ptr() + k).word()
  const char* deref = nullptr;    // &*p (checked in checked builds)
};

// A shared array behind a type-erased interface: the checks below are ordinary functions,
// compiled once rather than once per element type, rank and block (which kept this file's
// sanitizer builds slow); each array type only instantiates these small accessors.
class array_view {
 public:
  virtual ~array_view() = default;
  virtual const pgas::layout& layout() const = 0;
  virtual std::size_t element_size() const = 0;
  virtual char* at(std::span<const std::size_t> idx) const = 0;       // &A(i, j, …)
  virtual char* address(std::span<const std::size_t> idx) const = 0;  // A.address(i, j, …)
  virtual char* bracket(std::size_t i) const = 0;  // &A[i] (rank 1; else nullptr)
  virtual pointer_seen ptr(std::span<const std::size_t> idx) const = 0;  // A.ptr(i, j, …)
  virtual pointer_seen begin() const = 0;                                // A.begin_ptr()
  virtual std::vector<walk_step> walk(std::size_t steps) const = 0;
  virtual std::span<char> local_part(int t) const = 0;  // bytes
  virtual std::span<char> local_part() const = 0;
  virtual void for_each_mine(
      const std::function<void(char*, std::span<const std::size_t>)>& f) const = 0;
  virtual std::size_t affinitysize(int t) const = 0;
  virtual std::size_t localsizeof() const = 0;
  virtual std::size_t blocksizeof() const = 0;
  virtual std::size_t elemsizeof() const = 0;
  virtual std::size_t size() const = 0;
};

template <class T, std::size_t R, std::size_t B>
class typed_view final : public array_view {
 public:
  explicit typed_view(const shared_array<T, R, B>& a) : a_(a) {}
  const pgas::layout& layout() const override { return a_.layout(); }
  std::size_t element_size() const override { return sizeof(T); }
  char* at(std::span<const std::size_t> idx) const override {
    return bytes(&std::apply([&](auto... i) -> T& { return a_(i...); }, index(idx)));
  }
  char* address(std::span<const std::size_t> idx) const override {
    return bytes(std::apply([&](auto... i) { return a_.address(i...); }, index(idx)));
  }
  char* bracket(std::size_t i) const override {
    if constexpr (R == 1) {
      return bytes(&a_[i]);
    } else {
      return nullptr;
    }
  }
  pointer_seen ptr(std::span<const std::size_t> idx) const override {
    return see(std::apply([&](auto... i) { return a_.ptr(i...); }, index(idx)));
  }
  pointer_seen begin() const override { return see(a_.begin_ptr()); }
  std::vector<walk_step> walk(std::size_t steps) const override {
    std::vector<walk_step> out;
    const auto begin = a_.begin_ptr();
    auto p = begin;
    for (std::size_t k = 0; k < steps; ++k, ++p)
      out.push_back(
          {see(p), p - begin, (begin + static_cast<std::ptrdiff_t>(k)).word(), bytes(&*p)});
    return out;
  }
  std::span<char> local_part(int t) const override { return as_bytes(a_.local_part(t)); }
  std::span<char> local_part() const override { return as_bytes(a_.local_part()); }
  void for_each_mine(
      const std::function<void(char*, std::span<const std::size_t>)>& f) const override {
    a_.for_each_mine([&](T& e, const std::array<std::size_t, R>& idx) { f(bytes(&e), idx); });
  }
  std::size_t affinitysize(int t) const override { return a_.affinitysize(t); }
  std::size_t localsizeof() const override { return a_.localsizeof(); }
  std::size_t blocksizeof() const override { return a_.blocksizeof(); }
  std::size_t elemsizeof() const override { return a_.elemsizeof(); }
  std::size_t size() const override { return a_.size(); }

 private:
  static std::array<std::size_t, R> index(std::span<const std::size_t> idx) {
    std::array<std::size_t, R> i{};
    std::copy(idx.begin(), idx.end(), i.begin());
    return i;
  }
  static char* bytes(T* p) { return reinterpret_cast<char*>(p); }
  static std::span<char> as_bytes(std::span<T> s) {
    return {reinterpret_cast<char*>(s.data()), s.size() * sizeof(T)};
  }
  static pointer_seen see(const pgas::sptr<T, B>& p) {
    return {p.word(),
            p.thread(),
            p.phase(),
            p.addrfield(),
            p.block(),
            bytes(p.get()),
            bytes(static_cast<T*>(p))};
  }
  const shared_array<T, R, B>& a_;
};

// upc_localsizeof from the declaration: ceil(blocks / THREADS) blocks (the whole array for an
// indefinite block).
std::size_t upc_local_elements(const pgas::layout& lay) {
  const auto n = static_cast<std::size_t>(lay.threads());
  switch (lay.which()) {
    case block_spec::kind::indefinite:
      return lay.size();
    case block_spec::kind::tiles: {
      std::size_t tiles = 1, volume = 1;
      for (std::size_t d = 0; d < lay.rank(); ++d) {
        const std::size_t b = lay.spec().tile()[d];
        tiles *= (lay.extent(d) + b - 1) / b;
        volume *= b;
      }
      return (tiles + n - 1) / n * volume;
    }
    default: {
      const std::size_t b =
          lay.which() == block_spec::kind::star ? (lay.size() + n - 1) / n : lay.spec().block();
      const std::size_t blocks = (lay.size() + b - 1) / b;
      return (blocks + n - 1) / n * b;
    }
  }
}

// upc_blocksizeof from the declaration: B, ceil(size / THREADS) for [*], 0 for [], and (a pgas
// extension) the tile volume for tiles.
std::size_t upc_block(const pgas::layout& lay) {
  const auto n = static_cast<std::size_t>(lay.threads());
  switch (lay.which()) {
    case block_spec::kind::indefinite:
      return 0;
    case block_spec::kind::star:
      return (lay.size() + n - 1) / n;
    case block_spec::kind::tiles: {
      std::size_t volume = 1;
      for (std::size_t b : lay.spec().tile())
        volume *= b;
      return volume;
    }
    default:
      return lay.spec().block();
  }
}

// Every check on one array, run by every thread of the job (collective: it has barriers).
void check_view(const array_view& a, failures& f) {
  const pgas::layout& lay = a.layout();
  const int me = pgas::mythread();
  const int n = pgas::threads();
  const std::size_t s = a.element_size();
  const std::size_t size = a.size();
  const std::string name = lay.declaration("T", "A") + " (sizeof T = " + std::to_string(s) + ")";
  const pointer_seen begin = a.begin();
  const std::size_t off0 = begin.addrfield;
  EXPECT(f, begin.thread == 0 && begin.phase == 0, name);
  EXPECT(f, lay.threads() == n && size == lay.size(), name);

  // Zero-initialised, as UPC's declared shared arrays are.
  for (std::size_t l = 0; l < size; ++l) {
    if (!is_zero(a.at(lay.unlinear(l)), s)) {
      EXPECT(f, false, name << ": element " << l << " is not zero after creation");
      break;
    }
  }
  pgas::barrier();

  // The owner writes its elements, each exactly once, through for_each_mine.
  std::size_t mine = 0;
  a.for_each_mine([&](char* e, std::span<const std::size_t> idx) {
    ++mine;
    const std::size_t l = lay.linear(idx);
    EXPECT(f, e == a.at(idx), name << ": for_each_mine element/index mismatch at " << l);
    EXPECT(f, pgas::owner_of(e) == me, name << ": for_each_mine gave another thread's element");
    EXPECT(f, is_zero(e, s), name << ": element " << l << " visited twice");
    fill_value(e, s, l);
  });
  EXPECT(f, mine == a.affinitysize(me), name << ": visited " << mine);
  pgas::barrier();

  // Everyone reads every element; each thread checks the addresses of a share of them.
  std::vector<std::size_t> owned(static_cast<std::size_t>(n), 0);
  for (std::size_t l = 0; l < size; ++l) {
    const std::vector<std::size_t> idx = lay.unlinear(l);
    const char* e = a.at(idx);
    EXPECT(f, has_value(e, s, l), name << ": element " << l << " has the wrong value");
    const int owner = pgas::owner_of(e);
    if (owner >= 0 && owner < n) ++owned[static_cast<std::size_t>(owner)];
    if (l % static_cast<std::size_t>(n) != static_cast<std::size_t>(me)) continue;
    const pgas::element_place pl = lay.place(idx);
    const pointer_seen p = a.ptr(idx);
    const bool ok = p.get == e && p.cast == e && owner == pl.thread && p.thread == pl.thread &&
                    p.phase == pl.phase && p.addrfield == off0 + pl.offset * s &&
                    p.block == a.blocksizeof() && a.address(idx) == e &&
                    a.local_part(pl.thread).data() + pl.offset * s == e &&
                    (lay.rank() != 1 || a.bracket(idx[0]) == e);
    EXPECT(f, ok,
           name << ": element " << show_index(idx) << " at thread " << owner << ", pointer thread "
                << p.thread << " phase " << p.phase << " addr " << p.addrfield << "; layout says "
                << pl.thread << "/" << pl.phase << "/" << pl.offset);
  }

  // UPC's size queries.
  for (int t = 0; t < n; ++t) {
    EXPECT(f, a.affinitysize(t) == owned[static_cast<std::size_t>(t)],
           name << ": affinitysize(" << t << ") = " << a.affinitysize(t) << ", owner_of counts "
                << owned[static_cast<std::size_t>(t)]);
  }
  EXPECT(f, a.localsizeof() == upc_local_elements(lay) * s,
         name << ": localsizeof " << a.localsizeof());
  EXPECT(f, a.local_part().size() == upc_local_elements(lay) * s, name);
  EXPECT(f, a.local_part().data() == a.local_part(me).data(), name);
  EXPECT(f, a.elemsizeof() == s, name);
  EXPECT(f, a.blocksizeof() == upc_block(lay), name << ": blocksizeof " << a.blocksizeof());

  // Walking from &A[0]...[0] with ++ visits the linear order (cyclic, [*], indefinite) or the
  // tile order, each tile row-major with its padding (tiles).
  const std::size_t steps = lay.tiled() ? lay.blocks() * lay.block_elements() : size;
  const std::vector<walk_step> walk = a.walk(steps);
  for (std::size_t k = 0; k < steps; ++k) {
    const walk_step& w = walk[k];
    bool ok =
        w.from_begin == static_cast<std::ptrdiff_t>(k) && w.jump == w.p.word && w.deref == w.p.get;
    std::vector<std::size_t> idx(lay.rank());
    bool real = true;
    if (!lay.tiled()) {
      idx = lay.unlinear(k);
    } else {
      const std::size_t vol = lay.block_elements();
      std::size_t tile = k / vol;
      std::size_t pos = k % vol;
      for (std::size_t d = lay.rank(); d-- > 0;) {
        const std::size_t b = lay.spec().tile()[d];
        idx[d] = (tile % lay.tiles_along(d)) * b + pos % b;
        tile /= lay.tiles_along(d);
        pos /= b;
        real = real && idx[d] < lay.extent(d);
      }
      ok = ok && w.p.thread == static_cast<int>((k / vol) % static_cast<std::size_t>(n)) &&
           w.p.phase == k % vol;
    }
    if (real) ok = ok && w.p.word == a.ptr(idx).word && w.p.get == a.at(idx);
    if (!ok) {
      EXPECT(f, false,
             name << ": step " << k << " of the walk from begin_ptr() is at thread " << w.p.thread
                  << " phase " << w.p.phase << " addr " << w.p.addrfield << ", expected "
                  << show_index(idx));
      break;
    }
  }
  pgas::barrier();  // nobody frees the array while another thread still reads it
}

template <class T, std::size_t R, std::size_t B>
void check_array(const shared_array<T, R, B>& a, failures& f) {
  check_view(typed_view<T, R, B>(a), f);
}

// Byte offsets of every element from thread 0's part, and owners: what compile-time and
// run-time blocks must agree on.
std::vector<std::pair<int, std::ptrdiff_t>> address_map(const array_view& a) {
  std::vector<std::pair<int, std::ptrdiff_t>> map;
  const char* base = a.local_part(0).data();
  for (std::size_t l = 0; l < a.size(); ++l) {
    const char* e = a.at(a.layout().unlinear(l));
    map.emplace_back(pgas::owner_of(e), e - base);
  }
  return map;
}
template <class T, std::size_t R, std::size_t B>
std::vector<std::pair<int, std::ptrdiff_t>> address_map(const shared_array<T, R, B>& a) {
  return address_map(typed_view<T, R, B>(a));
}

}  // namespace

TEST_CASE("shared arrays: addresses, owners, pointers, initialisation and ownership",
          "[shared_array]") {
  for (int n : {1, 2, 3, 4, 8}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      check_array(shared_array<int>({1}), f);
      check_array(shared_array<int>({100}), f);
      check_array(shared_array<char>({257}, block_spec::cyclic(3)), f);
      check_array(shared_array<double>({100}, block_spec::star()), f);
      check_array(shared_array<s24>({37}, block_spec::indefinite()), f);
      check_array(shared_array<int>({10}, block_spec::cyclic(64)), f);
      check_array(shared_array<int, 2>({7, 5}, block_spec::cyclic(5)), f);
      check_array(shared_array<int, 2>({10, 10}, block_spec::cyclic(3)), f);
      check_array(shared_array<int, 2>({8, 9}, block_spec::tiles({2, 3})), f);
      check_array(shared_array<double, 2>({5, 7}, block_spec::tiles({2, 3})), f);
      check_array(shared_array<s24, 2>({3, 3}, block_spec::tiles({4, 4})), f);
      check_array(shared_array<int, 2>({6, 7}, block_spec::star()), f);
      check_array(shared_array<s24, 2>({4, 6}, block_spec::indefinite()), f);
      check_array(shared_array<int, 3>({3, 4, 5}, block_spec::cyclic(4)), f);
      check_array(shared_array<int, 3>({3, 5, 4}, block_spec::tiles({2, 2, 3})), f);
      check_array(shared_array<char, 3>({2, 3, 4}, block_spec::star()), f);
      check_array(shared_array<int>({9}, block_spec::tiles({4})), f);
      check_array(shared_array<short, 4>({2, 3, 2, 3}, block_spec::tiles({1, 2, 2, 2})), f);
      check_array(shared_array<int, 4>({2, 3, 2, 3}, block_spec::cyclic(5)), f);
      check_array(shared_array<int, 1, 4>({100}), f);
      check_array(shared_array<int, 2, 3>({10, 10}), f);
      check_array(shared_array<double, 2, 1>({6, 7}), f);
      check_array(shared_array<s24, 1, pgas::indefinite>({20}), f);
      check_array(shared_array<char, 3, 8>({3, 4, 5}), f);
    });
    check_no_failures(f);
  }
}

TEST_CASE("shared arrays: a compile-time block lays out exactly like the run-time one",
          "[shared_array]") {
  for (int n : {1, 3, 4}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      {
        shared_array<int, 1, 4> c({100});
        shared_array<int, 1> d({100}, block_spec::cyclic(4));
        EXPECT(f, address_map(c) == address_map(d), "shared [4] int A[100]");
        EXPECT(f, c.layout().blocks() == d.layout().blocks(), "");
        static_assert(std::is_same_v<decltype(c.ptr(0)), pgas::sptr<int, 4>>);
        static_assert(std::is_same_v<decltype(d.ptr(0)), pgas::sptr<int, pgas::dynamic_block>>);
        EXPECT(f, (c.ptr(37) - c.begin_ptr()) == 37 && (d.ptr(37) - d.begin_ptr()) == 37, "");
        EXPECT(f, c.ptr(37).phase() == d.ptr(37).phase(), "");
        pgas::barrier();
      }
      {
        shared_array<double, 2, 3> c({10, 10});
        shared_array<double, 2> d({10, 10}, block_spec::cyclic(3));
        EXPECT(f, address_map(c) == address_map(d), "shared [3] double A[10][10]");
        pgas::barrier();
      }
      {
        shared_array<s24, 2, 1> c({6, 7});
        shared_array<s24, 2> d({6, 7});
        EXPECT(f, address_map(c) == address_map(d), "shared s24 A[6][7]");
        pgas::barrier();
      }
      {
        shared_array<int, 3, pgas::indefinite> c({3, 4, 5});
        shared_array<int, 3> d({3, 4, 5}, block_spec::indefinite());
        EXPECT(f, address_map(c) == address_map(d), "shared [] int A[3][4][5]");
        pgas::barrier();
      }
      {
        shared_array<char, 1, 1000> c({2500});
        shared_array<char, 1> d({2500}, block_spec::cyclic(1000));
        EXPECT(f, address_map(c) == address_map(d), "shared [1000] char A[2500]");
        pgas::barrier();
      }
    });
    check_no_failures(f);
  }
}

TEST_CASE("shared arrays: any thread writes any element; all see it after a barrier",
          "[shared_array]") {
  failures f;
  pgas::run(test_job(4), 0, nullptr, [&] {
    const int me = pgas::mythread();
    const int n = pgas::threads();
    shared_array<long, 2> a({9, 11}, block_spec::tiles({2, 4}));
    // Thread t writes the elements of the next thread (remote stores through references).
    for (std::size_t i = 0; i < 9; ++i) {
      for (std::size_t j = 0; j < 11; ++j) {
        if (a.ptr(i, j).thread() == (me + 1) % n) a(i, j) = static_cast<long>(100 * i + j + 1);
      }
    }
    pgas::barrier();
    for (std::size_t i = 0; i < 9; ++i) {
      for (std::size_t j = 0; j < 11; ++j) {
        EXPECT(f, a(i, j) == static_cast<long>(100 * i + j + 1), i << "," << j);
        EXPECT(f, *a.ptr(i, j) == a(i, j), "");
      }
    }
    pgas::barrier();
    // Through pointers-to-shared: thread 0 fills the array walking a pointer.
    if (me == 0) {
      auto p = a.begin_ptr();
      for (std::size_t k = 0; k < a.layout().blocks() * a.blocksizeof(); ++k, ++p)
        *p = -static_cast<long>(k);
    }
    pgas::barrier();
    for (std::size_t i = 0; i < 9; ++i) {
      for (std::size_t j = 0; j < 11; ++j)
        EXPECT(f, a(i, j) == -(a.ptr(i, j) - a.begin_ptr()), i << "," << j);
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("shared arrays: destruction frees; re-creation reuses the memory, zeroed",
          "[shared_array]") {
  failures f;
  pgas::run(test_job(3), 0, nullptr, [&] {
    std::size_t first = 0;
    const pgas::memory_usage before = pgas::memory_usage_of(pgas::mythread());
    pgas::barrier();  // thread 0 may allocate for everyone as soon as it gets there
    {
      shared_array<double> a({1000}, block_spec::cyclic(7));
      first = a.begin_ptr().addrfield();
      a.for_each_mine([](double& e, const auto&) { e = 42.0; });
      EXPECT(f, pgas::memory_usage_of(pgas::mythread()).allocated > before.allocated, "");
    }
    // all_free released the part before any thread returned from it.
    EXPECT(f, pgas::memory_usage_of(pgas::mythread()).allocated == before.allocated,
           "the destructor freed the part");
    pgas::barrier();  // and nobody allocates again before everyone has looked
    for (int round = 0; round < 3; ++round) {
      shared_array<double> b({1000}, block_spec::cyclic(7));
      // Cache colouring (pgas/alloc.hpp) starts each allocation at its own colour, within a
      // colour window (here 4 KiB: parts of 2688 bytes) of the space a freed.
      const std::size_t at = b.begin_ptr().addrfield();
      EXPECT(f, at < first + 4096 && first < at + 4096,
             "round " << round << ": offset " << at << " reuses the space at " << first);
      for (std::size_t i = 0; i < 1000; ++i) {
        if (b(i) != 0.0) {
          EXPECT(f, false, "round " << round << ": reused memory not zeroed at " << i);
          break;
        }
      }
      pgas::barrier();
      b.for_each_mine([](double& e, const auto&) { e = 1.0; });
      pgas::barrier();
    }
    // Moves: the moved-to array owns the memory, the moved-from one nothing (its destructor
    // frees nothing, so the allocation count stays balanced).
    {
      shared_array<int, 2> a({4, 4}, block_spec::cyclic(2));
      if (pgas::mythread() == 0) a(1, 2) = 12;
      pgas::barrier();
      shared_array<int, 2> b(std::move(a));
      EXPECT(f, b(1, 2) == 12 && b.size() == 16, "move construction");
      shared_array<int, 2> c({2, 2});
      c = std::move(b);  // frees c's own array (collective)
      EXPECT(f, c(1, 2) == 12 && c.size() == 16 && c.blocksizeof() == 2, "move assignment");
      pgas::barrier();
    }
    pgas::barrier();
    EXPECT(f, pgas::memory_usage_of(pgas::mythread()).allocated == before.allocated,
           "moves leak nothing");
  });
  check_no_failures(f);
}

// Views share the elements with the array and with each other: only the row table is
// restrict. A 1-D array on one thread (its view is the data itself) and a 2-D one with whole
// rows, written through one view and read back through another and through the array.
template <class View>
int write_then_read(View w, View r, std::size_t k) {
  w[k] = 7;
  const int first = r[k];
  w[k] = first + 1;
  return r[k] * 100 + first;
}

TEST_CASE("shared arrays: views of one array see each other's writes", "[shared_array]") {
  failures f;
  pgas::run(test_job(2), 0, nullptr, [&] {
    shared_array<int> line({4096}, block_spec::indefinite());
    pgas::barrier();
    if (pgas::mythread() == 0) {
      line.visit([&](auto v) {
        EXPECT(f, decltype(v)::whole_rows, "an indefinite 1-D array has its data as one row");
        EXPECT(f, write_then_read(v, v, 5) == 807, "1-D view: a write through one view");
      });
      const auto a = line.view(), b = line.view();
      EXPECT(f, write_then_read(a, b, 9) == 807 && line[9] == 8, "1-D: two views, the array");
    }
    shared_array<int, 2> grid({1024, 1024}, block_spec::cyclic(1024 * 512));
    pgas::barrier();
    if (pgas::mythread() == 1) {
      pgas::with_views(
          [&](auto v, auto w) {
            EXPECT(f, decltype(v)::whole_rows && decltype(w)::whole_rows, "2-D with whole rows");
            v(3, 4) = 11;
            w(3, 4) += 1;
            EXPECT(f, v(3, 4) == 12 && grid(3, 4) == 12, "2-D: two views and the array agree");
          },
          grid, grid);
    }
    pgas::barrier();
  });
  check_no_failures(f);
}

TEST_CASE("shared arrays without a block are UPC's block 1; ptr() converts to sptr<T>",
          "[shared_array][convert]") {
  for (int n : {1, 2, 3, 4, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const auto threads = static_cast<std::size_t>(n);
      // shared int A[N]: element i on thread i mod THREADS, course i / THREADS.
      pgas::shared_array<int> a({23});
      EXPECT(f, a.blocksizeof() == 1 && a.layout().spec() == pgas::block_spec::cyclic(1),
             "default block");
      const pgas::sptr<int> p0 = a.ptr(0);  // shared int *p = &A[0]
      for (std::size_t i = 0; i < 23; ++i) {
        const pgas::sptr<int> p = a.ptr(i);
        const pgas::sptr<int> walked = p0 + static_cast<std::ptrdiff_t>(i);
        EXPECT(f,
               p.thread() == static_cast<int>(i % threads) && p.phase() == 0 &&
                   p.addrfield() == a.ptr(i).addrfield() && p.get() == &a[i] &&
                   walked.word() == p.word(),
               "&A[" << i << "]");
      }
      // shared int M[4][5]: the flattened row-major index is dealt one element per thread.
      pgas::shared_array<int, 2> m({4, 5});
      for (std::size_t i = 0; i < 4; ++i) {
        for (std::size_t j = 0; j < 5; ++j) {
          const pgas::sptr<int> p = m.ptr(i, j);
          EXPECT(f,
                 p.thread() == static_cast<int>((i * 5 + j) % threads) &&
                     p.addrfield() == m.ptr(0, 0).addrfield() + (i * 5 + j) / threads * sizeof(int),
                 "&M[" << i << "][" << j << "]");
        }
      }
      // A run-time block of 4 converts to sptr<int, 4>, keeping the phase.
      pgas::shared_array<int> b({30}, pgas::block_spec::cyclic(4));
      for (std::size_t i = 0; i < 30; ++i) {
        const pgas::sptr<int, 4> p = b.ptr(i);
        EXPECT(f,
               p.word() == b.ptr(i).word() && p.phase() == i % 4 &&
                   p.thread() == static_cast<int>(i / 4 % threads) && p.get() == &b[i],
               "&B[" << i << "]");
      }
      // A compile-time block 1 array lays out as the default one.
      pgas::shared_array<int, 1, 1> c({23});
      for (std::size_t i = 0; i < 23; ++i)
        EXPECT(f, c.ptr(i).thread() == a.ptr(i).thread(), "shared_array<int, 1, 1> " << i);
    });
    check_no_failures(f);
  }
}

TEST_CASE("shared arrays: my_chunks and my_range cover each thread's elements exactly once",
          "[shared_array][owned_range]") {
  for (int n : {1, 2, 3, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      auto check = [&](const char* what, auto& arr) {
        // Each thread adds 1 to each of its elements through the chunks (contiguous from
        // address(begin)), then 10 through my_range; every element must hold 11, written by its
        // owner.
        for (const pgas::index_chunk& c : arr.my_chunks()) {
          const std::size_t b = c.begin, e = c.end, first = c.offset;
          int* const run = arr.local_part().data() + first;  // the chunk is contiguous here
          for (std::size_t l = b; l < e; ++l) {
            const std::vector<std::size_t> idx = arr.layout().unlinear(l);
            const pgas::element_place pl = arr.layout().place(std::span<const std::size_t>(idx));
            EXPECT(f, pl.thread == me && pl.offset == first + (l - b),
                   what << ": chunk index " << l << " is on " << pl.thread << " at " << pl.offset);
            run[l - b] += 1;
          }
        }
        for (const auto& i : arr.my_range()) {
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(i)>, std::size_t>) {
            arr[i] += 10;
          } else {
            std::apply([&](auto... x) { arr(x...) += 10; }, i);
          }
        }
        pgas::barrier();
        if (me == 0) {
          std::size_t count = 0;
          for (int t = 0; t < pgas::threads(); ++t) {
            for (auto [b, e] : arr.chunks_of(t))
              count += e - b;
          }
          EXPECT(f, count == arr.size(), what << ": chunks hold " << count << " elements");
          for (std::size_t t = 0; t < static_cast<std::size_t>(pgas::threads()); ++t) {
            const std::span<int> part = arr.local_part(static_cast<int>(t));
            std::size_t mine = 0;
            for (int v : part)
              mine += v == 11 ? 1 : 0;
            EXPECT(f, mine == arr.affinitysize(static_cast<int>(t)),
                   what << ": thread " << t << " holds " << mine << " elements written twice");
          }
        }
        pgas::barrier();
      };
      pgas::shared_array<int> a1({37});
      check("shared int A[37]", a1);
      pgas::shared_array<int> a4({37}, pgas::block_spec::cyclic(4));
      check("shared [4] int A[37]", a4);
      pgas::shared_array<int, 1, 3> c3({20});
      check("shared [3] int A[20] (compile-time)", c3);
      pgas::shared_array<int> star({37}, pgas::block_spec::star());
      check("shared [*] int A[37]", star);
      pgas::shared_array<int> ind({9}, pgas::block_spec::indefinite());
      check("shared [] int A[9]", ind);
      pgas::shared_array<int, 2> rows({6, 7}, pgas::block_spec::cyclic(7));
      check("shared [7] int M[6][7]", rows);
      pgas::shared_array<int, 2> tiles({7, 8}, pgas::block_spec::tiles({3, 3}));
      check("shared [3][3] int T[7][8]", tiles);
      pgas::shared_array<int, 3> cube({3, 4, 5}, pgas::block_spec::tiles({2, 2, 3}));
      check("shared [2][2][3] int C[3][4][5]", cube);
    });
    check_no_failures(f);
  }
}

// ---------------------------------------------------------------------------------------------
// Blocks beyond config::max_block (2^20 elements): one band of rows per thread, [*] and big
// tiles, checked against the block-cyclic definition. Arrays of char keep the memory small.

namespace {

// The value element l (row-major) holds.
char big_value(std::size_t l) {
  return static_cast<char>((l * 31 + l / 4099) % 251 + 1);
}

// Every check on one 2-D char array with a block of more than 2^20 elements; collective.
// `place` is the brute-force model: thread, phase and offset of row-major position l.
template <class Place>
void check_big(const shared_array<char, 2>& a, Place place, failures& f) {
  const pgas::layout& lay = a.layout();
  const std::size_t cols = lay.extent(1);
  const std::size_t size = lay.size();
  const auto n = static_cast<std::size_t>(pgas::threads());
  const auto me = static_cast<std::size_t>(pgas::mythread());
  const std::string name = lay.declaration("char", "A");
  EXPECT(f, lay.block_elements() > pgas::config::max_block, name);
  a.for_each_mine([&](char& e, const auto& idx) { e = big_value(idx[0] * cols + idx[1]); });
  pgas::barrier();
  // This thread's share of the elements (l = me mod THREADS) through A(i, j); some of them,
  // and all those near a block boundary, through ptr(i, j) against the model.
  const std::uintptr_t part0 = reinterpret_cast<std::uintptr_t>(a.local_part(0).data());
  const std::size_t off0 = a.begin_ptr().addrfield();
  for (std::size_t l = me; l < size; l += n) {
    const std::size_t i = l / cols, j = l % cols;
    if (a(i, j) != big_value(l)) {
      EXPECT(f, false, name << ": A(" << i << ", " << j << ") has the wrong value");
      break;
    }
    const std::size_t ph = place(l).phase;
    if (l % 997 >= n && !(ph < 3 || ph + 3 >= lay.block_elements())) continue;
    const pgas::element_place want = place(l);
    const auto p = a.ptr(i, j);
    const bool ok =
        p.thread() == want.thread && p.phase() == want.phase &&
        p.addrfield() == off0 + want.offset && *p == big_value(l) && p.get() == &a(i, j) &&
        lay.place({i, j}) == want &&
        reinterpret_cast<std::uintptr_t>(&a(i, j)) ==
            part0 + static_cast<std::uintptr_t>(want.thread) * pgas::segment_size() + want.offset &&
        p - a.begin_ptr() == static_cast<std::ptrdiff_t>(l) &&
        (a.begin_ptr() + static_cast<std::ptrdiff_t>(l)).phase() == want.phase &&
        a.begin_ptr() + static_cast<std::ptrdiff_t>(l) == p;
    if (!ok) {
      EXPECT(f, false,
             name << ": position " << l << " pointer thread " << p.thread() << " phase "
                  << p.phase() << " addr " << p.addrfield() << "; model says " << want.thread << "/"
                  << want.phase << "/" << want.offset);
      break;
    }
  }
  // Walking from &A[0][0] with ++ reads every element in order (this thread's share of the
  // walk: two blocks from block t).
  if (!lay.tiled() && me < lay.blocks()) {
    const std::size_t from = me * lay.block_elements();
    auto p = a.begin_ptr() + static_cast<std::ptrdiff_t>(from);
    for (std::size_t l = from; l < std::min(size, from + 2 * lay.block_elements()); ++l, ++p) {
      if (*p != big_value(l) || (l % 4093 == 0 && p.phase() != place(l).phase)) {
        EXPECT(f, false, name << ": ++ walk wrong at " << l << " (phase " << p.phase() << ")");
        break;
      }
    }
  }
  // An explicit privatization table, where one applies (rows inside blocks), sees the same
  // elements.
  if (lay.block_elements() % cols == 0) {
    const auto t = pgas::privatize(a);
    for (std::size_t l = me; l < size; l += 4099) {
      if (&t(l / cols, l % cols) != &a(l / cols, l % cols)) {
        EXPECT(f, false, name << ": privatize table disagrees at " << l);
        break;
      }
    }
  }
  pgas::barrier();  // nobody frees the array while another thread still reads it
}

pgas::element_place cyclic_place(std::size_t l, std::size_t b, std::size_t n) {
  const std::size_t k = l / b;
  return {static_cast<int>(k % n), l % b, k / n * b + l % b};
}

}  // namespace

TEST_CASE("shared arrays: blocks beyond config::max_block, one band per thread, [*] and tiles",
          "[shared_array][bigblock]") {
  for (int nt : {1, 2, 3, 4}) {
    INFO(nt << " threads");
    failures f;
    pgas::run(test_job(nt), 0, nullptr, [&] {
      const auto n = static_cast<std::size_t>(nt);
      // One band of rows per thread of a 2048 x 2048 matrix (blocks of 4 Mi / THREADS).
      const std::size_t rows = 2048, cols = 2048, band = (rows * cols + n - 1) / n;
      if (band > pgas::config::max_block) {
        const shared_array<char, 2> bands({rows, cols}, block_spec::cyclic(band));
        check_big(
            bands, [&](std::size_t l) { return cyclic_place(l, band, n); }, f);
        const shared_array<char, 2> star({rows, cols}, block_spec::star());
        check_big(
            star, [&](std::size_t l) { return cyclic_place(l, band, n); }, f);
      }
      // Blocks of 2^20 + 1 elements, several per thread, the last one partial.
      const std::size_t b = pgas::config::max_block + 1;
      const std::size_t total = (2 * n + 1) * b - 5;
      const shared_array<char, 2> odd({total / 7, 7}, block_spec::cyclic(b));
      check_big(
          odd, [&](std::size_t l) { return cyclic_place(l, b, n); }, f);
      // 1-D [*] with more than 2^20 elements per thread, through A[i] and ptr arithmetic.
      const std::size_t per = pgas::config::max_block + 3;
      const shared_array<int> v({per * n}, block_spec::star());
      EXPECT(f, v.layout().block_elements() == per, "[*] block");
      for (std::size_t i = n - 1 - static_cast<std::size_t>(pgas::mythread()); i < per * n; i += n)
        v[i] = static_cast<int>(i);
      pgas::barrier();
      auto p = v.ptr(0);
      for (std::size_t i = 0; i < per * n; ++i, ++p) {
        if (*p != static_cast<int>(i) || p.thread() != static_cast<int>(i / per) ||
            p.phase() != i % per || v[i] != static_cast<int>(i)) {
          EXPECT(f, false, "[*] int: element " << i << " phase " << p.phase());
          break;
        }
      }
      pgas::barrier();
      // Tiles of 1024 x 2048 = 2^21 elements.
      const shared_array<char, 2> tiles({3000, 2048}, block_spec::tiles({1024, 2048}));
      check_big(
          tiles,
          [&](std::size_t l) {
            const std::size_t i = l / 2048, j = l % 2048, k = i / 1024;
            const std::size_t ph = (i % 1024) * 2048 + j;
            return pgas::element_place{static_cast<int>(k % n), ph, k / n * (1024 * 2048) + ph};
          },
          f);
    });
    check_no_failures(f);
  }
}
