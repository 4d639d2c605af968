// kernels/randomaccess.cpp — HPCC RandomAccess as in Serres et al. V.B: 4·N racing XOR updates
// `T[i][j] ^= ran` to a size × size table of N words at indices drawn from the HPCC stream
// (x^k mod x^64 + x^2 + x + 1 over GF(2)), each thread its own stretch of the stream.
// Variants (kernels/harness.hpp): seq and openmp on plain memory; naive, privatized, tables
// and auto on `shared [R*size] uint32_t T[size][size]`, R = ceil(size / THREADS).
// Entry point: main() parses the contract's options and runs the variant; GUP/s in the JSON.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <pgas/pgas.hpp>

#include "harness.hpp"

namespace {

namespace pk = pgas::kernels;

// --- the HPCC stream -----------------------------------------------------------------------
//
// Position k of the stream is x^k modulo P(x) = x^64 + x^2 + x + 1 over GF(2), a polynomial
// held as the bits of a 64-bit word. One step multiplies by x: shift left, and when x^63 was
// set (the signed test HPCC uses) reduce x^64 to x^2 + x + 1 = POLY.
constexpr std::uint64_t poly = 7;

inline std::uint64_t hpcc_next(std::uint64_t ran) {
  return (ran << 1) ^ (static_cast<std::int64_t>(ran) < 0 ? poly : 0);
}

// HPCC's starts(n): x^n mod P by binary exponentiation from the top bit of n. Squaring in
// GF(2)[x] only spreads the bits (a(x)^2 = sum a_j x^(2j): cross terms cancel), so a square is
// the XOR of precomputed x^(2j) mod P over the set bits j. Here n < 4N <= 2^42, below the
// stream's period (about 1.3e18), so n needs no reduction.
std::uint64_t hpcc_starts(std::uint64_t n) {
  if (n == 0) return 1;
  std::uint64_t square_of[64];  // square_of[j] = x^(2j) mod P
  std::uint64_t p = 1;
  for (auto& s : square_of) {
    s = p;
    p = hpcc_next(hpcc_next(p));
  }
  int bit = 63;
  while (((n >> bit) & 1) == 0)
    --bit;
  std::uint64_t ran = 2;  // x: the top bit of n
  while (bit-- > 0) {
    std::uint64_t sq = 0;
    for (int j = 0; j < 64; ++j)
      if (((ran >> j) & 1) != 0) sq ^= square_of[j];
    ran = ((n >> bit) & 1) != 0 ? hpcc_next(sq) : sq;
  }
  return ran;
}

// Thread t of `parts` does updates [first, first + count) of the 4N: an even share, the
// remainder spread over the first threads.
struct stretch {
  std::uint64_t first, count;
};
stretch share_of(std::uint64_t updates, int t, int parts) {
  const std::uint64_t q = updates / parts, r = updates % parts, ut = static_cast<unsigned>(t);
  return {ut * q + std::min<std::uint64_t>(ut, r), q + (ut < r ? 1 : 0)};
}

// --- index computation ---------------------------------------------------------------------
//
// Every variant turns `ran` into (idx = ran mod N, row = idx / size, col = idx % size) the same
// way: masks and shifts when size is a power of two (then so is N), divisions otherwise.
struct cell {
  std::uint64_t idx;
  std::size_t row, col;
};

struct split_pow2 {
  std::uint64_t mask, col_mask;
  unsigned shift;
  cell operator()(std::uint64_t ran) const {
    const std::uint64_t i = ran & mask;
    return {i, static_cast<std::size_t>(i >> shift), static_cast<std::size_t>(i & col_mask)};
  }
};

struct split_any {
  std::uint64_t n, size;
  cell operator()(std::uint64_t ran) const {
    const std::uint64_t i = ran % n;
    return {i, static_cast<std::size_t>(i / size), static_cast<std::size_t>(i % size)};
  }
};

// Runs `updates` of the stream from position `first`: update(cell, value) for each. The only
// dependence between iterations is the stream itself, so the memory accesses overlap. Not
// inlined, so that each variant's loop can be found by name in `objdump -d` and read.
template <class Split, class Update>
[[gnu::noinline]] void run_stream(std::uint64_t first, std::uint64_t updates, Split split,
                                  Update update) {
  std::uint64_t ran = hpcc_starts(first);
  for (std::uint64_t u = 0; u < updates; ++u) {
    ran = hpcc_next(ran);
    update(split(ran), static_cast<std::uint32_t>(ran));
  }
}

// Calls f with the split for a size × size table.
template <class F>
void with_split(std::size_t size, F&& f) {
  const std::uint64_t s = size, n = s * s;
  if ((s & (s - 1)) == 0) {
    const auto shift = static_cast<unsigned>(__builtin_ctzll(s));
    f(split_pow2{n - 1, s - 1, shift});
  } else {
    f(split_any{n, s});
  }
}

// --- verification (HPCC) -------------------------------------------------------------------
//
// One run of the updates on a freshly initialised table (the timed repetitions come after it
// and start from whatever the table holds: the values never change which words are touched).
// Re-applying all 4N updates in order from one stream (XOR is its own inverse) then restores
// every word whose updates all landed, so the words that differ from i*size + j count lost
// updates. One stream also checks hpcc_starts: the threads' stretches must tile it.
//
// HPCC lets racing threads lose up to 1 % of the words. They lose an update when two of them
// read-modify-write one word while both have it in flight, a few hundred words at most
// whatever the table size (measured with 2 threads: up to 270 of size 64's 4096 words, 400 of
// size 256's 65536, 110 of size 512's 262144). So the verification run races only where the
// table has 2^18 words or more per extra thread; on smaller ones the threads run their
// stretches in turn, and nothing may be lost.
bool racing_verification(std::uint64_t n, int threads) {
  return threads > 1 && n >= (std::uint64_t{1} << 18) * static_cast<unsigned>(threads - 1);
}

// `row(i)` is row i as a plain pointer.
template <class Row>
std::uint64_t verify(std::size_t size, Row row) {
  const std::uint64_t n = std::uint64_t{size} * size;
  with_split(size, [&](auto split) {
    run_stream(0, 4 * n, split, [&](cell c, std::uint32_t v) { row(c.row)[c.col] ^= v; });
  });
  std::uint64_t errors = 0;
  for (std::size_t i = 0; i < size; ++i) {
    const std::uint32_t* r = row(i);
    for (std::size_t j = 0; j < size; ++j)
      errors += r[j] != static_cast<std::uint32_t>(i * size + j) ? 1 : 0;
  }
  return errors;
}

int report(const pk::kernel_args& a, int threads, const pk::timing& t, std::uint64_t errors,
           bool raced) {
  const std::uint64_t n = std::uint64_t{a.size} * a.size;
  nlohmann::ordered_json extra;
  extra["updates"] = 4 * n;
  extra["errors"] = errors;
  extra["verification"] = raced ? "racing" : "in turn";
  extra["gups"] = static_cast<double>(4 * n) / t.median / 1e9;
  return pk::print_result(a, threads, t, raced ? errors * 100 <= n : errors == 0, extra);
}

// --- seq and openmp: plain memory ----------------------------------------------------------
//
// The plain table lives in huge pages, as the shared arrays do (pk::plain_allocator): otherwise
// the baselines would pay a TLB miss per update that the PGAS variants do not, and the
// comparison would measure page size instead of address translation.
using plain_table = pk::plain_vector<std::uint32_t>;

// Row i of the initial table: T[i][j] = i*size + j.
void init_row(std::uint32_t* row, std::size_t i, std::size_t size) {
  for (std::size_t j = 0; j < size; ++j)
    row[j] = static_cast<std::uint32_t>(i * size + j);
}

// seq and openmp index the plain table by the linear index, as a C programmer does: the row
// and column that every variant's split also computes are what the 2-D shared table needs, and
// the compiler drops them here (recombining them as row * size + col cost seq 1.5x the plain
// C loop).
int run_seq(const pk::kernel_args& a) {
  const std::size_t size = a.size;
  const std::uint64_t n = std::uint64_t{size} * size;
  plain_table t(n);
  std::uint32_t* const d = t.data();
  const auto updates = [&] {
    with_split(size, [&](auto split) {
      run_stream(0, 4 * n, split, [d](cell c, std::uint32_t v) { d[c.idx] ^= v; });
    });
  };
  for (std::size_t i = 0; i < size; ++i)
    init_row(d + i * size, i, size);
  updates();
  const std::uint64_t errors = verify(size, [&](std::size_t i) { return d + i * size; });
  const pk::timing tm = pk::time_reps(a.reps, updates);
  return report(a, 1, tm, errors, false);
}

int run_openmp(const pk::kernel_args& a) {
  const std::size_t size = a.size;
  const std::uint64_t n = std::uint64_t{size} * size;
  const int nt = pk::openmp_threads();
  plain_table t(n);
  std::uint32_t* const d = t.data();
  const auto run_part = [&](int part, int parts) {
    const stretch s = share_of(4 * n, part, parts);
    with_split(size, [&](auto split) {
      run_stream(s.first, s.count, split, [d](cell c, std::uint32_t v) { d[c.idx] ^= v; });
    });
  };
  const auto updates = [&] {
#pragma omp parallel num_threads(nt)
    run_part(omp_get_thread_num(), omp_get_num_threads());
  };
#pragma omp parallel for num_threads(nt) schedule(static)
  for (std::size_t i = 0; i < size; ++i)
    init_row(d + i * size, i, size);
  const bool race = racing_verification(n, nt);
  if (race) {
    updates();
  } else {
    for (int part = 0; part < nt; ++part)
      run_part(part, nt);
  }
  const std::uint64_t errors = verify(size, [&](std::size_t i) { return d + i * size; });
  const pk::timing tm = pk::time_reps(a.reps, updates);
  return report(a, nt, tm, errors, race);
}

// --- the PGAS variants ---------------------------------------------------------------------
//
// Rows are blocked: thread t owns rows [t*R, (t+1)*R), one block of R*size elements (run-time
// blocks have no size limit a table meets: config::max_runtime_block is 2^38).
using shared_table = pgas::shared_array<std::uint32_t, 2>;

std::size_t rows_per_block(std::size_t size) {
  const auto nt = static_cast<std::size_t>(pgas::threads());
  return (size + nt - 1) / nt;
}

// This thread's stretch of the stream, each update through `update`.
template <class Update>
void run_mine(std::size_t size, Update update) {
  const std::uint64_t n = std::uint64_t{size} * size;
  const stretch s = share_of(4 * n, pgas::mythread(), pgas::threads());
  with_split(size, [&](auto split) { run_stream(s.first, s.count, split, update); });
}

// The variant's updates of this thread's stretch, as one callable.
std::function<void()> pgas_updates(const std::string& variant, const shared_table& T,
                                   const pgas::table<std::uint32_t, 2>& tab) {
  const std::size_t size = T.extent(0);
  const auto me = static_cast<std::size_t>(pgas::mythread());
  std::uint32_t* const mine = T.local_part().data();
  // The generic translation of T[i][j] (what a UPC compiler emits): pointer-to-shared
  // arithmetic from &T[0][0] by the linear index, then a dereference.
  const auto base = T.begin_ptr();
  const auto shared = [base](std::uint64_t idx) -> std::uint32_t& {
    return *(base + static_cast<std::ptrdiff_t>(idx));
  };
  if (variant == "naive") {
    return [shared, size] {
      run_mine(size, [shared](cell c, std::uint32_t v) { shared(c.idx) ^= v; });
    };
  }
  if (variant == "privatized") {
    // One block per thread: the element is mine when its linear index falls in my block.
    const std::uint64_t block = T.blocksizeof(), first = me * block;
    return [shared, size, mine, block, first] {
      run_mine(size, [shared, mine, block, first](cell c, std::uint32_t v) {
        if (c.idx - first < block) {
          mine[c.idx - first] ^= v;
        } else {
          shared(c.idx) ^= v;
        }
      });
    };
  }
  if (variant == "tables") {
    // The paper's pc[i][j]: the row pointers, taken once.
    return [rows = tab.rows(), size] {
      run_mine(size, [rows](cell c, std::uint32_t v) { rows[c.row][c.col] ^= v; });
    };
  }
  return [&T, size] {  // auto
    run_mine(size, [&T](cell c, std::uint32_t v) { T(c.row, c.col) ^= v; });
  };
}

int pgas_body(const pk::kernel_args& a) {
  const std::size_t size = a.size;
  const std::uint64_t n = std::uint64_t{size} * size;
  const int me = pgas::mythread(), nt = pgas::threads();
  shared_table T({size, size}, pgas::block_spec::cyclic(rows_per_block(size) * size));
  pgas::table<std::uint32_t, 2> tab;
  if (a.variant == "tables") tab = pgas::privatize(T);
  const std::function<void()> updates = pgas_updates(a.variant, T, tab);

  // Row pointers from the layout's own placement (&T[i][0]), not from the variants' paths.
  std::vector<std::uint32_t*> rows(size);
  for (std::size_t i = 0; i < size; ++i) {
    const auto p = T.ptr(i, 0);
    rows[i] = p.get();
    if (p.thread() == me) init_row(rows[i], i, size);
  }
  pgas::barrier();
  const bool race = racing_verification(n, nt);
  if (race) {
    updates();
  } else {
    for (int t = 0; t < nt; ++t) {
      if (t == me) updates();
      pgas::barrier();
    }
  }
  pgas::barrier();
  std::uint64_t errors = 0;
  if (me == 0) errors = verify(size, [&](std::size_t i) { return rows[i]; });
  pgas::barrier();
  const pk::timing tm = pk::time_reps(a.reps, updates, [] { pgas::barrier(); });
  return me == 0 ? report(a, nt, tm, errors, race) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const pk::kernel_args a =
      pk::parse_kernel_args(argc, argv, "randomaccess",
                            "HPCC RandomAccess: 4N racing XOR updates to a size x size table "
                            "of 32-bit words (Serres et al. V.B)",
                            1024, 1);
  if (a.variant == "seq") return run_seq(a);
  if (a.variant == "openmp") return run_openmp(a);
  return pgas::run(argc, argv, [&] { return pgas_body(a); });
}
