// src/objects/upc_collectives.cpp — UPC's collectives library (pgas/upc_collectives.hpp):
// argument checks, the sync flags around each call (src/job/collective_epochs.hpp: per-thread
// entry/exit epochs for MYSYNC, a checked barrier for ALLSYNC) and the data movement. All
// segments are one address space, so each thread copies its own part with memcpy straight
// between segments; all_reduce folds per-thread partial results, noncomm_func and prefix
// reductions run left to right on the thread with affinity to dst.

#include <pgas/upc_collectives.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <pgas/config.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/detail/upc_call.hpp>
#include <pgas/error.hpp>

#include "src/job/collective_epochs.hpp"

namespace pgas {

const char* to_string(reduce_op op) noexcept {
  switch (op) {
    case reduce_op::add:
      return "add";
    case reduce_op::mult:
      return "mult";
    case reduce_op::bit_and:
      return "bit_and";
    case reduce_op::bit_or:
      return "bit_or";
    case reduce_op::bit_xor:
      return "bit_xor";
    case reduce_op::log_and:
      return "log_and";
    case reduce_op::log_or:
      return "log_or";
    case reduce_op::min:
      return "min";
    case reduce_op::max:
      return "max";
    case reduce_op::func:
      return "func";
    case reduce_op::noncomm_func:
      return "noncomm_func";
  }
  return "?";
}

namespace {

using detail::epoch_call;
using detail::geometry;
using detail::misuse;

enum class sync_level { no, my, all };
struct sync_mode {
  sync_level in = sync_level::all;
  sync_level out = sync_level::all;
};

constexpr coll_flags in_mask = in_nosync | in_mysync | in_allsync;
constexpr coll_flags out_mask = out_nosync | out_mysync | out_allsync;

sync_mode parse_flags(coll_flags f, const char* name, const std::source_location& where) {
  if ((f & ~(in_mask | out_mask)) != 0) {
    misuse(fmt::format("{}: flags {:#x} has bits that are no in_*/out_* sync flag", name, f),
           where);
  }
  if (std::popcount(f & in_mask) > 1 || std::popcount(f & out_mask) > 1) {
    misuse(fmt::format("{}: flags {:#x} has more than one in_* or out_* sync flag", name, f),
           where);
  }
  sync_mode m;
  if ((f & in_nosync) != 0) m.in = sync_level::no;
  if ((f & in_mysync) != 0) m.in = sync_level::my;
  if ((f & out_nosync) != 0) m.out = sync_level::no;
  if ((f & out_mysync) != 0) m.out = sync_level::my;
  return m;
}

const char* level_name(sync_level l) {
  return l == sync_level::no ? "nosync" : l == sync_level::my ? "mysync" : "allsync";
}

std::string mode_text(sync_mode m) {
  return fmt::format("in_{}|out_{}", level_name(m.in), level_name(m.out));
}

char* at(int thread, std::size_t addrfield) {
  return geometry.base + (static_cast<std::uint64_t>(thread) << geometry.shift) + addrfield;
}

// Bytes [addr, addr + len) of one thread (thread >= 0) or of every thread (thread == -1).
struct region {
  int thread;
  std::size_t addr;
  std::size_t len;
};

// An operand's place in a call's agreement text: every argument of a UPC collective is
// single-valued (UPC 1.3 §7.4), addresses too. "2:0x1040" on one thread, "0x1040" on every.
std::string place_text(const region& r) {
  return r.thread >= 0 ? fmt::format("{}:{:#x}", r.thread, r.addr) : fmt::format("{:#x}", r.addr);
}

bool overlap(const region& a, const region& b) {
  const bool same_thread = a.thread < 0 || b.thread < 0 || a.thread == b.thread;
  return same_thread && a.len != 0 && b.len != 0 && a.addr < b.addr + b.len &&
         b.addr < a.addr + a.len;
}

void check_null(sptr<const void> p, const char* role, const char* name,
                const std::source_location& where) {
  if (!p) misuse(fmt::format("{}: {} is the null pointer-to-shared", name, role), where);
}

// The range must stay in its thread's segment and inside one live shared allocation. A range on
// every thread is checked on thread 0 (collective allocations sit at one offset in every
// segment); checked builds check every thread's.
void check_region(const region& r, const char* role, const char* name,
                  const std::source_location& where) {
  if (r.len > geometry.segment - r.addr) {
    misuse(fmt::format("{}: {} ({} bytes at address field {:#x}) runs past the end of a thread's "
                       "shared segment",
                       name, role, r.len, r.addr),
           where);
  }
  const std::string what = fmt::format("{} {}", name, role);
  for (int t = 0; t < threads(); ++t) {
    if (r.thread >= 0 ? t != r.thread : t != 0 && !config::bounds_check) continue;
    detail::check_shared_range((static_cast<std::uint64_t>(t) << geometry.shift) + r.addr, r.len,
                               what, &where);
  }
}

// A pointer that names the same address field on every thread (UPC's `shared [b] char[b*N]`
// seen from thread 0): it must have affinity to thread 0; its phase is ignored.
region on_every_thread(sptr<const void> p, std::size_t len, const char* role, const char* name,
                       const std::source_location& where) {
  check_null(p, role, name, where);
  if (p.thread() != 0) {
    misuse(fmt::format("{}: {} must have affinity to thread 0 (it has affinity to thread {})", name,
                       role, p.thread()),
           where);
  }
  region r{-1, p.addrfield(), len};
  check_region(r, role, name, where);
  return r;
}

region on_one_thread(sptr<const void> p, std::size_t len, const char* role, const char* name,
                     const std::source_location& where) {
  check_null(p, role, name, where);
  region r{p.thread(), p.addrfield(), len};
  check_region(r, role, name, where);
  return r;
}

void check_disjoint(const region& dst, const region& src, const char* name,
                    const std::source_location& where) {
  if (overlap(dst, src)) {
    misuse(fmt::format("{}: src and dst overlap (UPC declares them restrict)", name), where);
  }
}

// Every call starts here: there is no shared space outside a job.
void check_job(const char* name, const std::source_location& where) {
  if (geometry.threads == 0) misuse(fmt::format("{} called outside pgas::run()", name), where);
}

// nbytes > 0, and nbytes * THREADS * THREADS (the largest extent of any call) must not wrap.
void check_nbytes(std::size_t nbytes, const char* name, const std::source_location& where) {
  if (nbytes == 0) misuse(fmt::format("{}: nbytes must be greater than 0", name), where);
  const auto n = static_cast<std::size_t>(threads());
  if (nbytes > std::numeric_limits<std::size_t>::max() / n / n) {
    misuse(fmt::format("{}: nbytes={} times THREADS overflows", name, nbytes), where);
  }
}

template <class Touches>
void sync_in(const epoch_call& c, sync_level l, std::string_view text, Touches touches) {
  if (l == sync_level::all) {
    detail::epoch_barrier(c, text);
  } else if (l == sync_level::my) {
    for (int t = 0; t < threads(); ++t)
      if (touches(t)) detail::epoch_wait_entered(c, t);
  }
}

template <class TouchedBy>
void sync_out(const epoch_call& c, sync_level l, std::string_view text, TouchedBy touched_by) {
  detail::epoch_finish(c);
  if (l == sync_level::all) {
    detail::epoch_barrier(c, text);
  } else if (l == sync_level::my) {
    for (int t = 0; t < threads(); ++t)
      if (touched_by(t)) detail::epoch_wait_done(c, t);
  }
}

// One call of a relocalisation collective: checks its flags, enters it, syncs in, runs `move`
// (this thread's part), syncs out. `touches(t)`: this thread reads or writes thread t's data;
// `touched_by(t)`: thread t reads or writes this thread's data.
template <class Touches, class TouchedBy, class Move>
void relocalise(const char* name, const std::string& text, sync_mode m,
                const std::source_location& where, Touches touches, TouchedBy touched_by,
                Move move) {
  const epoch_call c = detail::epoch_enter(name, text, where);
  sync_in(c, m.in, text, touches);
  move(c.me);
  sync_out(c, m.out, text, touched_by);
}

}  // namespace

namespace {

// The checked operands of a relocalisation call: src and dst regions of `src_blocks` and
// `dst_blocks` times nbytes, each on one thread (its pointer's) or on every thread (from
// thread 0).
struct operands {
  sync_mode m;
  region s;
  region d;
};

operands check_operands(const char* name, sptr<void> dst, sptr<const void> src, std::size_t nbytes,
                        coll_flags flags, bool src_on_one, std::size_t src_blocks, bool dst_on_one,
                        std::size_t dst_blocks, const std::source_location& where) {
  check_job(name, where);
  const sync_mode m = parse_flags(flags, name, where);
  check_nbytes(nbytes, name, where);
  const region s = src_on_one ? on_one_thread(src, nbytes * src_blocks, "src", name, where)
                              : on_every_thread(src, nbytes * src_blocks, "src", name, where);
  const region d = dst_on_one ? on_one_thread(dst, nbytes * dst_blocks, "dst", name, where)
                              : on_every_thread(dst, nbytes * dst_blocks, "dst", name, where);
  check_disjoint(d, s, name, where);
  return {m, s, d};
}

// broadcast, scatter (the root holds src) and gather (the root holds dst): each thread touches
// its own data and the root's; the root's data is touched by every thread.
template <class Move>
void rooted(const char* name, const operands& o, std::size_t nbytes,
            const std::source_location& where, Move move) {
  const int root = o.s.thread >= 0 ? o.s.thread : o.d.thread;
  const int me = mythread();
  relocalise(
      name,
      fmt::format("nbytes={}, flags={}, root={}, src={}, dst={}", nbytes, mode_text(o.m), root,
                  place_text(o.s), place_text(o.d)),
      o.m, where, [&](int t) { return t == root || t == me; },
      [&](int t) { return me == root || t == me; }, [&](int self) { move(self, root); });
}

// gather_all and exchange: each thread fills its own dst from every thread's src block
// `src_block(self)`, starting at the next thread to spread the readers over the sources.
template <class SrcBlock>
void all_to_all(const char* name, const operands& o, std::size_t nbytes,
                const std::source_location& where, SrcBlock src_block) {
  const int n = threads();
  const auto all = [](int) { return true; };
  relocalise(name,
             fmt::format("nbytes={}, flags={}, src={}, dst={}", nbytes, mode_text(o.m),
                         place_text(o.s), place_text(o.d)),
             o.m, where, all, all, [&](int self) {
               for (int i = 1; i <= n; ++i) {
                 const int t = (self + i) % n;
                 std::memcpy(at(self, o.d.addr + static_cast<std::size_t>(t) * nbytes),
                             at(t, o.s.addr + src_block(self) * nbytes), nbytes);
               }
             });
}

std::size_t nthreads() {
  return static_cast<std::size_t>(threads());
}

}  // namespace

void all_broadcast(sptr<void> dst, sptr<const void> src, std::size_t nbytes, coll_flags flags,
                   std::source_location where) {
  const char* name = detail::shown_name("pgas::all_broadcast");
  const operands o = check_operands(name, dst, src, nbytes, flags, true, 1, false, 1, where);
  rooted(name, o, nbytes, where,
         [&](int self, int root) { std::memcpy(at(self, o.d.addr), at(root, o.s.addr), nbytes); });
}

void all_scatter(sptr<void> dst, sptr<const void> src, std::size_t nbytes, coll_flags flags,
                 std::source_location where) {
  const char* name = detail::shown_name("pgas::all_scatter");
  const operands o =
      check_operands(name, dst, src, nbytes, flags, true, nthreads(), false, 1, where);
  rooted(name, o, nbytes, where, [&](int self, int root) {
    std::memcpy(at(self, o.d.addr), at(root, o.s.addr + static_cast<std::size_t>(self) * nbytes),
                nbytes);
  });
}

void all_gather(sptr<void> dst, sptr<const void> src, std::size_t nbytes, coll_flags flags,
                std::source_location where) {
  const char* name = detail::shown_name("pgas::all_gather");
  const operands o =
      check_operands(name, dst, src, nbytes, flags, false, 1, true, nthreads(), where);
  rooted(name, o, nbytes, where, [&](int self, int root) {
    std::memcpy(at(root, o.d.addr + static_cast<std::size_t>(self) * nbytes), at(self, o.s.addr),
                nbytes);
  });
}

void all_gather_all(sptr<void> dst, sptr<const void> src, std::size_t nbytes, coll_flags flags,
                    std::source_location where) {
  const char* name = detail::shown_name("pgas::all_gather_all");
  const operands o =
      check_operands(name, dst, src, nbytes, flags, false, 1, false, nthreads(), where);
  all_to_all(name, o, nbytes, where, [](int) { return std::size_t{0}; });
}

void all_exchange(sptr<void> dst, sptr<const void> src, std::size_t nbytes, coll_flags flags,
                  std::source_location where) {
  const char* name = detail::shown_name("pgas::all_exchange");
  const operands o =
      check_operands(name, dst, src, nbytes, flags, false, nthreads(), false, nthreads(), where);
  all_to_all(name, o, nbytes, where, [](int self) { return static_cast<std::size_t>(self); });
}

void all_permute(sptr<void> dst, sptr<const void> src, sptr<const int> perm, std::size_t nbytes,
                 coll_flags flags, std::source_location where) {
  const char* name = detail::shown_name("pgas::all_permute");
  const auto [m, s, d] = check_operands(name, dst, src, nbytes, flags, false, 1, false, 1, where);
  const int n = threads();
  check_null(perm, "perm", name, where);
  std::vector<char> holds_perm(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const sptr<const int> p = perm + i;
    check_region(region{p.thread(), p.addrfield(), sizeof(int)}, "perm", name, where);
    holds_perm[static_cast<std::size_t>(p.thread())] = 1;
  }
  const int me = mythread();
  const std::string text =
      fmt::format("nbytes={}, flags={}, src={}, dst={}, perm={}:{:#x}", nbytes, mode_text(m),
                  place_text(s), place_text(d), perm.thread(), perm.addrfield());
  const epoch_call c = detail::epoch_enter(name, text, where);
  sync_in(c, m.in, text, [&](int t) { return t == me || holds_perm[static_cast<std::size_t>(t)]; });
  // Pull: find the thread whose block comes here, checking perm on the way.
  std::vector<int> from(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    const int v = *(perm + i).get();
    if (v < 0 || v >= n || from[static_cast<std::size_t>(v)] >= 0) {
      misuse(fmt::format(
                 "{}: perm is not a permutation of 0..THREADS-1 (perm[{}] = {}{})", name, i, v,
                 v >= 0 && v < n ? fmt::format(", as perm[{}]", from[static_cast<std::size_t>(v)])
                                 : std::string()),
             where);
    }
    from[static_cast<std::size_t>(v)] = i;
  }
  const int source = from[static_cast<std::size_t>(me)];
  const int reader = *(perm + me).get();  // the thread that copies this thread's src block
  if (m.in == sync_level::my) detail::epoch_wait_entered(c, source);
  std::memcpy(at(me, d.addr), at(source, s.addr), nbytes);
  sync_out(c, m.out, text,
           [&](int t) { return t == reader || holds_perm[static_cast<std::size_t>(me)] != 0; });
}

// ---- reductions ----------------------------------------------------------------------------

namespace {

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, char>) return "char";
  if constexpr (std::is_same_v<T, signed char>) return "signed char";
  if constexpr (std::is_same_v<T, unsigned char>) return "unsigned char";
  if constexpr (std::is_same_v<T, short>) return "short";
  if constexpr (std::is_same_v<T, unsigned short>) return "unsigned short";
  if constexpr (std::is_same_v<T, int>) return "int";
  if constexpr (std::is_same_v<T, unsigned int>) return "unsigned int";
  if constexpr (std::is_same_v<T, long>) return "long";
  if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  return "long double";
}

