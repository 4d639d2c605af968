// Integration program: the tables behind `pgasrun --report tables`. Usage: table_report
// POLICY, where POLICY is a --replicate word (single, per-numa, per-socket, per-l3, per-thread,
// auto). Every thread creates three arrays large enough for automatic tables —
//   shared [256] int A[256][256]      rows in blocks, 256 row pointers
//   shared [128] int B[128][256]      blocks in rows, 2 segments per row
//   shared [64] double C[64][64]      rows in blocks, 64 row pointers
// — (tables 1 to 3, replicated `auto`), then privatizes each with POLICY (tables 4 to 6, or
// tables 1 to 3 shared when POLICY gives every thread the same replica as `auto`), drops the
// third handle early and prints what the three handles say on thread 0, calling them tables 4
// to 6: "table K: bytes B, replicas R, total T". Every table is freed when the body ends,
// before the report.
#include <cstdio>
#include <string>

#include <pgas/pgas.hpp>

int main(int argc, char** argv) {
  return pgas::run(argc, argv, [](int ac, char** av) {
    const pgas::replicate policy = pgas::parse_replicate(ac > 1 ? av[1] : "auto");
    const pgas::shared_array<int, 2> a({256, 256}, pgas::block_spec::cyclic(256));
    const pgas::shared_array<int, 2> b({128, 256}, pgas::block_spec::cyclic(128));
    const pgas::shared_array<double, 2> c({64, 64}, pgas::block_spec::cyclic(64));
    if (!a.uses_table() || !b.uses_table() || !c.uses_table()) {
      std::printf("thread %d: an array has no automatic table\n", pgas::mythread());
      return 3;
    }
    const auto ta = pgas::privatize(a, {.replicas = policy});
    const auto tb = pgas::privatize(b, {.replicas = policy});
    auto tc = pgas::privatize(c, {.replicas = policy});
    if (pgas::mythread() == 0) {
      std::printf("table 4: bytes %zu, replicas %d, total %zu\n", ta.bytes(), ta.replicas(),
                  ta.total_bytes());
      std::printf("table 5: bytes %zu, replicas %d, total %zu\n", tb.bytes(), tb.replicas(),
                  tb.total_bytes());
      std::printf("table 6: bytes %zu, replicas %d, total %zu\n", tc.bytes(), tc.replicas(),
                  tc.total_bytes());
    }
    tc = {};  // table 6 is freed here, the others when the body returns
    pgas::barrier();
    return 0;
  });
}
