// src/objects/copy_engine.cpp — the copy engines of pgas/nb.hpp: one helper thread per NUMA node,
// started at the node's first large transfer, bound to the node's PUs that no job thread is bound
// to (all of the node's when there are none), fed through a mutex-and-condition-variable FIFO (a
// transfer is at least PGAS_NB_THRESHOLD bytes, so one lock per transfer costs nothing measurable).
// Entry points: engine_submit, engines_stop (a job_on_end hook in nb.cpp), and the piece work
// shared with the syncing thread (nb_op_work, nb_op_finish).

#include "src/objects/copy_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pgas/detail/identity.hpp>

#include "src/base/backoff.hpp"
#include "src/base/faults.hpp"
#include "src/base/os.hpp"

namespace pgas::detail {

void nb_op_cut(nb_op& op) noexcept {
  op.piece = std::min(op.bytes, nb_piece_bytes);
  op.pieces = static_cast<std::uint32_t>((op.bytes + op.piece - 1) / op.piece);
}

void nb_op_work(nb_op& op) noexcept {
  for (;;) {
    const std::uint32_t i = op.claimed.fetch_add(1, std::memory_order_relaxed);
    if (i >= op.pieces) return;
    const std::size_t at = static_cast<std::size_t>(i) * op.piece;
    const std::size_t len = std::min(op.piece, op.bytes - at);
    if (op.kind == nb_kind::task) {
      op.task_run(op.task, at, len);
    } else if (op.kind == nb_kind::set) {
      std::memset(op.dst + at, op.value, len);
    } else {
      std::memcpy(op.dst + at, op.src + at, len);
    }
    // seq_cst pairs with the sleeper's increment of `sleepers` before its last look at `done`:
    // either it sees this piece counted, or this thread sees it sleeping and wakes it.
    const std::uint32_t now = op.done.fetch_add(1, std::memory_order_seq_cst) + 1;
    if (now == op.pieces && op.sleepers.load(std::memory_order_seq_cst) != 0)
      os_futex_wake(&op.done, INT_MAX);
  }
}

bool nb_op_complete(const nb_op& op) noexcept {
  return op.done.load(std::memory_order_acquire) == op.pieces;
}

void nb_op_finish(nb_op& op) noexcept {
  nb_op_work(op);
  // Nothing here to check for deadlock: an engine always finishes the piece it holds.
  static const std::atomic<std::uint64_t> no_progress{0};
  wait_until(job_wait_policy(), op.done, op.pieces, op.sleepers, no_progress, nullptr, nullptr);
}

void nb_op_release(nb_op* op) noexcept {
  if (op->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete op;
}

namespace {

struct engine {
  int node = 0;
  std::string name;       // for fault reports (tls_runtime_thread)
  std::vector<int> cpus;  // empty: not bound
  hwloc_topology_t topo = nullptr;
  pthread_t thread{};
  std::mutex mutex;
  std::condition_variable wake;
  nb_op* head = nullptr;  // FIFO under `mutex`
  nb_op* tail = nullptr;
  bool stop = false;
};

void* engine_main(void* arg) {
  auto* e = static_cast<engine*>(arg);
  tls_runtime_thread = e->name.c_str();
  faults_thread_start();  // as a job thread: a fault, a stack overflow too, is reported
  if (e->topo != nullptr) os_bind_thread(e->topo, e->cpus);
  for (;;) {
    nb_op* op = nullptr;
    {
      std::unique_lock lock(e->mutex);
      e->wake.wait(lock, [e] { return e->head != nullptr || e->stop; });
      if (e->head == nullptr) break;  // stopping, and the queue is drained
      op = e->head;
      e->head = op->queue_next;
      if (e->head == nullptr) e->tail = nullptr;
    }
    nb_op_work(*op);
    nb_op_release(op);
  }
  faults_thread_end();
  tls_runtime_thread = nullptr;
  return nullptr;
}

// Engines by OS node index; created under engines_mutex, stopped by engines_stop after the
// job's threads are joined.
std::mutex engines_mutex;
std::vector<std::unique_ptr<engine>> engines;

// Where the engine of `node` runs when the job's threads are bound: the node's PUs that no job
// thread is bound to, so that the copy really runs beside the threads; all of the node's PUs
// when the job's threads cover them (the engine then shares them, as in an oversubscribed job).
std::vector<int> engine_cpus(const job& j, int node) {
  std::vector<int> taken;
  for (const thread_place& p : j.plan)
    taken.insert(taken.end(), p.cpus.begin(), p.cpus.end());
  std::sort(taken.begin(), taken.end());
  std::vector<int> all, free;
  for (const pu_info& pu : j.plan_machine.pus()) {
    if (pu.numa_os != node && pu.numa_os >= 0) continue;
    all.push_back(pu.os_index);
    if (!std::binary_search(taken.begin(), taken.end(), pu.os_index)) free.push_back(pu.os_index);
  }
  return free.empty() ? all : free;
}

engine* engine_for(const job& j, int node) {
  std::lock_guard g(engines_mutex);
  const auto at = static_cast<std::size_t>(std::max(node, 0));
  if (engines.size() <= at) engines.resize(at + 1);
  if (engines[at] != nullptr) return engines[at].get();
  auto e = std::make_unique<engine>();
  e->node = node;
  e->name = fmt::format("the copy engine of NUMA node {}", node);
  if (j.topo != nullptr) {
    e->topo = j.topo.get();
    e->cpus = engine_cpus(j, node);
  }
  if (os_thread_create(&e->thread, 256 * 1024, engine_main, e.get()) != 0) return nullptr;
  engines[at] = std::move(e);
  return engines[at].get();
}

}  // namespace

void engine_submit(const job& j, int node, nb_op* op) {
  engine* e = engine_for(j, node);
  if (e == nullptr) {
    // No thread to be had: the transfer completes here, as a small one would.
    nb_op_work(*op);
    nb_op_release(op);
    return;
  }
  {
    std::lock_guard g(e->mutex);
    op->queue_next = nullptr;
    if (e->tail != nullptr) {
      e->tail->queue_next = op;
    } else {
      e->head = op;
    }
    e->tail = op;
  }
  e->wake.notify_one();
}

void engines_stop() noexcept {
  std::lock_guard g(engines_mutex);
  for (auto& e : engines) {
    if (e == nullptr) continue;
    {
      std::lock_guard lock(e->mutex);
      e->stop = true;
    }
    e->wake.notify_one();
    os_thread_join(e->thread);
  }
  engines.clear();
}

}  // namespace pgas::detail