// A run of consecutive elements on one thread, in element order.
struct elem_run {
  int thread;
  std::size_t addr;   // of the run's first element
  std::size_t first;  // its element index
  std::size_t count;
};

// The runs of nelems elements of size `size` laid out as `shared [blk] T` from p (blk 0:
// indefinite). Block b after p's block starts on thread (t0 + b) % N, course (t0 + b) / N, at
// the same address field in every thread's course.
class run_walker {
 public:
  run_walker(sptr<const void> p, std::size_t size, std::size_t blk, std::size_t nelems)
      : t0_(p.thread()),
        phase_(blk == 0 ? 0 : p.phase()),
        base_(p.addrfield() - phase_ * size),
        size_(size),
        blk_(blk),
        nelems_(nelems) {}

  bool next(elem_run& r) {
    if (done_ >= nelems_) return false;
    r = block(block_++);
    done_ += r.count;
    return true;
  }

  /// The run of block b after the first one's block (b = 0: the first, from its phase), with
  /// count 0 when it starts past nelems. Indefinite: one run.
  elem_run block(std::uint64_t b) const {
    if (blk_ == 0) return {t0_, base_, 0, b == 0 ? nelems_ : 0};
    const std::size_t skip = b == 0 ? phase_ : 0;
    const std::size_t first = b == 0 ? 0 : static_cast<std::size_t>(b) * blk_ - phase_;
    const std::uint64_t g = static_cast<std::uint64_t>(t0_) + b;
    const std::uint64_t course = g / geometry.threads;
    return {static_cast<int>(g % geometry.threads), base_ + course * blk_ * size_ + skip * size_,
            first, first < nelems_ ? std::min(blk_ - skip, nelems_ - first) : 0};
  }

