// expect: an array of more than one dimension is not an affinity
// upc_forall (l = 0; l < N*M; l++; &M[l/M][l%M]) ported with the 2-D array itself as the
// affinity: only a one-dimensional array stands for &A[i].
#include <pgas/forall.hpp>
#include <pgas/shared_array.hpp>

void misuse(const pgas::shared_array<double, 2>& m) {
  pgas::forall(0, 100, m, [](int) {});
}
