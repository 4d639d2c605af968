// src/job/static_registry.cpp — the registry of static shared objects (pgas/static_shared.hpp):
// namespace-scope declarations register themselves during static initialisation, and every
// job creates them all on every thread before the bodies and frees them after (entry points
// static_objects_* of src/job/static_registry.hpp, called by runtime.cpp).
//
// The registry is a function-local static, so it exists before the first declaration that
// registers (static initialisation order across files is unspecified) and outlives it.
// Registration while a job runs is misuse: such an object (a block-scope `static`, a `new`)
// would be created by one thread while the others run their bodies, so it could never be made
// collectively — and a block-scope static's other threads wait in its initialisation guard.

#include <fmt/format.h>

#include <pgas/detail/static_registry.hpp>
#include <pgas/error.hpp>

#include <algorithm>
#include <mutex>
#include <new>
#include <string_view>
#include <vector>

#include "src/job/barrier.hpp"
#include "src/job/job.hpp"
#include "src/job/static_registry.hpp"

namespace pgas::detail {

namespace {

struct registry {
  std::mutex mutex;  // registration from dlopen'ed libraries may race with another thread's
  std::vector<static_object*> objects;
};

registry& the_registry() {
  static registry r;
  return r;
}

}  // namespace

// The one caller of static objects' job hooks.
struct static_registry_access {
  static void job_begin(static_object& o, int threads) { o.job_begin(threads); }
  static void thread_create(static_object& o) { o.thread_create(); }
  static void thread_destroy(static_object& o) noexcept { o.thread_destroy(); }
  static void job_end(static_object& o) noexcept { o.job_end(); }
};

static_object::static_object(const char* kind, std::source_location where)
    : kind_(kind), where_(where) {
  if (job_current() != nullptr) {
    misuse(fmt::format("a {} is constructed while a job runs (a block-scope `static` or a "
                       "dynamically created object): static shared objects are created by "
                       "every thread when a job starts; move its declaration to namespace scope",
                       kind),
           where);
  }
  registry& r = the_registry();
  const std::lock_guard g(r.mutex);
  r.objects.push_back(this);
}

static_object::~static_object() {
  registry& r = the_registry();
  const std::lock_guard g(r.mutex);
  std::erase(r.objects, this);
}

void static_object::no_job_error() const {
  misuse(fmt::format("the {} declared here is used outside pgas::run() (static shared objects "
                     "exist from the start of a job to its end, on its threads only)",
                     kind_),
         where_);
}

void static_objects_job_begin(int threads) {
  for (static_object* o : the_registry().objects)
    static_registry_access::job_begin(*o, threads);
}

void static_objects_thread_create() {
  for (static_object* o : the_registry().objects) {
    // Out of shared memory (pgas::bad_shared_alloc, a std::bad_alloc) on every thread alike, as
    // the allocation is collective: no body runs to catch it, so the job ends naming the
    // declaration, as for the objects' other creation errors.
    try {
      static_registry_access::thread_create(*o);
    } catch (const std::bad_alloc& e) {
      std::string_view why = e.what();
      if (why.starts_with("pgas: ")) why.remove_prefix(6);
      misuse(fmt::format("cannot create the {} declared here: {}", o->kind(), why),
             o->declared_at());
    }
  }
}

void static_objects_thread_destroy(job& j) noexcept {
  const std::vector<static_object*>& objects = the_registry().objects;
  if (objects.empty()) return;
  // Every body must have ended before anything is freed. A thread that returns while others
  // wait at one of the program's barriers meets them here: the mismatch names both. One that
  // returned between notify and wait is told so first (its arrival would be misread).
  barrier_check_not_notified_at_return(j, mythread());
  barrier_op op;
  op.kind = op_kind::static_objects;
  op.name =
      "the end of its body (static shared objects are freed collectively after it); the first is "
      "declared";
  op.where = objects.front()->declared_at();
  barrier_arrive(j, op);
  barrier_complete(j);
  std::for_each(objects.rbegin(), objects.rend(),
                [](static_object* o) { static_registry_access::thread_destroy(*o); });
}

void static_objects_job_end() noexcept {
  for (static_object* o : the_registry().objects)
    static_registry_access::job_end(*o);
}

}  // namespace pgas::detail