  /// The first block on thread t, and the distance to its next one.
  std::uint64_t first_block_of(int t) const {
    if (blk_ == 0) return t == t0_ ? 0 : std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>((t - t0_ + static_cast<int>(geometry.threads)) %
                                      static_cast<int>(geometry.threads));
  }
  std::uint64_t stride() const { return blk_ == 0 ? 1 : geometry.threads; }

 private:
  int t0_;
  std::size_t phase_;
  std::size_t base_;
  std::size_t size_;
  std::size_t blk_;
  std::size_t nelems_;
  std::size_t done_ = 0;
  std::uint64_t block_ = 0;
};

// The elements one after another (a run_walker flattened).
template <class T>
class element_cursor {
 public:
  element_cursor(sptr<const void> p, std::size_t blk, std::size_t nelems)
      : w_(p, sizeof(T), blk, nelems) {}
  T* next() {
    if (left_ == 0) {
      elem_run r{};
      w_.next(r);
      p_ = reinterpret_cast<T*>(at(r.thread, r.addr));
      left_ = r.count;
    }
    --left_;
    return p_++;
  }

 private:
  run_walker w_;
  T* p_ = nullptr;
  std::size_t left_ = 0;
};

// Checks a `shared [blk] T[nelems]` operand and returns, per thread, the extent it has there
// (len 0: none).
std::vector<region> operand_extents(sptr<const void> p, std::size_t size, std::size_t blk,
                                    std::size_t nelems, const char* role, const char* name,
                                    const std::source_location& where) {
  check_null(p, role, name, where);
  if (blk != 0 && p.phase() >= blk) {
    misuse(fmt::format("{}: {} has phase {}, not below blk_size={}", name, role, p.phase(), blk),
           where);
  }
  std::vector<region> ext(static_cast<std::size_t>(threads()), region{0, 0, 0});
  if (nelems == 0) return ext;
  // Each thread's extent from its first and last block, in arithmetic wide enough for any
  // count: walking the blocks would take as long as a garbage nelems (a negative count
  // converted to size_t) is large.
  __extension__ typedef unsigned __int128 wide;
  const run_walker w(p, size, blk, nelems);
  const std::size_t phase = blk == 0 ? 0 : p.phase();
  const wide blocks = blk == 0 ? 1 : (wide{nelems} + phase + blk - 1) / blk;
  const wide base = wide{p.addrfield()} - wide{phase} * size;
  for (int t = 0; t < threads(); ++t) {
    const std::uint64_t b0 = w.first_block_of(t);
    if (b0 >= blocks) continue;
    const wide last = b0 + (blocks - 1 - b0) / w.stride() * w.stride();
    // The end of the last block's elements: a whole block, or what is left of nelems.
    const wide course = blk == 0 ? 0 : (wide{static_cast<unsigned>(p.thread())} + last) / threads();
    const wide block_end =
        blk == 0 ? wide{nelems} : std::min(wide{blk}, wide{nelems} + phase - last * blk);
    const wide end = base + (course * (blk == 0 ? 1 : blk) + block_end) * size;
    if (end > geometry.segment) {
      misuse(fmt::format("{}: {} (nelems={} elements of {} bytes, blk_size={}) runs past the end "
                         "of thread {}'s shared segment",
                         name, role, nelems, size, blk, t),
             where);
    }
    const elem_run first = w.block(b0);
    ext[static_cast<std::size_t>(t)] = {t, first.addr, static_cast<std::size_t>(end) - first.addr};
  }
  for (const region& e : ext)
    if (e.len != 0) check_region(e, role, name, where);
  return ext;
}

