// src/base/upc_call.cpp — the UPC function each thread is in (pgas/detail/upc_call.hpp), kept in
// the base beside the thread's identity so that every layer's reports can name the call as the
// program spells it.

#include <pgas/detail/upc_call.hpp>

namespace pgas::detail {

namespace {
thread_local constinit upc_call tls_upc_call;
}  // namespace

upc_call& current_upc_call() noexcept {
  return tls_upc_call;
}

}  // namespace pgas::detail
