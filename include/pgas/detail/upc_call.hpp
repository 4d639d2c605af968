// pgas/detail/upc_call.hpp — the name a report gives the user's call. A function of
// <pgas/upc.hpp> holds a upc_call_scope while it runs the pgas function it maps to, so that
// misuse found inside reads "upc_all_reduceD: ..." or "upc_all_broadcast(...)" at the UPC
// call's line, as the program spells it, rather than the pgas name. The agreement check still
// compares the pgas name: threads that spell one collective differently agree.
#pragma once

#include <string_view>

#include <pgas/detail/export.hpp>

namespace pgas::detail {

/// The UPC function this thread is in, and the pgas function it maps to; nulls outside.
struct upc_call {
  const char* upc_name = nullptr;
  const char* pgas_name = nullptr;
};

/// This thread's current UPC call (src/base/upc_call.cpp). Initial-exec, as the thread's
/// identity: a scope costs a few moves, which the per-call wrappers (upc_lock, upc_memget)
/// can afford.
PGAS_API extern thread_local constinit upc_call tls_upc_call
    __attribute__((tls_model("initial-exec")));

/// This thread's current UPC call.
inline upc_call& current_upc_call() noexcept {
  return tls_upc_call;
}

/// Marks the calling thread as inside UPC function `upc_name`, which maps to `pgas_name`, for
/// its lifetime (nested scopes restore the outer one).
class upc_call_scope {
 public:
  upc_call_scope(const char* upc_name, const char* pgas_name) noexcept
      : saved_(current_upc_call()) {
    current_upc_call() = upc_call{upc_name, pgas_name};
  }
  ~upc_call_scope() { current_upc_call() = saved_; }
  upc_call_scope(const upc_call_scope&) = delete;
  upc_call_scope& operator=(const upc_call_scope&) = delete;

 private:
  upc_call saved_;
};

/// The name reports give pgas function `pgas_name`: the UPC name when a UPC function that
/// maps to it is the caller, else `pgas_name` itself.
inline const char* shown_name(const char* pgas_name) noexcept {
  const upc_call& c = current_upc_call();
  // The pointers usually match (one string literal per name); the text decides otherwise.
  return c.upc_name != nullptr &&
                 (c.pgas_name == pgas_name || std::string_view(c.pgas_name) == pgas_name)
             ? c.upc_name
             : pgas_name;
}

/// The pgas name behind `name` (a shown_name result): what the agreement check compares.
inline const char* agreed_name(const char* name) noexcept {
  const upc_call& c = current_upc_call();
  return c.upc_name != nullptr && std::string_view(c.upc_name) == name ? c.pgas_name : name;
}

}  // namespace pgas::detail