constexpr bool is_bitwise(reduce_op op) {
  return op == reduce_op::bit_and || op == reduce_op::bit_or || op == reduce_op::bit_xor;
}

// a op b. Integer add and mult wrap (computed unsigned), as the hardware does.
template <class T>
T combine(reduce_op op, T a, T b, T (*func)(T, T)) {
  using wide = std::conditional_t<std::is_integral_v<T>, unsigned long long, T>;
  switch (op) {
    case reduce_op::add:
      return static_cast<T>(static_cast<wide>(a) + static_cast<wide>(b));
    case reduce_op::mult:
      return static_cast<T>(static_cast<wide>(a) * static_cast<wide>(b));
    case reduce_op::log_and:
      return static_cast<T>(a != T{} && b != T{} ? 1 : 0);
    case reduce_op::log_or:
      return static_cast<T>(a != T{} || b != T{} ? 1 : 0);
    case reduce_op::min:
      return b < a ? b : a;
    case reduce_op::max:
      return a < b ? b : a;
    case reduce_op::func:
    case reduce_op::noncomm_func:
      return func(a, b);
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (op == reduce_op::bit_and) return static_cast<T>(a & b);
    if (op == reduce_op::bit_or) return static_cast<T>(a | b);
    return static_cast<T>(a ^ b);
  } else {
    return a;  // bitwise ops on floating types are rejected before
  }
}

