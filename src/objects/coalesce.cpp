// src/objects/coalesce.cpp — the coalescing schedule of <pgas/coalesce.hpp> out of line: the
// plan (a dense state byte per index of the hinted span; the other threads' distinct elements
// bucketed by owner and sorted by address, Cong et al. §4.2), the step machine of start/finish
// download/upload, the per-owner trace records, the statistics and the misuse reports. The
// typed copies and the get/put fast paths are inline in the header; entry points are
// schedule_core's members.
#include <pgas/coalesce.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <string_view>

#include <pgas/detail/trace_hook.hpp>
#include <pgas/error.hpp>
#include <pgas/runtime.hpp>

namespace pgas::detail {

schedule_core::schedule_core(std::size_t element_bytes, std::size_t element_align, bool can_combine,
                             const schedule_options& opts, std::vector<std::size_t> extents,
                             bool range, bool null_range, const std::source_location& where)
    : combine_(opts.combine),
      element_bytes_(element_bytes),
      element_align_(element_align),
      extents_(std::move(extents)),
      what_(range ? "pgas::access_schedule over a range"
                  : "pgas::access_schedule over a shared array"),
      made_(where) {
  if (!in_job())
    misuse(fmt::format("{} made outside a job (there is no shared object to schedule)", what_),
           where);
  if (null_range)
    misuse(fmt::format("{}: a null pointer-to-shared or an empty range", what_), where);
  if (combine_ != upload_combine::last && combine_ != upload_combine::min &&
      combine_ != upload_combine::max)
    misuse(fmt::format("{} with an invalid upload_combine {}", what_, static_cast<int>(combine_)),
           where);
  if (combine_ != upload_combine::last && !can_combine) combine_error(where);
  thread_ = mythread();
}

schedule_core::~schedule_core() {
  if (!dirty_.empty() && std::uncaught_exceptions() == 0)
    misuse(fmt::format("{} made at {}:{} destroyed with {} put element(s) not uploaded "
                       "(start_upload() and finish_upload() first, or clear())",
                       what_, made_.file_name(), made_.line(), dirty_.size()),
           made_);
  release_plan();
}

void schedule_core::release_plan() noexcept {
  if (values_ != nullptr) ::operator delete (values_, std::align_val_t{element_align_});
  values_ = nullptr;
  state_storage_ = {};
  pos_storage_ = {};
  down_ = {};
  up_ = {};
  own_ = {};
  down_runs_ = {};
  own_runs_ = {};
  down_batches_ = {};
  up_batches_ = {};
  dirty_ = {};
  state_ = nullptr;
  pos_ = nullptr;
  lo_ = 0;
  span_ = 0;
  valid_ = false;
}

void schedule_core::check_thread(const std::source_location& where) const {
  if (mythread() != thread_)
    misuse(fmt::format("{} made on thread {} at {}:{} used on thread {} (a schedule belongs to "
                       "the thread that made it)",
                       what_, thread_, made_.file_name(), made_.line(), mythread()),
           where);
}

std::string schedule_core::index_text(std::size_t k) const {
  if (extents_.size() == 1) return fmt::format("({})", k);
  std::vector<std::size_t> idx(extents_.size());
  for (std::size_t d = extents_.size(); d-- > 0;) {
    idx[d] = k % extents_[d];
    k /= extents_[d];
  }
  return fmt::format("({})", fmt::join(idx, ", "));
}

void schedule_core::range_error(std::size_t i, std::size_t n,
                                const std::source_location& where) const {
  misuse(fmt::format("{}: index {} outside the range [0, {})", what_,
                     static_cast<std::ptrdiff_t>(i), n),
         where);
}

void schedule_core::combine_error(const std::source_location& where) const {
  misuse(fmt::format("{}: upload_combine::{} needs an element type of 1, 2, 4 or 8 bytes "
                     "(naturally aligned) with operator<",
                     what_, combine_ == upload_combine::min ? "min" : "max"),
         where);
}

void schedule_core::step_error(const char* call, const std::source_location& where) const {
  const char* const why =
      step_ == step::downloading ? "start_download() has not been finished by finish_download()"
      : step_ == step::uploading ? "start_upload() has not been finished by finish_upload()"
      : std::string_view(call).starts_with("finish_download") ? "no start_download() is open"
                                                              : "no start_upload() is open";
  if (open_)
    misuse(fmt::format("{}: {} while {} (started at {}:{})", what_, call, why, open_at_.file_name(),
                       open_at_.line()),
           where);
  misuse(fmt::format("{}: {} while {}", what_, call, why), where);
}

// A hint on another thread is misuse; one after a plan starts a new index set, unless a step
// is open or puts wait.
void schedule_core::restart(const std::source_location& where) {
  check_thread(where);
  if (step_ == step::hinting) return;
  if (open_) step_error("hint()", where);
  if (!dirty_.empty())
    misuse(fmt::format("{}: hint() while {} put element(s) wait to be uploaded (a new hint "
                       "starts a new index set: start_upload() and finish_upload() first, or "
                       "clear())",
                       what_, dirty_.size()),
           where);
  release_plan();
  step_ = step::hinting;
}

void schedule_core::clear(const std::source_location& where) {
  check_thread(where);
  if (open_) step_error("clear()", where);
  release_plan();
  reads_ = {};
  writes_ = {};
  kmin_ = ~std::size_t{0};
  kmax_ = 0;
  step_ = step::hinting;
}

void schedule_core::ensure_plan(locate_fn locate, const void* self,
                                const std::source_location& where) {
  check_thread(where);
  if (step_ == step::hinting) plan(locate, self);
}

// Marks the hinted span's state bytes, locates each distinct element once, keeps the other
// threads' ones bucketed by owner (a stable counting sort in index order) and sorts each bucket
// by address only when index order is not already address order (a blocked layout is).
void schedule_core::plan(locate_fn locate, const void* self) {
  release_plan();
  ++plans_;
  step_ = step::planned;
  if (reads_.empty() && writes_.empty()) return;
  lo_ = kmin_;
  const std::size_t span = kmax_ - kmin_ + 1;
  state_storage_.assign(span, 0);
  std::uint8_t* const st = state_storage_.data();
  for (const std::size_t k : reads_)
    st[k - lo_] |= st_read;
  for (const std::size_t k : writes_)
    st[k - lo_] |= st_write;
  reads_ = {};
  writes_ = {};
  kmin_ = ~std::size_t{0};  // the next index set's bounds start afresh
  kmax_ = 0;

  const std::size_t nt = static_cast<std::size_t>(threads());
  struct found {
    std::uintptr_t addr;
    std::size_t x;
    int owner;
  };
  // Reserved for every distinct element, so that neither list is copied as it grows (the pages
  // a list does not fill are never touched).
  const std::size_t distinct =
      static_cast<std::size_t>(std::count_if(st, st + span, [](std::uint8_t b) { return b != 0; }));
  std::vector<found> remote;
  remote.reserve(distinct);
  own_.reserve(distinct);
  std::vector<std::size_t> per_owner(nt + 1, 0);
  for (std::size_t x = 0; x < span; ++x) {
    if (st[x] == 0) continue;
    const located l = locate(self, lo_ + x);
    if (l.owner == thread_) {
      st[x] |= st_own;
      if (st[x] & st_read) own_.push_back({l.addr, x});
      continue;
    }
    remote.push_back({l.addr, x, l.owner});
    ++per_owner[static_cast<std::size_t>(l.owner) + 1];
  }
  for (std::size_t t = 0; t < nt; ++t)
    per_owner[t + 1] += per_owner[t];
  std::vector<found> sorted(remote.size());
  {
    std::vector<std::size_t> at(per_owner.begin(), per_owner.end() - 1);
    for (const found& f : remote)
      sorted[at[static_cast<std::size_t>(f.owner)]++] = f;
  }
  remote = {};
  const auto by_addr = [](const found& a, const found& b) { return a.addr < b.addr; };
  for (std::size_t t = 0; t < nt; ++t) {
    const auto b = sorted.begin() + static_cast<std::ptrdiff_t>(per_owner[t]);
    const auto e = sorted.begin() + static_cast<std::ptrdiff_t>(per_owner[t + 1]);
    if (!std::is_sorted(b, e, by_addr)) std::sort(b, e, by_addr);
  }

  const bool any_write = std::any_of(sorted.begin(), sorted.end(),
                                     [&](const found& f) { return (st[f.x] & st_write) != 0; });
  if (any_write) {
    if (sorted.size() > std::numeric_limits<std::uint32_t>::max())
      misuse(fmt::format("{}: more than 2^32 other threads' elements hinted for writing", what_),
             made_);
    pos_storage_.assign(span, 0);
  }
  const auto add = [](std::vector<entry>& list, std::vector<batch>& batches, const found& f) {
    if (batches.empty() || batches.back().owner != f.owner)
      batches.push_back({f.owner, list.size(), list.size()});
    list.push_back({f.addr, f.x});
    ++batches.back().end;
  };
  for (const found& f : sorted) {
    if (st[f.x] & st_read) add(down_, down_batches_, f);
    if (st[f.x] & st_write) {
      pos_storage_[f.x] = static_cast<std::uint32_t>(up_.size());
      add(up_, up_batches_, f);
    }
  }
  runs_of(down_, down_runs_);
  runs_of(own_, own_runs_);
  const std::size_t bytes = span * element_bytes_;
  values_ = static_cast<char*>(::operator new (bytes, std::align_val_t{element_align_}));
  std::memset(values_, 0, bytes);  // an unchecked get() of an element never filled reads 0
  state_ = st;
  pos_ = any_write ? pos_storage_.data() : nullptr;
  span_ = span;
}

// Joins the entries of `list` that follow each other in memory and in the span into runs.
void schedule_core::runs_of(const std::vector<entry>& list, std::vector<run>& runs) const {
  for (const entry& e : list) {
    if (!runs.empty()) {
      run& r = runs.back();
      if (e.addr == r.addr + r.n * element_bytes_ && e.x == r.x + r.n) {
        ++r.n;
        continue;
      }
    }
    runs.push_back({e.addr, e.x, 1});
  }
}

void schedule_core::begin(step which, locate_fn locate, const void* self,
                          const std::source_location& where) {
  check_thread(where);
  if (open_) step_error(which == step::downloading ? "start_download()" : "start_upload()", where);
  if (step_ == step::hinting) plan(locate, self);
  step_ = which;
  open_ = true;
  open_at_ = where;
  if (which == step::downloading) valid_ = false;
}

void schedule_core::end(step which, const std::source_location& where) {
  check_thread(where);
  if (step_ != which)
    step_error(which == step::downloading ? "finish_download()" : "finish_upload()", where);
  step_ = step::planned;
  open_ = false;
  if (which == step::downloading) valid_ = true;
}

void schedule_core::downloaded(const std::source_location& where) {
  ++downloads_;
  downloaded_ += down_.size();
  trace_batches(down_batches_, down_, false, where);
}

// Few dirty elements are sorted; many (more than 1 in 16 of those that may be written) are
// collected again in order by a scan of their state bytes, which costs less than the sort.
void schedule_core::order_dirty() {
  if (std::is_sorted(dirty_.begin(), dirty_.end())) return;
  if (dirty_.size() * 16 < up_.size()) {
    std::sort(dirty_.begin(), dirty_.end());
    return;
  }
  dirty_.clear();
  for (std::size_t p = 0; p < up_.size(); ++p)
    if (state_[up_[p].x] & st_dirty) dirty_.push_back(static_cast<std::uint32_t>(p));
}

// Cleans the uploaded elements and reports one trace record per owner's run of them.
void schedule_core::uploaded(const std::source_location& where) {
  ++uploads_;
  uploaded_ += dirty_.size();
  const bool tracing = trace_on;
  std::size_t run_begin = 0;
  std::size_t batch = 0;
  for (std::size_t n = 0; n < dirty_.size(); ++n) {
    const std::uint32_t p = dirty_[n];
    state_[up_[p].x] &= static_cast<std::uint8_t>(~st_dirty);
    if (!tracing) continue;
    while (p >= up_batches_[batch].end)
      ++batch;
    const bool last = n + 1 == dirty_.size() || dirty_[n + 1] >= up_batches_[batch].end;
    if (last) {
      trace_access(trace_kind::schedule, trace_dir::write,
                   reinterpret_cast<const void*>(up_[dirty_[run_begin]].addr),
                   (n + 1 - run_begin) * element_bytes_, where);
      run_begin = n + 1;
    }
  }
  dirty_.clear();
}

void schedule_core::trace_batches(const std::vector<batch>& batches, const std::vector<entry>& list,
                                  bool write, const std::source_location& where) const {
  if (!trace_on) return;
  for (const batch& b : batches)
    trace_access(trace_kind::schedule, write ? trace_dir::write : trace_dir::read,
                 reinterpret_cast<const void*>(list[b.begin].addr),
                 (b.end - b.begin) * element_bytes_, where);
}

bool schedule_core::get_failed(std::size_t k, const std::source_location& where) {
  check_thread(where);
  if (step_ == step::hinting) return true;
  const std::size_t x = k - lo_;
  const std::uint8_t st = x < span_ ? state_[x] : 0;
  const std::string at = index_text(k);
  if (st == 0)
    misuse(fmt::format("{}: get{} of an element that was not hinted (hint() it before the "
                       "schedule is planned)",
                       what_, at),
           where);
  if ((st & st_read) == 0)
    misuse(fmt::format("{}: get{} of another thread's element hinted only for writing and not "
                       "put (hint() it to read it)",
                       what_, at),
           where);
  if (step_ == step::downloading)
    misuse(fmt::format("{}: get{} between start_download() and finish_download() (the values "
                       "are ready after finish_download())",
                       what_, at),
           where);
  misuse(fmt::format("{}: get{} of another thread's element before finish_download() (no "
                     "download of this plan has finished)",
                     what_, at),
         where);
}

bool schedule_core::put_failed(std::size_t k, const std::source_location& where) {
  check_thread(where);
  if (step_ == step::hinting) return true;
  const std::size_t x = k - lo_;
  const std::uint8_t st = x < span_ ? state_[x] : 0;
  const std::string at = index_text(k);
  if ((st & st_write) == 0)
    misuse(fmt::format("{}: put{} of an element that was not hinted for writing (hint_write() "
                       "it before the schedule is planned)",
                       what_, at),
           where);
  step_error(fmt::format("put{}", at).c_str(), where);
}

schedule_stats schedule_core::stats() const noexcept {
  schedule_stats s;
  s.plans = plans_;
  s.downloads = downloads_;
  s.uploads = uploads_;
  s.downloaded = downloaded_;
  s.uploaded = uploaded_;
  s.read_elements = down_.size();
  s.write_elements = up_.size();
  s.read_batches = down_batches_.size();
  s.write_batches = up_batches_.size();
  return s;
}

}  // namespace pgas::detail
