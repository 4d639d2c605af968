// Tests pgas/upc_collectives.hpp — UPC's collectives library — against a reference model: every
// relocalisation collective with 1 to 5 threads, every root, several src/dst address fields,
// pointers of block size 1, 3 and indefinite with nonzero phases (ignored where UPC says so),
// every in/out sync-flag combination (the mysync ones without any barrier around the call, so
// that the sanitizer builds check the ordering they promise), bytes outside the destination
// left alone; every reduction type x operation, with blocks 1, 3 and indefinite at every start
// phase, noncomm_func's left-to-right order, prefix reductions; and calls outside a job.

#include <pgas/pgas.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "../job_failures.hpp"
#include "../test_job.hpp"

namespace {

using pgas::coll_flags;
using pgas::reduce_op;
using pgas::sptr;

constexpr coll_flags in_flags[] = {pgas::in_nosync, pgas::in_mysync, pgas::in_allsync};
constexpr coll_flags out_flags[] = {pgas::out_nosync, pgas::out_mysync, pgas::out_allsync};

// Byte `o` of thread t's source part in round `round`.
unsigned char pattern(int t, std::size_t o, int round) {
  return static_cast<unsigned char>(t * 37 + static_cast<int>(o) * 7 + round * 11 + 1);
}
constexpr unsigned char canary = 0xEE;

// A pointer to byte `off` of thread t's part of `a`, as a pointer of block size 1 (phase 0),
// 3 (phase 2: ignored by the collectives for pointers "on every thread") or indefinite.
sptr<void> place(const pgas::shared_alloc& a, int t, std::size_t off, int form) {
  switch (form) {
    case 0:
      return sptr<char>::from_parts(t, a.offset() + off);
    case 1:
      return sptr<char, 3>::from_parts(t, a.offset() + off, 2);
    default:
      return sptr<char, pgas::indefinite>::from_parts(t, a.offset() + off);
  }
}

enum class coll { broadcast, scatter, gather, gather_all, exchange, permute };
const char* coll_name(coll c) {
  constexpr const char* names[] = {"broadcast",  "scatter",  "gather",
                                   "gather_all", "exchange", "permute"};
  return names[static_cast<int>(c)];
}

// The model: thread t's expected destination part (part bytes from dst's offset, canary where
// the call writes nothing), given every thread's source part.
std::vector<unsigned char> expected_part(coll c, int n, int t, int root, std::size_t nbytes,
                                         std::size_t src_off, std::size_t part,
                                         const std::vector<std::vector<unsigned char>>& src,
                                         const std::vector<int>& perm) {
  std::vector<unsigned char> out(part, canary);
  const auto un = static_cast<std::size_t>(n);
  const auto ut = static_cast<std::size_t>(t);
  auto copy = [&](std::size_t to, int from_thread, std::size_t from, std::size_t len) {
    for (std::size_t i = 0; i < len; ++i)
      out[to + i] = src[static_cast<std::size_t>(from_thread)][src_off + from + i];
  };
  switch (c) {
    case coll::broadcast:
      copy(0, root, 0, nbytes);
      break;
    case coll::scatter:
      copy(0, root, ut * nbytes, nbytes);
      break;
    case coll::gather:
      if (t == root)
        for (int i = 0; i < n; ++i)
          copy(static_cast<std::size_t>(i) * nbytes, i, 0, nbytes);
      break;
    case coll::gather_all:
      for (int i = 0; i < n; ++i)
        copy(static_cast<std::size_t>(i) * nbytes, i, 0, nbytes);
      break;
    case coll::exchange:
      for (int i = 0; i < n; ++i)
        copy(static_cast<std::size_t>(i) * nbytes, i, ut * nbytes, nbytes);
      break;
    case coll::permute:
      for (int i = 0; i < n; ++i)
        if (perm[static_cast<std::size_t>(i)] == t) copy(0, i, 0, nbytes);
      break;
  }
  (void)un;
  return out;
}

void call(coll c, sptr<void> dst, sptr<const void> src, sptr<const int> perm, std::size_t nbytes,
          coll_flags flags) {
  switch (c) {
    case coll::broadcast:
      pgas::all_broadcast(dst, src, nbytes, flags);
      break;
    case coll::scatter:
      pgas::all_scatter(dst, src, nbytes, flags);
      break;
    case coll::gather:
      pgas::all_gather(dst, src, nbytes, flags);
      break;
    case coll::gather_all:
      pgas::all_gather_all(dst, src, nbytes, flags);
      break;
    case coll::exchange:
      pgas::all_exchange(dst, src, nbytes, flags);
      break;
    case coll::permute:
      pgas::all_permute(dst, src, perm, nbytes, flags);
      break;
  }
}

// Whether thread `t` may read its own dst part right after the call returns: its dst is written
// by itself (broadcast, scatter, gather_all, exchange, permute) or, for gather's root, by every
// thread, which out_mysync and out_allsync wait for.
bool own_dst_ready(coll c, coll_flags flags, int t, int root) {
  if (c != coll::gather || t != root) return true;
  return (flags & pgas::out_nosync) == 0;
}

}  // namespace