// The operation as the caller spelled it, for reports: UPC_AND inside a UPC call, else bit_and.
const char* op_shown(reduce_op op) noexcept {
  // In reduce_op's order.
  static constexpr const char* upc[] = {"UPC_ADD", "UPC_MULT",   "UPC_AND",         "UPC_OR",
                                        "UPC_XOR", "UPC_LOGAND", "UPC_LOGOR",       "UPC_MIN",
                                        "UPC_MAX", "UPC_FUNC",   "UPC_NONCOMM_FUNC"};
  static_assert(std::size(upc) == static_cast<std::size_t>(reduce_op::noncomm_func) + 1);
  const auto i = static_cast<std::size_t>(op);
  return detail::current_upc_call().upc_name != nullptr && i < std::size(upc) ? upc[i]
                                                                              : to_string(op);
}

template <class T>
void check_op(reduce_op op, T (*func)(T, T), const char* name, const std::source_location& where) {
  if (static_cast<unsigned>(op) > static_cast<unsigned>(reduce_op::noncomm_func)) {
    misuse(fmt::format("{}: op {} is no reduce_op", name, static_cast<int>(op)), where);
  }
  if (!std::is_integral_v<T> && is_bitwise(op)) {
    misuse(fmt::format("{}<{}>: {} is defined for integer types only", name, type_name<T>(),
                       op_shown(op)),
           where);
  }
  if ((op == reduce_op::func || op == reduce_op::noncomm_func) && func == nullptr) {
    misuse(fmt::format("{}: op {} with a null func", name, op_shown(op)), where);
  }
}

