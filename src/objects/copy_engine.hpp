// src/objects/copy_engine.hpp — the copy engines behind the non-blocking transfers of
// pgas/nb.hpp: one helper thread per NUMA node, and the transfer record they share with the
// thread that started it.
//
// A transfer is cut into pieces. Whoever works on it — the engine, or the initiating thread
// when it syncs — claims the next piece with one fetch_add and copies it, so the two never copy
// the same bytes and a sync never waits for a piece nobody has started. A transfer is complete
// when `done` reaches `pieces`; the increment that gets there is the release that publishes the
// bytes to the thread that reads `done` with acquire.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <source_location>

#include <pgas/nb.hpp>

#include "src/job/job.hpp"

namespace pgas::detail {

// task: a copy that is not one byte range (pgas::copy_nb of pgas/ndarray_copy.hpp), run by its
// own function: `bytes` and `piece` count its units (elements), not bytes.
enum class nb_kind : std::uint8_t { copy, get, put, set, task };

struct nb_op {
  // Written by the initiating thread before the op is queued; read-only afterwards.
  char* dst = nullptr;
  const char* src = nullptr;  // null for set
  int value = 0;              // set: the byte
  std::size_t bytes = 0;
  std::size_t piece = 0;  // bytes per piece (the last may be shorter)
  std::uint32_t pieces = 0;
  nb_kind kind = nb_kind::copy;
  bool implicit = false;
  int owner = 0;          // the initiating UPC thread
  const char* name = "";  // "pgas::memget_nb"
  std::source_location where;
  // The value of <pgas/upc.hpp>'s upc_handle_t that names it once it has one, else 0; such a
  // transfer is owned by its thread's live list alone (no nb_handle refers to it).
  std::uint64_t upc_value = 0;
  // task: task_run(task, at, len) copies units [at, at + len); task_free deletes `task` with
  // the op.
  void (*task_run)(void* task, std::size_t at, std::size_t len) = nullptr;
  void* task = nullptr;
  void (*task_free)(void* task) noexcept = nullptr;

  std::atomic<std::uint32_t> claimed{0};  // next piece to copy (may run past `pieces`)
  std::atomic<std::uint32_t> done{0};     // pieces copied; a futex word
  std::atomic<std::uint32_t> sleepers{0};
  std::atomic<int> refs{2};  // the initiating thread's and the engine's

  // Owned by the initiating thread: its list of explicit transfers not completed yet.
  nb_op* live_prev = nullptr;
  nb_op* live_next = nullptr;
  // Set on thread 0 after the join when the job ended before the handle was completed.
  bool orphaned = false;
  // The engine's queue, under its lock.
  nb_op* queue_next = nullptr;

  nb_op() = default;
  nb_op(const nb_op&) = delete;
  nb_op& operator=(const nb_op&) = delete;
  ~nb_op() {
    if (task_free != nullptr) task_free(task);
  }
};

/// PGAS_NB_THRESHOLD's default (src/base/env.cpp's row says "1m"): what pgas::nb_threshold()
/// answers outside a job.
inline constexpr std::size_t nb_default_threshold = std::size_t{1} << 20;
/// The size of a piece.
inline constexpr std::size_t nb_piece_bytes = std::size_t{1} << 20;

/// Fills in bytes-per-piece and the piece count for op.bytes.
void nb_op_cut(nb_op& op) noexcept;
/// Copies pieces nobody has claimed until none is left.
void nb_op_work(nb_op& op) noexcept;
/// True when every piece is copied (acquire: the bytes are then visible to the caller).
bool nb_op_complete(const nb_op& op) noexcept;
/// Copies what is left unclaimed, then waits for pieces under way elsewhere.
void nb_op_finish(nb_op& op) noexcept;
/// Drops one reference; the last deletes the op.
void nb_op_release(nb_op* op) noexcept;

/// Queues `op` (whose two references are set) for the engine of OS NUMA node `node`, starting
/// that engine on first use. On failure to start one, does the copy in the caller.
void engine_submit(const job& j, int node, nb_op* op);
/// Called when a job ends: every engine finishes its queue and is joined.
void engines_stop() noexcept;

/// Starts `op`, a task whose kind, units, pieces, function and name the caller set (pgas::copy_nb,
/// src/objects/ndarray_copy.cpp), as an explicit transfer of the calling thread, a UPC thread of
/// the running job `j`, on the engine of OS NUMA node `node` (src/objects/nb.cpp).
nb_handle nb_start_task(const job& j, nb_op* op, int node);

}  // namespace pgas::detail
