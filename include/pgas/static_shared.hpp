// pgas/static_shared.hpp — static shared data: UPC's file-scope `shared` declarations
// (UPC 1.3 §6.5.1: `shared [B] T A[N*THREADS]`, `shared T x`, and a lock every thread gets
// from upc_all_lock_alloc), declared at namespace scope and created by the runtime when a job
// starts.
//
//   // namespace scope
//   pgas::static_array<int, 1, 4> A(pgas::per_thread(100));  // shared [4] int A[100*THREADS]
//   pgas::static_array<double, 2> M({N, N}, pgas::block_spec::cyclic(N));  // shared [N] … M[N][N]
//   pgas::static_array<int> H([](int threads) { return 2 * threads + 1; });  // any f(THREADS)
//   pgas::static_scalar<long> counter;                      // shared long counter (thread 0)
//   pgas::static_lock lk;                                   // upc_all_lock_alloc(), once
//
//   // in a job body
//   A[i] = 1; M(i, j) += 2.0;            // elements, as through the pgas::shared_array
//   pgas::sptr<int, 4> p = A.ptr(i);     // &A[i]
//   auto& a = A.get();                   // the calling thread's pgas::shared_array
//   counter = 5; long c = *counter;      // UPC relaxed accesses to thread 0's scalar
//   { std::lock_guard g(lk); ++*counter; }
//
// What happens. A declaration only records its arguments (and its file:line) in a
// process-wide registry; it allocates nothing and needs no job. pgas::run() then creates every
// registered object on every thread, in declaration order (the order of static initialisation:
// within a file top to bottom, which is the same on every thread as it is one process), before
// any body runs, evaluating each extent for that job's THREADS: pgas::per_thread(n) is
// n * THREADS, a callable f is f(THREADS), a number is itself. After every body has returned,
// every thread frees them in reverse order, before the threads are joined. A process running
// several jobs (pgas::run called again, with another THREADS) gets fresh, zeroed objects in
// each. Arrays take exactly pgas::shared_array's constructor arguments and become one
// (pgas/shared_array.hpp: layouts, elements zero-initialised, automatic tables); a scalar is a
// one-element array with affinity to thread 0, which then holds its initialiser (`= v`, set
// by thread 0 before a barrier); a lock is pgas::all_lock_alloc()'s, freed with
// pgas::all_lock_free(). Elements are shared data (pgas/shared_storable.hpp), so arrays of
// pointers-to-shared and of lock handles work: `shared int *shared p[THREADS]` is
// `pgas::static_array<pgas::sptr<int>> p(pgas::per_thread(1));`, its elements null at start.
//
// Contract.
//   * Collective: nothing a program calls. Creation and freeing are collective, done by
//     pgas::run on every thread; every access is local.
//   * Declare these objects at namespace scope (or as static data members), where they are
//     constructed during static initialisation. Constructing one while a job runs — a
//     block-scope `static`, a member of a block-scope static, one made with `new` inside a
//     body — is misuse: the job ends at once naming its file:line and saying to move it to
//     namespace scope (one thread would create it while the others run, so it could never be
//     made collectively). One constructed outside a job at block scope (in main, before
//     pgas::run) works for the jobs that start while it lives.
//   * Errors (pgas/error.hpp): using an object (A(i), get(), *x, lk.lock(), …) where no job
//     runs — before pgas::run, after it returned — is misuse naming the object's declaration:
//     outside a job it throws pgas::usage_error "pgas: the pgas::static_array declared here is
//     used outside pgas::run() … at FILE:LINE". Creation errors are those of the objects
//     (shared_array: an invalid layout, named at the declaration), except that running out of
//     shared memory (pgas::bad_shared_alloc, which no body is there to catch) ends the job
//     naming the declaration too: "pgas: thread 0 of 2: cannot create the pgas::static_array
//     declared here: thread 0: cannot allocate … at FILE:LINE". An extent
//     that is negative (a callable's result) is misuse named at the declaration. A thread that
//     returns from its body while others wait at a barrier meets them at "the end of its body
//     (static shared objects are freed collectively after it)": the job ends reporting the
//     mismatch. A static lock still held when the bodies end is misuse named at its
//     declaration.
//   * Memory ordering: creation ends with a barrier after every thread zeroed its part, so
//     every body sees the zeros; freeing starts with a barrier that every body has reached.
//     Accesses are relaxed (plain loads and stores), as for any shared array: order them with
//     barriers or locks (pgas/sync.hpp, pgas/lock.hpp, pgas/strict.hpp).
//   * Thread safety: element access is as safe as the elements. Each job thread reaches its
//     own pgas::shared_array object (its automatic table, its NUMA replica); a thread the
//     program starts itself inside a body reaches thread 0's, which indexes the same memory.
//
// Cost. A(i) finds the calling thread's array through the object's table of handles: one
// load of the table and one of the thread number (a thread-local word), plus a predicted
// branch, on top of shared_array's own A(i). In a hot loop take the array once,
//     auto& a = A.get();  for (…) a(i) = …;
// and the loop is exactly a shared_array loop (views, with_views and all).
#pragma once