// Both reductions: checks, sync, and `compute(call, src extents)`: on the thread with affinity
// to dst for prefix reductions and noncomm_func, on every thread for the others.
template <class T, class Compute>
void reduction(const char* name, sptr<void> dst, sptr<const void> src, reduce_op op,
               std::size_t nelems, std::size_t blk_size, T (*func)(T, T), coll_flags flags,
               bool prefix, const std::source_location& where, Compute compute) {
  check_job(name, where);
  const sync_mode m = parse_flags(flags, name, where);
  check_op(op, func, name, where);
  const std::vector<region> s =
      operand_extents(src, sizeof(T), blk_size, nelems, "src", name, where);
  const std::vector<region> d =
      prefix ? operand_extents(dst, sizeof(T), blk_size, nelems, "dst", name, where)
             : operand_extents(dst, sizeof(T), 0, 1, "dst", name, where);
  for (std::size_t t = 0; t < s.size(); ++t) {
    if (overlap(s[t], d[t])) {
      misuse(
          fmt::format("{}: src and dst overlap on thread {} (UPC declares them restrict)", name, t),
          where);
    }
  }
  const int computer = dst.thread();
  const int me = mythread();
  const std::string text =
      fmt::format("{}, op={}{}, nelems={}, blk_size={}, flags={}, src={}:{:#x}/{}, dst={}:{:#x}/{}",
                  type_name<T>(), to_string(op),
                  op == reduce_op::func || op == reduce_op::noncomm_func
                      ? fmt::format(" (func {})", fmt::ptr(reinterpret_cast<const void*>(func)))
                      : std::string(),
                  nelems, blk_size, mode_text(m), src.thread(), src.addrfield(), src.phase(),
                  dst.thread(), dst.addrfield(), dst.phase());
  const auto has_data = [&](int t) {
    return s[static_cast<std::size_t>(t)].len != 0 || d[static_cast<std::size_t>(t)].len != 0;
  };
  const epoch_call c = detail::epoch_enter(name, text, where);
  if (prefix || op == reduce_op::noncomm_func) {
    // The computing thread reads every element and writes dst.
    sync_in(c, m.in, text, [&](int t) { return me == computer && has_data(t); });
    if (me == computer && nelems != 0) compute(c, s);
    sync_out(c, m.out, text, [&](int t) { return t == computer && has_data(me); });
  } else {
    // Each thread reads only its own elements, the computing thread writes only its own dst:
    // mysync waits for nobody (the partial results are the runtime's, not the program's).
    const auto nobody = [](int) { return false; };
    sync_in(c, m.in, text, nobody);
    if (nelems != 0) compute(c, s);
    sync_out(c, m.out, text, nobody);
  }
}

}  // namespace

