// src/job/sync_listener.cpp — the per-thread list of pgas/detail/sync_listener.hpp.
#include <pgas/detail/sync_listener.hpp>

#include <array>

namespace pgas::detail {
namespace {

struct thread_listeners {
  sync_listener* head = nullptr;
  sync_listener* tail = nullptr;
  std::array<std::uint64_t, 4> counts{};
};
thread_local constinit thread_listeners listeners __attribute__((tls_model("initial-exec"))) = {};

}  // namespace

void sync_listen(sync_listener* l) noexcept {
  l->next_ = nullptr;
  l->prev_ = listeners.tail;
  if (listeners.tail != nullptr)
    listeners.tail->next_ = l;
  else
    listeners.head = l;
  listeners.tail = l;
}

void sync_unlisten(sync_listener* l) noexcept {
  if (l->prev_ != nullptr)
    l->prev_->next_ = l->next_;
  else if (listeners.head == l)
    listeners.head = l->next_;
  if (l->next_ != nullptr)
    l->next_->prev_ = l->prev_;
  else if (listeners.tail == l)
    listeners.tail = l->prev_;
  l->next_ = l->prev_ = nullptr;
}

void sync_point(sync_kind kind) {
  ++listeners.counts[static_cast<std::size_t>(kind)];
  // A listener may unregister itself from on_sync: take the next one first.
  for (sync_listener* l = listeners.head; l != nullptr;) {
    sync_listener* next = l->next_;
    l->on_sync(kind);
    l = next;
  }
}

std::uint64_t sync_count(sync_kind kind) noexcept {
  return listeners.counts[static_cast<std::size_t>(kind)];
}

}  // namespace pgas::detail