#include <pgas/detail/export.hpp>

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <type_traits>
#include <utility>

#include <pgas/detail/forall_affinity.hpp>  // detail::is_sptr
#include <pgas/detail/identity.hpp>
#include <pgas/detail/static_registry.hpp>
#include <pgas/detail/trace_hook.hpp>
#include <pgas/layout.hpp>
#include <pgas/lock.hpp>
#include <pgas/shared_array.hpp>
#include <pgas/sptr.hpp>
#include <pgas/sync.hpp>

/// UPC's opaque lock type (<pgas/upc.hpp>); only `upc_lock_t *` is used.
struct upc_lock_t;

namespace pgas {

/// The extent n * THREADS, evaluated when each job starts (UPC `A[n*THREADS]`).
struct per_thread {
  constexpr explicit per_thread(std::size_t n) noexcept : n(n) {}
  std::size_t n;
};

/// One extent of a static array: a number, pgas::per_thread(n), or a callable taking THREADS
/// (an int) and returning an integer. Evaluated on each thread when a job starts; callables
/// must give every thread the same value (a mismatch ends the job, as for any array).
class static_extent {
 public:
  template <std::integral I>
  static_extent(I n) noexcept : fixed_(static_cast<long long>(n)) {}
  static_extent(per_thread p) noexcept : per_thread_(p.n), scaled_(true) {}
  template <class F>
  requires(!std::integral<F> && std::is_invocable_v<const F&, int> &&
           std::integral<std::invoke_result_t<const F&, int>>) static_extent(F f)
      : fn_([f = std::move(f)](int t) { return static_cast<long long>(f(t)); }) {}

  /// The extent for a job of `threads` threads; negative values come back negative (the
  /// caller reports them).
  long long value(int threads) const {
    if (fn_) return fn_(threads);
    if (scaled_) return static_cast<long long>(per_thread_ * static_cast<std::size_t>(threads));
    return fixed_;
  }

 private:
  long long fixed_ = 0;
  std::size_t per_thread_ = 0;
  bool scaled_ = false;
  std::function<long long(int)> fn_;
};

namespace detail {

// Misuse named at the declaration: an extent evaluated to a negative number.
[[noreturn]] PGAS_API void static_extent_error(std::size_t dimension, long long value,
                                               const std::source_location& where);

// The per-thread handles of a static shared object: one slot per thread of the running job,
// each on its own cache line (threads fill their slots at once when the job starts), null
// outside a job. H is the handle (a shared_array in an optional, a lock_t).
template <class H>
class static_handles : public static_object {
 protected:
  using static_object::static_object;
  ~static_handles() = default;

  H& mine() const {
    if (slots_ == nullptr) [[unlikely]]
      no_job_error();
    return slots_[static_cast<std::size_t>(tls_mythread)].h;
  }

  void job_begin(int threads) override {
    slots_ = std::make_unique<slot[]>(static_cast<std::size_t>(threads));
  }
  void job_end() noexcept override { slots_.reset(); }

