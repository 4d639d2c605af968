// src/base/upc_call.cpp — the UPC function each thread is in (pgas/detail/upc_call.hpp), kept in
// the base beside the thread's identity so that every layer's reports can name the call as the
// program spells it.

#include <pgas/detail/upc_call.hpp>

namespace pgas::detail {

thread_local constinit upc_call tls_upc_call __attribute__((tls_model("initial-exec")));

}  // namespace pgas::detail