TEST_CASE("relocalisation collectives match the model for every flag, root and pointer form",
          "[upc_collectives]") {
  for (int n = 1; n <= 5; ++n) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      constexpr std::size_t max_nbytes = 5;
      const std::size_t part = 3 + max_nbytes * static_cast<std::size_t>(n) + 3;
      const pgas::shared_alloc src_a = pgas::all_alloc(static_cast<std::size_t>(n), part);
      const pgas::shared_alloc dst_a = pgas::all_alloc(static_cast<std::size_t>(n), part + 4);
      const pgas::shared_alloc perm_a = pgas::all_alloc(static_cast<std::size_t>(n), sizeof(int));
      // shared int perm[THREADS]: element i on thread i.
      const sptr<int> perm = sptr<int>::from_parts(0, perm_a.offset());
      int round = 0;
      std::vector<std::vector<unsigned char>> src(static_cast<std::size_t>(n),
                                                  std::vector<unsigned char>(part));
      for (coll c : {coll::broadcast, coll::scatter, coll::gather, coll::gather_all, coll::exchange,
                     coll::permute}) {
        for (coll_flags in : in_flags) {
          for (coll_flags out : out_flags) {
            for (std::size_t nbytes : {std::size_t{1}, std::size_t{3}, max_nbytes}) {
              ++round;
              const int root = round % n;
              const std::size_t src_off = static_cast<std::size_t>(round % 3);
              const std::size_t dst_off = static_cast<std::size_t>((round / 3) % 4);
              const int form = round % 3;
              std::vector<int> p(static_cast<std::size_t>(n));
              std::iota(p.begin(), p.end(), 0);
              std::rotate(p.begin(), p.begin() + (round % n), p.end());
              if (n > 2 && round % 2 == 0) std::swap(p[0], p[1]);
              for (int t = 0; t < n; ++t)
                for (std::size_t o = 0; o < part; ++o)
                  src[static_cast<std::size_t>(t)][o] = pattern(t, o, round);
              // Each thread prepares its own parts. Without a barrier when the call's in-sync
              // orders these writes before the reads (mysync, allsync).
              std::memcpy(src_a.part(me), src[static_cast<std::size_t>(me)].data(), part);
              std::memset(dst_a.part(me), canary, part + 4);
              perm[me] = p[static_cast<std::size_t>(me)];
              if (in == pgas::in_nosync) pgas::barrier();
              const bool one_src = c == coll::broadcast || c == coll::scatter;
              const bool one_dst = c == coll::gather;
              const sptr<const void> s =
                  one_src ? place(src_a, root, src_off, form) : place(src_a, 0, src_off, form);
              const sptr<void> d =
                  one_dst ? place(dst_a, root, dst_off, form) : place(dst_a, 0, dst_off, form);
              call(c, d, s, perm, nbytes, in | out);
              const bool ready = out != pgas::out_nosync && own_dst_ready(c, in | out, me, root);
              if (!ready) pgas::barrier();
              const auto want = expected_part(c, n, one_dst ? (me == root ? root : -1) : me, root,
                                              nbytes, src_off, part + 4 - dst_off, src, p);
              const auto* got = static_cast<const unsigned char*>(dst_a.part(me));
              bool same = true;
              for (std::size_t i = 0; i < dst_off; ++i)
                same = same && got[i] == canary;
              for (std::size_t i = 0; i < want.size(); ++i)
                same = same && got[dst_off + i] == want[i];
              EXPECT(f, same,
                     coll_name(c) << " in=" << in << " out=" << out << " nbytes=" << nbytes
                                  << " root=" << root << " form=" << form);
              // Nobody may still read this round's parts when the next round rewrites them.
              pgas::barrier();
            }
          }
        }
      }
      pgas::all_free(perm_a);
      pgas::all_free(dst_a);
      pgas::all_free(src_a);
    });
    check_no_failures(f);
  }
}