template <class T>
requires detail::reduce_type<T>
void all_reduce(sptr<void> dst, sptr<const void> src, reduce_op op, std::size_t nelems,
                std::size_t blk_size, T (*func)(T, T), coll_flags flags,
                std::source_location where) {
  const auto compute = [&](const epoch_call& c, const std::vector<region>& extents) {
    T* const out = static_cast<T*>(dst.get());
    if (op == reduce_op::noncomm_func) {
      element_cursor<const T> in(src, blk_size, nelems);
      T acc = *in.next();
      for (std::size_t i = 1; i < nelems; ++i)
        acc = combine<T>(op, acc, *in.next(), func);
      *out = acc;
      return;
    }
    // Commutative: every thread folds its own blocks, the computing thread folds the partial
    // results in thread order.
    const run_walker w(src, sizeof(T), blk_size, nelems);
    T acc{};
    bool any = false;
    for (std::uint64_t b = w.first_block_of(c.me); b != std::numeric_limits<std::uint64_t>::max();
         b += w.stride()) {
      const elem_run r = w.block(b);
      if (r.count == 0) break;
      const T* p = reinterpret_cast<const T*>(at(r.thread, r.addr));
      for (std::size_t i = 0; i < r.count; ++i, any = true)
        acc = any ? combine<T>(op, acc, p[i], func) : p[i];
    }
    const int computer = dst.thread();
    if (c.me != computer) {
      if (any) std::memcpy(detail::epoch_partial_slot(c, computer), &acc, sizeof(T));
      return;
    }
    T total{};
    bool have = false;
    for (int t = 0; t < threads(); ++t) {
      if (extents[static_cast<std::size_t>(t)].len == 0) continue;
      T v = acc;
      if (t != c.me) std::memcpy(&v, detail::epoch_partial_of(c, t), sizeof(T));
      total = have ? combine<T>(op, total, v, func) : v;
      have = true;
    }
    *out = total;
  };
  reduction<T>(detail::shown_name("pgas::all_reduce"), dst, src, op, nelems, blk_size, func, flags,
               false, where, compute);
}