 private:
  struct alignas(64) slot {
    H h{};
  };
  std::unique_ptr<slot[]> slots_;
};

template <class T, std::size_t Rank, std::size_t Block, class Seq>
class static_array_base;

// The members of static_array<T, Rank, Block> (D… = 0 … Rank-1: one index per dimension).
template <class T, std::size_t Rank, std::size_t Block, std::size_t... D>
class static_array_base<T, Rank, Block, std::index_sequence<D...>>
    : public static_handles<std::optional<shared_array<T, Rank, Block>>> {
  using handles = static_handles<std::optional<shared_array<T, Rank, Block>>>;

 public:
  using array_type = shared_array<T, Rank, Block>;
  using value_type = T;
  using pointer = typename array_type::pointer;
  /// A braced list of Rank extents: {N, pgas::per_thread(4), f}.
  using extents_type = std::array<static_extent, Rank>;

  /// The calling thread's array (pgas/shared_array.hpp). Take it once before a hot loop.
  array_type& get() const { return *this->mine(); }
  operator array_type&() const { return get(); }
  /// Every other member of the array: A->layout(), A->local_part(), A->view(), …
  array_type* operator->() const { return &get(); }

  /// Element (i, j, …), A[i], &A[i]…: as the array's (checked builds name the caller's line).
  [[gnu::always_inline]] T& operator()(index_of<D>... i) const { return get()(i...); }
  [[gnu::always_inline]] T& operator[](index_arg i) const requires(Rank == 1) { return get()[i]; }
  pointer ptr(index_of<D>... i) const { return get().ptr(i...); }
  pointer begin_ptr() const { return get().begin_ptr(); }
  /// UPC's array-to-pointer conversion: a one-dimensional array used where a pointer-to-shared
  /// is expected is &A[0] (`dot(x, y)`, `upc_all_reduceD(&s, partial, …)`, `p = A`), of its
  /// own type or any pointer-to-shared that converts from it (shared void *); an array of more
  /// dimensions converts to shared void * only, as &A[0][0…] (`upc_memset(C, 0, n)`).
  template <class U, std::size_t B2>
  requires((Rank == 1 || std::is_void_v<U>)&&std::is_convertible_v<pointer, sptr<U, B2>>)
  operator sptr<U, B2>() const {
    return begin_ptr();
  }
  std::size_t size() const { return get().size(); }
  std::size_t extent(std::size_t d) const { return get().extent(d); }
  /// UPC's upc_localsizeof, upc_blocksizeof, upc_elemsizeof of the array (pgas/upc.hpp).
  std::size_t localsizeof() const { return get().localsizeof(); }
  std::size_t blocksizeof() const { return get().blocksizeof(); }
  static constexpr std::size_t elemsizeof() noexcept { return sizeof(T); }

 protected:
  static_array_base(const char* kind, extents_type extents, std::optional<block_spec> spec,
                    std::source_location where)
      : handles(kind, where), extents_(std::move(extents)), spec_(std::move(spec)) {}
  ~static_array_base() = default;

  // Called on every thread once its array exists (a scalar's initialiser).
  virtual void thread_created() {}

 private:
  void thread_create() override {
    const int n = threads();
    typename array_type::extents_type e{};
    for (std::size_t d = 0; d < Rank; ++d) {
      const long long v = extents_[d].value(n);
      if (v < 0) static_extent_error(d, v, this->declared_at());
      e[d] = static_cast<std::size_t>(v);
    }
    if constexpr (Block == dynamic_block) {
      this->mine().emplace(e, *spec_, this->declared_at());
    } else {
      this->mine().emplace(e, this->declared_at());
    }
    thread_created();
  }
  void thread_destroy() noexcept override { this->mine().reset(); }

  extents_type extents_;
  std::optional<block_spec> spec_;
};

}  // namespace detail

/// UPC `shared [Block] T A[d0]…[dRank-1]` at file scope (see the top of this header). Takes
/// pgas::shared_array's constructor arguments, any extent being a pgas::static_extent.
template <class T, std::size_t Rank = 1, std::size_t Block = dynamic_block>
class static_array final
    : public detail::static_array_base<T, Rank, Block, std::make_index_sequence<Rank>> {
  using base = detail::static_array_base<T, Rank, Block, std::make_index_sequence<Rank>>;
  static constexpr const char* kind = "pgas::static_array";

 public:
  using typename base::extents_type;

  /// A run-time block specification (default: block 1).
  static_array(const extents_type& extents, block_spec spec = {},
               std::source_location where =
                   std::source_location::current()) requires(Block == dynamic_block && Rank > 1)
      : base(kind, extents, std::move(spec), where) {}
  static_array(static_extent extent, block_spec spec = {},
               std::source_location where =
                   std::source_location::current()) requires(Block == dynamic_block && Rank == 1)
      : base(kind, {std::move(extent)}, std::move(spec), where) {}
  /// One dimension written in braces, as for pgas::shared_array: `A({N})`, `A({N}, spec)`.
  static_array(const std::size_t (&extent)[1], block_spec spec = {},
               std::source_location where =
                   std::source_location::current()) requires(Block == dynamic_block && Rank == 1)
      : base(kind, {static_extent(extent[0])}, std::move(spec), where) {}
  explicit static_array(const std::size_t (&extent)[1],
                        std::source_location where =
                            std::source_location::current()) requires(Block != dynamic_block &&
                                                                      Rank == 1)
      : base(kind, {static_extent(extent[0])}, std::nullopt, where) {}
  /// `shared [Block] T A[…]` (Block = pgas::indefinite for `shared []`).
  explicit static_array(const extents_type& extents,
                        std::source_location where =
                            std::source_location::current()) requires(Block != dynamic_block &&
                                                                      Rank > 1)
      : base(kind, extents, std::nullopt, where) {}
  explicit static_array(static_extent extent,
                        std::source_location where =
                            std::source_location::current()) requires(Block != dynamic_block &&
                                                                      Rank == 1)
      : base(kind, {std::move(extent)}, std::nullopt, where) {}
};

/// UPC `shared T x;` at file scope: one T with affinity to thread 0, zero at the start of each
/// job (see the top of this header); `shared T x = v;` is `pgas::static_scalar<T> x = v;`,
/// which holds v at the start of each job. Accesses are relaxed; `x = v` and `*x` are plain stores
/// and loads of thread 0's element.
template <class T>
class static_scalar final
    : private detail::static_array_base<T, 1, indefinite, std::index_sequence<0>> {
  using base = detail::static_array_base<T, 1, indefinite, std::index_sequence<0>>;

 public:
  explicit static_scalar(std::source_location where = std::source_location::current())
      : base("pgas::static_scalar", {static_extent(1)}, std::nullopt, where) {}
  /// UPC's `shared T x = v;`: the scalar holds v when each job starts (thread 0 stores it
  /// after the zeroing; a non-zero v costs one more barrier at the start of each job).
  template <class U>
  requires std::convertible_to<const U&, T> static_scalar(
      const U& v, std::source_location where = std::source_location::current())
      : static_scalar(where) {
    init_ = static_cast<T>(v);
    const T zero{};
    has_init_ = std::memcmp(&init_, &zero, sizeof(T)) != 0;
  }
  /// Not copyable (it names one object of the job); a copy, as by passing the scalar to
  /// printf's `...`, stops the compile with a hint: pass the value, `*x`.
  static_scalar(const static_scalar&) : static_scalar() {
    static_assert(detail::hint_only<T>,
                  "a pgas::static_scalar is not copied: to pass its value (to printf's "
                  "arguments, to a function taking T by value) write *x, as for UPC's shared "
                  "scalar x");
  }
  // const, as the assignment of a T below, so that `x = v` picks that one (not a conversion).
  const static_scalar& operator=(const static_scalar&) const = delete;

  /// Where it was declared.
  using base::declared_at;

  /// The element, by reference (UPC `x`).
  [[gnu::always_inline]] T& operator*() const {
    detail::trace_element(address());
    return *address();
  }
  [[gnu::always_inline]] T* operator->() const {
    detail::trace_element(address());
    return address();
  }
  [[gnu::always_inline]] T load() const {
    detail::trace_element(address());
    return *address();
  }
  [[gnu::always_inline]] void store(const T& v) const {
    detail::trace_element(address());
    *address() = v;
  }
  [[gnu::always_inline]] const static_scalar& operator=(const T& v) const {
    store(v);
    return *this;
  }
  [[gnu::always_inline]] operator T() const { return load(); }
  /// A shared pointer-to-shared (UPC's `shared void *shared p`, a static_scalar<sptr<T>>) read
  /// as UPC reads it: `if (p)`, `!p`, and passed where its pointer converts (upc_free(p) takes
  /// a sptr<const void>). Relaxed loads; pgas::strict(p) gives the same strictly.
  [[gnu::always_inline]] explicit operator bool() const requires requires(const T& t) {
    static_cast<bool>(t);
  }
  { return static_cast<bool>(load()); }
  [[gnu::always_inline]] bool operator!() const requires requires(const T& t) {
    static_cast<bool>(t);
  }
  { return !static_cast<bool>(load()); }
  template <class U>
  requires(detail::is_sptr<T>::value && !std::same_as<U, T> && std::convertible_to<T, U>)
      [[gnu::always_inline]]
      operator U() const {
    return load();
  }
  /// UPC's compound assignments and increments on the shared scalar (`x += v`, `++x`, `x--`):
  /// relaxed read-modify-writes of thread 0's element, not atomic (use a lock or
  /// pgas/atomic.hpp when threads update it together).
  template <class U>
  [[gnu::always_inline]] const static_scalar& operator+=(const U& v) const requires
      requires(T& t, const U& u) {
    t += u;
  }
  {
    **this += v;
    return *this;
  }
  template <class U>
  [[gnu::always_inline]] const static_scalar& operator-=(const U& v) const requires
      requires(T& t, const U& u) {
    t -= u;
  }
  {
    **this -= v;
    return *this;
  }
  template <class U>
  [[gnu::always_inline]] const static_scalar& operator*=(const U& v) const requires
      requires(T& t, const U& u) {
    t *= u;
  }
  {
    **this *= v;
    return *this;
  }
  template <class U>
  [[gnu::always_inline]] const static_scalar& operator/=(const U& v) const requires
      requires(T& t, const U& u) {
    t /= u;
  }
  {
    **this /= v;
    return *this;
  }
  [[gnu::always_inline]] T& operator++() const requires requires(T& t) { ++t; }
  { return ++**this; }
  [[gnu::always_inline]] T& operator--() const requires requires(T& t) { --t; }
  { return --**this; }
  [[gnu::always_inline]] T operator++(int) const requires requires(T& t) { t++; }
  { return (**this)++; }
  [[gnu::always_inline]] T operator--(int) const requires requires(T& t) { t--; }
  { return (**this)--; }
  /// UPC `&x`: a pointer-to-shared to thread 0's element.
  sptr<T> ptr() const { return sptr<T>(base::get().begin_ptr()); }
  /// UPC `&x`, as written in a port: the same pointer as ptr() (std::addressof gives the
  /// object's own address).
  sptr<T> operator&() const { return ptr(); }

 private:
  T* address() const { return base::get().address(0); }

  void thread_created() override {
    if (!has_init_) return;
    if (mythread() == 0) *address() = init_;
    barrier(base::declared_at());  // no thread reads or writes it before the store
  }

  T init_{};
  bool has_init_ = false;  // an initialiser other than zero's bytes
};

/// A lock allocated collectively when each job starts — UPC's `upc_lock_t *lk;` assigned
/// `upc_all_lock_alloc()` by every thread — and freed with pgas::all_lock_free after the
/// bodies (a lock still held then is misuse named at the declaration). Meets the Lockable
/// requirements (std::lock_guard), and converts to the pgas::lock_t every thread shares.
class PGAS_API static_lock final : private detail::static_handles<lock_t> {
 public:
  explicit static_lock(std::source_location where = std::source_location::current())
      : static_handles("pgas::static_lock", where) {}

  /// Where it was declared.
  using static_handles::declared_at;

  /// The lock's handle (the same on every thread of the job).
  lock_t get() const { return mine(); }
  operator lock_t() const { return mine(); }
  /// UPC's `upc_lock_t *` for the same lock, so that a port's upc_lock(lk), upc_unlock(lk),
  /// upc_lock_attempt(lk) stay as written (<pgas/upc.hpp>; the pointer carries the lock_t).
  operator upc_lock_t*() const { return std::bit_cast<upc_lock_t*>(mine()); }

  /// pgas/lock.hpp: lock(), try_lock(), unlock() and holder() of get().
  void lock(std::source_location where = std::source_location::current()) const {
    mine().lock(where);
  }
  bool try_lock(std::source_location where = std::source_location::current()) const {
    return mine().try_lock(where);
  }
  void unlock(std::source_location where = std::source_location::current()) const {
    mine().unlock(where);
  }
  int holder() const { return mine().holder(); }

 private:
  void thread_create() override { mine() = all_lock_alloc(declared_at()); }
  void thread_destroy() noexcept override;
};

}  // namespace pgas
