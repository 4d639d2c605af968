// expect: compiles
// The positive control of tests/neg/: the correct form of every misuse the other cases make.
// It must compile with the same command, so a broken harness cannot pass the neg suite.
#include <pgas/pgas.hpp>

#include <string>

struct plain {
  int x;
  double y;
};

void control(pgas::sptr<int, 3> p3, pgas::sptr<const int, 4> c4, pgas::sptr<int, 4> p4,
             pgas::sptr<int, pgas::dynamic_block> d, int* x, pgas::shared_array<int, 2>& a,
             pgas::shared_array<int>& v, pgas::shared_array<plain, 1, 8>& s) {
  pgas::sptr<void> g = p3;                              // to generic: implicit
  const pgas::sptr<const void> cg = c4;                 // const to const generic
  pgas::sptr<int, 3> back = pgas::sptr<int, 3>(g) + 1;  // arithmetic after casting back
  ++back;                                               // generic: cast first
  *pgas::sptr<int>(g) = 1;                              // dereference after the cast
  (pgas::sptr<int>(g))[2] = 1;                          // index after the cast
  const pgas::sptr<int, 1> q = pgas::sptr<int, 1>(p3);  // another block size: explicit
  const pgas::sptr<int, 3> e = pgas::sptr<int, 3>(d);   // from a run-time block: explicit
  const pgas::sptr<int, 3> e2 = d;                      // or implicit, checked at run time
  const pgas::sptr<int> v0 = v.ptr(0);                  // shared int *p = &V[0]
  const pgas::sptr<int, 3> from_generic = g;            // shared void * converts by assignment
  const pgas::sptr<const int> from_const_generic = cg;
  const pgas::sptr<double, 4> from_alloc = pgas::shared_alloc{};  // all_alloc's result
  (void)e2, (void)v0, (void)from_generic, (void)from_const_generic, (void)from_alloc;
  const pgas::sptr<int, pgas::dynamic_block> dd = p3;              // to a run-time block: implicit
  const auto ch = pgas::sptr_cast<char, 3>(p3);                    // another element type: explicit
  const pgas::sptr<int, pgas::indefinite> f = pgas::sptr_from(x);  // from int*: sptr_from
  int* plain_pointer = static_cast<int*>(p3);                      // to int*: explicit
  const pgas::sptr<const int, 4> k = p4;                           // adding const: implicit
  const pgas::sptr<int, 4> u = pgas::sptr<int, 4>(c4);             // dropping const: explicit
  const pgas::sptr<const void> cv = g;                             // generic to const generic
  pgas::memput(p3, x, sizeof(int));                                // memput to a non-const pointer
  pgas::memget(x, c4, sizeof(int));
  a(1, 2) = 3;  // as many indices as the rank
  a(1u, 2l) = 4;
  v[1] = 2;
  v(1) = 2;
  s(3).x = 1;                                        // trivially copyable elements
  const pgas::sptr<int, pgas::config::max_block> m;  // the largest block
  (void)cg, (void)q, (void)e, (void)dd, (void)ch, (void)f, (void)plain_pointer, (void)k, (void)u;
  (void)cv, (void)m;
}

// Pointers-to-shared, lock handles and aggregates of them are shared data.
struct chain_link {
  pgas::sptr<chain_link> next;
  pgas::lock_t guard;
  long key;
};
pgas::static_array<pgas::sptr<int>> pointers(pgas::per_thread(1));
pgas::static_array<chain_link, 2> links({4, pgas::per_thread(2)}, pgas::block_spec::cyclic(2));

void control_array() {
  const pgas::shared_array<pgas::lock_t> locks({10});
  const pgas::shared_array<pgas::sptr<double, pgas::dynamic_block>> runtime_pointers({10});
  const pgas::shared_array<int, 1, pgas::config::max_block> big({10});
  const pgas::shared_array<plain, 2> t({4, 4}, pgas::block_spec::tiles({2, 2}));
}

void control_atomic(const pgas::atomic_domain<long>& d, pgas::shared_array<long>& v,
                    pgas::sptr<long, 4> p) {
  const pgas::atomic_domain<float> f(pgas::atomic_op::fadd);  // a UPC atomic type
  d.fetch_add(p, 1);                                          // a pointer-to-shared long
  d.fetch_add(v.ptr(0), 1);                                   // any block size
  d.fetch_add(v[0], 1);                                       // a shared element, by reference
}