template <class T>
requires detail::reduce_type<T>
void all_prefix_reduce(sptr<void> dst, sptr<const void> src, reduce_op op, std::size_t nelems,
                       std::size_t blk_size, T (*func)(T, T), coll_flags flags,
                       std::source_location where) {
  reduction<T>(detail::shown_name("pgas::all_prefix_reduce"), dst, src, op, nelems, blk_size, func,
               flags, true, where, [&](const epoch_call&, const std::vector<region>&) {
                 element_cursor<const T> in(src, blk_size, nelems);
                 element_cursor<T> out(dst, blk_size, nelems);
                 T acc = *in.next();
                 *out.next() = acc;
                 for (std::size_t i = 1; i < nelems; ++i) {
                   acc = combine<T>(op, acc, *in.next(), func);
                   *out.next() = acc;
                 }
               });
}

#define PGASI_REDUCE_INSTANCES(T)                                                                  \
  template PGAS_API void all_reduce<T>(sptr<void>, sptr<const void>, reduce_op, std::size_t,       \
                                       std::size_t, T(*)(T, T), coll_flags, std::source_location); \
  template PGAS_API void all_prefix_reduce<T>(sptr<void>, sptr<const void>, reduce_op,             \
                                              std::size_t, std::size_t, T(*)(T, T), coll_flags,    \
                                              std::source_location);
PGASI_REDUCE_INSTANCES(char)
PGASI_REDUCE_INSTANCES(signed char)
PGASI_REDUCE_INSTANCES(unsigned char)
PGASI_REDUCE_INSTANCES(short)
PGASI_REDUCE_INSTANCES(unsigned short)
PGASI_REDUCE_INSTANCES(int)
PGASI_REDUCE_INSTANCES(unsigned int)
PGASI_REDUCE_INSTANCES(long)
PGASI_REDUCE_INSTANCES(unsigned long)
PGASI_REDUCE_INSTANCES(float)
PGASI_REDUCE_INSTANCES(double)
PGASI_REDUCE_INSTANCES(long double)
#undef PGASI_REDUCE_INSTANCES

}  // namespace pgas