// ---- reductions ----------------------------------------------------------------------------

namespace {

template <class T>
T add_fn(T a, T b) {
  return static_cast<T>(static_cast<long double>(a) + static_cast<long double>(b));
}
// Not commutative: a left-to-right fold gives ((x0 * 3 + x1) * 3 + x2) ..., any other order
// something else. Wraps (through unsigned long long) for integers.
template <class T>
T order_fn(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<unsigned long long>(a) * 3ull +
                          static_cast<unsigned long long>(b));
  } else {
    return a * 3 + b;
  }
}

template <class T>
T value(reduce_op op, std::size_t i) {
  const bool neg = std::is_signed_v<T> && i % 5 == 4;
  switch (op) {
    case reduce_op::mult:
      return static_cast<T>(i % 4 == 1 ? 2 : (neg ? -1 : 1));
    case reduce_op::log_and:
    case reduce_op::log_or:
      return static_cast<T>(i % 4 == 3 ? 0 : 1 + i % 3);
    case reduce_op::noncomm_func:
      return static_cast<T>(i % 3);
    default:
      return static_cast<T>(neg ? -static_cast<int>(i % 7) : static_cast<int>((i * 5 + 3) % 7));
  }
}

// The model: a left fold written independently of the library.
template <class T>
T model_op(reduce_op op, T a, T b) {
  switch (op) {
    case reduce_op::add:
    case reduce_op::func:
      return add_fn<T>(a, b);
    case reduce_op::mult:
      if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(static_cast<long long>(a) * static_cast<long long>(b));
      } else {
        return a * b;
      }
    case reduce_op::log_and:
      return (a != 0 && b != 0) ? T{1} : T{0};
    case reduce_op::log_or:
      return (a != 0 || b != 0) ? T{1} : T{0};
    case reduce_op::min:
      return std::min(a, b);
    case reduce_op::max:
      return std::max(a, b);
    case reduce_op::noncomm_func:
      return order_fn<T>(a, b);
    default:
      break;
  }
  // Bitwise: integer types only (the sweep never asks for them on floating types).
  if constexpr (std::is_integral_v<T>) {
    const auto x = static_cast<unsigned long long>(a);
    const auto y = static_cast<unsigned long long>(b);
    return static_cast<T>(op == reduce_op::bit_and  ? (x & y)
                          : op == reduce_op::bit_or ? (x | y)
                                                    : (x ^ y));
  } else {
    return a;
  }
}

// `shared [blk] T` pointer to element `first` of an array whose element 0 is on thread 0 at
// the allocation's offset (blk 0: indefinite, everything on thread `home`).
template <class T>
sptr<T, pgas::dynamic_block> element(const pgas::shared_alloc& a, std::size_t blk,
                                     std::size_t first, int home) {
  if (blk == 0) {
    return sptr<T, pgas::dynamic_block>::from_parts(home, a.offset() + first * sizeof(T), 0, 0);
  }
  return sptr<T, pgas::dynamic_block>::from_parts(0, a.offset(), 0, blk) +
         static_cast<std::ptrdiff_t>(first);
}

template <class T>
void reduce_type_sweep(failures& f, int n, const char* type) {
  const int me = pgas::mythread();
  constexpr std::size_t max_elems = 17;
  const auto un = static_cast<std::size_t>(n);
  // Room for max_elems elements after any start at blk 1 and 3 (courses of 3 * THREADS).
  const std::size_t per_thread = 3 * (max_elems / un + 3);
  const pgas::shared_alloc src_a = pgas::all_alloc(un, (per_thread + 3 * max_elems) * sizeof(T));
  const pgas::shared_alloc dst_a = pgas::all_alloc(un, (per_thread + 3 * max_elems) * sizeof(T));
  const pgas::shared_alloc res_a = pgas::all_alloc(un, sizeof(T));
  std::vector<reduce_op> ops = {reduce_op::add,    reduce_op::mult,        reduce_op::log_and,
                                reduce_op::log_or, reduce_op::min,         reduce_op::max,
                                reduce_op::func,   reduce_op::noncomm_func};
  if constexpr (std::is_integral_v<T>) {
    ops.insert(ops.end(), {reduce_op::bit_and, reduce_op::bit_or, reduce_op::bit_xor});
  }
  int round = 0;
  for (reduce_op op : ops) {
    for (std::size_t blk : {std::size_t{1}, std::size_t{3}, std::size_t{0}}) {
      for (std::size_t phase = 0; phase < std::max<std::size_t>(blk, 1); ++phase) {
        ++round;
        const std::size_t nelems = 1 + static_cast<std::size_t>(round * 5) % max_elems;
        const int home = round % n;
        // Start at element `first` of the array: phase `phase` in a block on thread first/blk.
        const std::size_t first = blk == 0 ? static_cast<std::size_t>(round % 3)
                                           : blk * static_cast<std::size_t>(round % n) + phase;
        const auto s = element<T>(src_a, blk, first, home);
        // prefix dst: same blocking, another start (its own thread and phase).
        const std::size_t dfirst =
            blk == 0 ? 1 : blk * static_cast<std::size_t>((round + 1) % n) + (phase + 1) % blk;
        const auto d = element<T>(dst_a, blk, dfirst, (home + 1) % n);
        const sptr<T, pgas::indefinite> res =
            sptr<T, pgas::indefinite>::from_parts((round + 2) % n, res_a.offset());
        // Thread owners write their elements (no barrier: in_mysync orders them).
        std::vector<T> v(nelems);
        for (std::size_t i = 0; i < nelems; ++i) {
          v[i] = value<T>(op, i + static_cast<std::size_t>(round));
          if ((s + static_cast<std::ptrdiff_t>(i)).thread() == me)
            s[static_cast<std::ptrdiff_t>(i)] = v[i];
        }
        T (*fn)(T, T) = op == reduce_op::noncomm_func ? order_fn<T> : add_fn<T>;
        const coll_flags flags = pgas::in_mysync | pgas::out_mysync;
        pgas::all_reduce<T>(res, s, op, nelems, blk, fn, flags);
        std::vector<T> prefix(nelems);
        prefix[0] = v[0];
        for (std::size_t i = 1; i < nelems; ++i)
          prefix[i] = model_op<T>(op, prefix[i - 1], v[i]);
        if (res.thread() == me) {
          EXPECT(f, *res == prefix[nelems - 1],
                 "all_reduce<" << type << "> " << pgas::to_string(op) << " blk=" << blk
                               << " phase=" << phase << " nelems=" << nelems << ": got "
                               << static_cast<long double>(*res) << ", want "
                               << static_cast<long double>(prefix[nelems - 1]));
        }
        pgas::all_prefix_reduce<T>(d, s, op, nelems, blk, fn, flags);
        for (std::size_t i = 0; i < nelems; ++i) {
          const auto di = d + static_cast<std::ptrdiff_t>(i);
          if (di.thread() != me) continue;
          EXPECT(f, *di == prefix[i],
                 "all_prefix_reduce<" << type << "> " << pgas::to_string(op) << " blk=" << blk
                                      << " phase=" << phase << " element " << i << ": got "
                                      << static_cast<long double>(*di) << ", want "
                                      << static_cast<long double>(prefix[i]));
        }
      }
    }
  }
  pgas::all_free(res_a);
  pgas::all_free(dst_a);
  pgas::all_free(src_a);
}

}  // namespace

TEST_CASE("reductions of every type and operation match a left fold", "[upc_collectives]") {
  for (int n = 1; n <= 5; ++n) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      reduce_type_sweep<char>(f, n, "char");
      reduce_type_sweep<signed char>(f, n, "signed char");
      reduce_type_sweep<unsigned char>(f, n, "unsigned char");
      reduce_type_sweep<short>(f, n, "short");
      reduce_type_sweep<unsigned short>(f, n, "unsigned short");
      reduce_type_sweep<int>(f, n, "int");
      reduce_type_sweep<unsigned>(f, n, "unsigned");
      reduce_type_sweep<long>(f, n, "long");
      reduce_type_sweep<unsigned long>(f, n, "unsigned long");
      reduce_type_sweep<float>(f, n, "float");
      reduce_type_sweep<double>(f, n, "double");
      reduce_type_sweep<long double>(f, n, "long double");
    });
    check_no_failures(f);
  }
}

TEST_CASE("reductions honour every sync-flag combination", "[upc_collectives]") {
  for (int n : {2, 5}) {
    INFO(n << " threads");
    failures f;
    pgas::run(test_job(n), 0, nullptr, [&] {
      const int me = pgas::mythread();
      const auto un = static_cast<std::size_t>(n);
      const std::size_t nelems = 4 * un + 1;
      const pgas::shared_alloc src_a = pgas::all_alloc(un, 3 * 6 * sizeof(long));
      const pgas::shared_alloc dst_a = pgas::all_alloc(un, 3 * 6 * sizeof(long));
      const pgas::shared_alloc res_a = pgas::all_alloc(1, sizeof(long));
      const auto s = element<long>(src_a, 3, 1, 0);
      const auto d = element<long>(dst_a, 3, 2, 0);
      const auto res = sptr<long, pgas::indefinite>::from_parts(0, res_a.offset());
      int round = 0;
      for (coll_flags in : in_flags) {
        for (coll_flags out : out_flags) {
          ++round;
          for (std::size_t i = 0; i < nelems; ++i)
            if ((s + static_cast<std::ptrdiff_t>(i)).thread() == me)
              s[static_cast<std::ptrdiff_t>(i)] = static_cast<long>(i) * round;
          if (in == pgas::in_nosync) pgas::barrier();
          pgas::all_reduce<long>(res, s, reduce_op::add, nelems, 3, nullptr, in | out);
          pgas::all_prefix_reduce<long>(d, s, reduce_op::add, nelems, 3, nullptr, in | out);
          // Only the computing thread (res's and d's: thread 0) has its results at once with
          // out_nosync; out_mysync covers the owners of dst elements.
          if (out == pgas::out_nosync) pgas::barrier();
          const long n_1 = static_cast<long>(nelems) - 1;
          if (me == 0) {
            EXPECT(f, *res == round * n_1 * (n_1 + 1) / 2, "in=" << in << " out=" << out);
          }
          for (std::size_t i = 0; i < nelems; ++i) {
            const auto di = d + static_cast<std::ptrdiff_t>(i);
            const long k = static_cast<long>(i);
            if (di.thread() == me) {
              EXPECT(f, *di == round * k * (k + 1) / 2,
                     "in=" << in << " out=" << out << " i=" << i);
            }
          }
          pgas::barrier();
        }
      }
      pgas::all_free(res_a);
      pgas::all_free(dst_a);
      pgas::all_free(src_a);
    });
    check_no_failures(f);
  }
}

TEST_CASE("UPC collectives outside a job throw usage_error", "[upc_collectives]") {
  CHECK_THROWS_AS(pgas::all_broadcast(nullptr, nullptr, 1), pgas::usage_error);
  CHECK_THROWS_AS(pgas::all_exchange(nullptr, nullptr, 1), pgas::usage_error);
  CHECK_THROWS_AS(pgas::all_reduce<int>(nullptr, nullptr, reduce_op::add, 1, 1, nullptr),
                  pgas::usage_error);
  CHECK(std::string(pgas::to_string(reduce_op::noncomm_func)) == "noncomm_func");
}
