// Emulated timeline semaphores on one device: creation, host signal/wait/read, retiring
// points from fences, pools, and the change signal. Submission and parking are in
// timeline_device_submit.cpp (a release's steps in submit_builder.cpp), the fences of parked
// work in timeline_device_fences.cpp, exports in timeline_device_exports.cpp.
//
// Handle decision: the application's handle of an emulated timeline semaphore IS a real
// binary semaphore created at the driver (never used in a submission by the layer). So
// every call the layer does not need to see — debug-utils names, private data, object
// tags — reaches the driver with a valid handle of the right object type, and nothing
// fake ever goes down. The timeline state lives beside it, found by handle.
#include "timeline/timeline_device.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "core/chain_edit.h"
#include "core/pnext.h"

namespace bindery::timeline {
namespace {

using Clock = std::chrono::steady_clock;

// The completion thread blocks on a fence at most this long before looking whether the
// device is being destroyed (teardown only; completions wake it at once).
constexpr uint64_t kCompletionSliceNs = 100'000'000;

// A host wait blocks in the driver on at most this many fences at once (more: it sleeps on
// the change signal, as any other wait).
constexpr std::size_t kMaxDirectWaits = 16;

// The last handle of a queue's free list, or a new one from `create` (the pools grow
// instead of failing; VK_NULL_HANDLE when the driver could not create one, which the caller
// reports).
template <typename Handle, typename Create>
Handle TakeOrCreate(std::vector<Handle>& free, Create create) {
  if (!free.empty()) {
    Handle h = free.back();
    free.pop_back();
    return h;
  }
  Handle h = VK_NULL_HANDLE;
  return create(&h) == VK_SUCCESS ? h : VK_NULL_HANDLE;
}

}  // namespace

namespace {
// BINDERY_TIMELINE_SPIN_US (a measurement setting, read from the environment only): how long
// a host wait polls its fences before blocking in the driver, instead of the driver's default
// (0: it blocks at once). For measuring what a blocking wait's wake-up costs on a driver
// (issue 32: the H100's emulated round trip).
uint64_t SpinNs(uint64_t plan_default) {
  const char* v = std::getenv("BINDERY_TIMELINE_SPIN_US");
  if (v == nullptr || *v == '\0') return plan_default;
  char* end = nullptr;
  const unsigned long long us = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0' || us > 1'000'000) return plan_default;
  return static_cast<uint64_t>(us) * 1000;
}
}  // namespace

uint64_t DefaultHostWaitSpinNs(VkDriverId driver_id) {
  return driver_id == VK_DRIVER_ID_NVIDIA_PROPRIETARY ? 50'000 : 0;
}

DeviceTimelines::DeviceTimelines(DeviceState& d, const TimelinePlan& plan, const VkLayerDispatchTable& n)
    : device(d),
      next(n),
      synchronization2(plan.synchronization2),
      counters{&d.counters.Register("emulated semaphores"), &d.counters.Register("parked submissions"),
               &d.counters.Register("timeline relays"), &d.counters.Register("host waits"),
               &d.counters.Register("submit-thread looks"), &d.counters.Register("fence watches")},
      spin_ns_(SpinNs(plan.host_wait_spin_ns)) {}

DeviceTimelines::~DeviceTimelines() {
  stopping_.store(true);
  NotifyChange();
  std::vector<QueueTimelines*> queues;
  {
    std::lock_guard<std::mutex> lock(queues_mutex_);
    queues = queue_list_;
  }
  for (QueueTimelines* q : queues) {
    {
      std::lock_guard<std::mutex> lock(q->mutex);
      q->completion_wanted.notify_all();
    }
    {
      // stopping_ was set before this lock: a submit thread not yet asleep sees it.
      std::lock_guard<std::mutex> lock(change_mutex_);
      q->changed.notify_all();
      unindexed_changed_.notify_all();
    }
    if (q->thread.joinable()) q->thread.join();
    if (q->completion_thread.joinable()) q->completion_thread.join();
    std::lock_guard<std::mutex> lock(q->mutex);
    if (!q->parked.empty()) {
      BINDERY_LOG(device.log(), kWarn, "timeline-teardown",
                  "device destroyed with %zu parked submissions whose waits were never signalled; dropped",
                  q->parked.size());
    }
    q->parked.clear();
  }
  // The application waited for the device to idle before destroying it (and the layer's
  // relays complete with the work they follow); everything left is unused now.
  if (next.DeviceWaitIdle != nullptr) next.DeviceWaitIdle(device.handle);
  semaphores_.ForEach([&](VkSemaphore, SemaphoreRef& s) {
    for (TimePoint& p : s->points) {
      if (p.spare.semaphore != VK_NULL_HANDLE) next.DestroySemaphore(device.handle, p.spare.semaphore, nullptr);
      if (p.direct != VK_NULL_HANDLE) next.DestroySemaphore(device.handle, p.direct, nullptr);
    }
    s->points.clear();
  });
  for (QueueTimelines* q : queues) {
    for (const SubmissionRef& sub : q->in_flight) {
      q->free_semaphores.insert(q->free_semaphores.end(), sub->waited.begin(), sub->waited.end());
      next.DestroyFence(device.handle, sub->fence, nullptr);
    }
    for (const SubmissionRef& sub : q->held) {
      q->free_semaphores.insert(q->free_semaphores.end(), sub->waited.begin(), sub->waited.end());
      next.DestroyFence(device.handle, sub->fence, nullptr);
    }
    for (VkSemaphore s : q->free_semaphores) next.DestroySemaphore(device.handle, s, nullptr);
    for (VkSemaphore s : q->spent) next.DestroySemaphore(device.handle, s, nullptr);
    for (VkFence f : q->free_fences) next.DestroyFence(device.handle, f, nullptr);
  }
  for (Spare& s : graveyard_) next.DestroySemaphore(device.handle, s.semaphore, nullptr);
}

// ---- change signal --------------------------------------------------------------------

void DeviceTimelines::NotifyChange(bool submit_threads, const QueueTimelines* except, uint64_t except_queues) {
  uint64_t listeners = 0;
  bool unindexed = false;
  {
    std::lock_guard<std::mutex> lock(change_mutex_);
    generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    if (submit_threads) {
      listeners = listening_queues_ & ~except_queues;
      unindexed = unindexed_listening_ != 0;
    }
  }
  changed_.notify_all();
  // Only threads whose queue has parked work listen: once a host signal released that work
  // itself, the change is none of their business and they sleep on.
  while (listeners != 0) {
    const uint32_t i = static_cast<uint32_t>(__builtin_ctzll(listeners));
    listeners &= listeners - 1;
    QueueTimelines* q = indexed_queues_[i];
    if (q != except) q->changed.notify_one();
  }
  if (unindexed) unindexed_changed_.notify_all();
}

namespace {

// An hour at most per call (callers loop): nanoseconds is signed, and "forever" is UINT64_MAX.
std::chrono::nanoseconds Bounded(uint64_t timeout_ns) {
  constexpr uint64_t kMaxNs = 3'600'000'000'000ull;
  return std::chrono::nanoseconds(std::min(timeout_ns, kMaxNs));
}

}  // namespace

void DeviceTimelines::WaitChange(uint64_t seen, uint64_t timeout_ns) {
  std::unique_lock<std::mutex> lock(change_mutex_);
  changed_.wait_for(lock, Bounded(timeout_ns), [&] {
    return generation_.load(std::memory_order_relaxed) != seen || stopping_.load() || lost();
  });
}

void DeviceTimelines::Listen(QueueTimelines& q, uint64_t seen) {
  q.listen_seen = seen;
  if (q.listening) return;
  q.listening = true;
  if (q.index == kUnindexedQueue) ++unindexed_listening_;
  else listening_queues_ |= uint64_t{1} << q.index;
}

void DeviceTimelines::Unlisten(QueueTimelines& q) {
  if (!q.listening) return;
  q.listening = false;
  if (q.index == kUnindexedQueue) --unindexed_listening_;
  else listening_queues_ &= ~(uint64_t{1} << q.index);
}

void DeviceTimelines::Kick(QueueTimelines& q) {
  q.kick = true;
  if (q.index == kUnindexedQueue) unindexed_changed_.notify_all();
  else q.changed.notify_one();
}

void DeviceTimelines::SleepUntilLook(QueueTimelines& q, bool listen, uint64_t seen, uint64_t timeout_ns) {
  std::unique_lock<std::mutex> lock(change_mutex_);
  if (listen) Listen(q, seen);
  std::condition_variable& cv = q.index == kUnindexedQueue ? unindexed_changed_ : q.changed;
  cv.wait_for(lock, Bounded(timeout_ns), [&] {
    return stopping_.load() || q.kick ||
           (q.listening && (generation_.load(std::memory_order_relaxed) != q.listen_seen || lost()));
  });
  q.kick = false;
  Unlisten(q);
}

void DeviceTimelines::MarkLost() {
  if (!lost_.exchange(true)) {
    BINDERY_LOG(device.log(), kError, "timeline-device-lost",
                "device lost: every timeline waiter is woken and parked work fails with VK_ERROR_DEVICE_LOST");
  }
  NotifyChange();
}

// ---- semaphores -----------------------------------------------------------------------

VkResult DeviceTimelines::CreateSemaphore(const VkSemaphoreCreateInfo* info, const VkAllocationCallbacks* alloc,
                                          VkSemaphore* out) {
  const auto* type = FindInChain<VkSemaphoreTypeCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  if (type == nullptr) return next.CreateSemaphore(device.handle, info, alloc, out);
  // The driver never sees the type struct (it does not know timelines), not even BINARY.
  ChainEditor chain(info->pNext);
  if (!chain.Remove(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO)) {
    BINDERY_LOG(device.log(), kError, "timeline-create",
                "vkCreateSemaphore: a struct the layer does not know precedes VkSemaphoreTypeCreateInfo; refused");
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  VkSemaphoreCreateInfo copy = *info;
  copy.pNext = chain.chain();
  if (type->semaphoreType != VK_SEMAPHORE_TYPE_TIMELINE) return next.CreateSemaphore(device.handle, &copy, alloc, out);
  if (FindInChain<VkBaseInStructure>(copy.pNext, VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO) != nullptr) {
    // vkGetPhysicalDeviceExternalSemaphoreProperties reports no handle type for
    // timelines: exporting one is not allowed (VUID-VkExportSemaphoreCreateInfo-handleTypes-01124).
    BINDERY_LOG(device.log(), kError, "timeline-external",
                "vkCreateSemaphore: an emulated timeline semaphore cannot be exported; refused");
    return VK_ERROR_INVALID_EXTERNAL_HANDLE;
  }
  VkResult r = next.CreateSemaphore(device.handle, &copy, alloc, out);
  if (r != VK_SUCCESS) return r;
  auto timeline = std::make_shared<TimelineSemaphore>(*out, type->initialValue);
  timeline->relays = relays_seen_.load(std::memory_order_relaxed);
  semaphores_.Insert(*out, std::make_unique<SemaphoreRef>(std::move(timeline)));
  counters.semaphores->Add();
  return VK_SUCCESS;
}

void DeviceTimelines::DestroySemaphore(VkSemaphore semaphore, const VkAllocationCallbacks* alloc) {
  if (semaphore == VK_NULL_HANDLE) return;
  if (const uint32_t n = ForgetParkedSemaphore(semaphore)) {
    // Invalid usage the layer survives: parked work goes down without the operations
    // that named it (the driver never sees a destroyed handle).
    BINDERY_LOG(device.log(), kError, "timeline-destroy",
                "vkDestroySemaphore: %u waits/signals of work still parked behind an unsignalled timeline wait name "
                "this semaphore (VUID-vkDestroySemaphore-semaphore-01137); that work goes down without them",
                n);
  }
  if (std::unique_ptr<SemaphoreRef> ref = semaphores_.Erase(semaphore)) {
    // Nothing the application submitted is pending on it (the spec requires that); the
    // spares of its points may still be signalled by the layer's relays in flight.
    std::lock_guard<std::mutex> lock((*ref)->mutex);
    Retire(**ref);
    for (TimePoint& p : (*ref)->points) {
      BuryOrDestroy(std::move(p.spare));
      BuryOrDestroy({p.direct, p.submission});
    }
    (*ref)->points.clear();
  }
  next.DestroySemaphore(device.handle, semaphore, alloc);
  SweepGraveyard();
}

SemaphoreRef DeviceTimelines::Find(VkSemaphore semaphore) const {
  if (semaphore == VK_NULL_HANDLE) return nullptr;
  SemaphoreRef* ref = semaphores_.Find(semaphore);
  return ref == nullptr ? nullptr : *ref;
}

void DeviceTimelines::MarkComplete(Submission& s) {
  if (!s.complete.exchange(true) && s.wanted.load()) NotifyChange();
}

bool DeviceTimelines::SubmissionComplete(Submission& s, bool ask_driver) {
  if (s.complete.load()) return true;
  if (!ask_driver) return false;
  // A submission still being built (its points and spares are visible under the
  // semaphores' locks before the driver has it) is not complete, and its fence must not be
  // read while the releasing thread hands it to vkQueueSubmit (found by the threading
  // checks of the validation layer in the stress test).
  if (!s.submitted.load(std::memory_order_acquire)) return false;
  const VkResult r = next.GetFenceStatus(device.handle, s.fence);
  if (r == VK_SUCCESS) {
    // Whoever sees the completion first wakes the host waiters that asked for it (the
    // waiter stores `wanted` before it looks at `complete`: one of the two sees the other).
    if (!s.complete.exchange(true) && s.wanted.load()) NotifyChange();
    return true;
  }
  if (r == VK_ERROR_DEVICE_LOST) MarkLost();
  return false;
}

void DeviceTimelines::WantCompletion(const SubmissionRef& sub) {
  if (sub->wanted.exchange(true)) return;
  QueueTimelines& q = *sub->queue;
  std::lock_guard<std::mutex> lock(q.mutex);
  if (!q.completion_thread.joinable()) q.completion_thread = std::thread(&DeviceTimelines::CompletionThread, this, &q);
  q.completion_wanted.notify_one();
}

// One per queue, started on demand. Fences of one queue signal in submission order, so it
// blocks on the oldest incomplete submission while any submission is wanted: a waiter
// that later wants an older submission than the one being waited on cannot exist.
void DeviceTimelines::CompletionThread(QueueTimelines* q) {
  // Named so that profilers and debuggers tell the layer's threads from the driver's.
  pthread_setname_np(pthread_self(), "bindery-done");
  std::unique_lock<std::mutex> lock(q->mutex);
  while (!stopping_.load() && !lost()) {
    SubmissionRef oldest;
    bool wanted = false;
    for (const SubmissionRef& sub : q->in_flight) {
      if (sub->complete.load()) continue;
      if (oldest == nullptr) oldest = sub;
      if (sub->wanted.load()) {
        wanted = true;
        break;
      }
    }
    if (!wanted) {
      q->completion_wanted.wait_for(lock, std::chrono::nanoseconds(kCompletionSliceNs));
      continue;
    }
    lock.unlock();
    const VkResult r = next.WaitForFences(device.handle, 1, &oldest->fence, VK_TRUE, kCompletionSliceNs);
    if (r == VK_SUCCESS) {
      MarkComplete(*oldest);  // its fence is signalled: no second driver call to say so
    } else if (r == VK_ERROR_DEVICE_LOST) {
      MarkLost();
    }
    oldest.reset();  // before the lock: Sweep recycles fences nobody else refers to
    lock.lock();
  }
}

void DeviceTimelines::BuryOrDestroy(Spare&& spare) {
  if (spare.semaphore == VK_NULL_HANDLE) return;
  if (spare.signaller == nullptr || SubmissionComplete(*spare.signaller)) {
    // Signalled and never waited: a binary semaphore cannot be unsignalled from the host,
    // so it is destroyed rather than pooled.
    next.DestroySemaphore(device.handle, spare.semaphore, nullptr);
    return;
  }
  std::lock_guard<std::mutex> lock(graveyard_mutex_);
  graveyard_.push_back(std::move(spare));
  graveyard_used_.store(true, std::memory_order_release);
}

void DeviceTimelines::SweepGraveyard() {
  std::lock_guard<std::mutex> lock(graveyard_mutex_);
  for (auto it = graveyard_.begin(); it != graveyard_.end();) {
    if (SubmissionComplete(*it->signaller)) {
      next.DestroySemaphore(device.handle, it->semaphore, nullptr);
      it = graveyard_.erase(it);
    } else {
      ++it;
    }
  }
  graveyard_used_.store(!graveyard_.empty(), std::memory_order_release);
}

void DeviceTimelines::Retire(TimelineSemaphore& s, bool ask_driver) {
  for (auto it = s.points.begin(); it != s.points.end();) {
    if (!it->submission->submitted.load(std::memory_order_acquire) ||
        !SubmissionComplete(*it->submission, ask_driver)) {
      ++it;
      continue;
    }
    s.value = std::max(s.value, it->value);
    // The point goes once its spare is no longer in flight (a relay may still signal it).
    if (it->spare.signaller == nullptr || SubmissionComplete(*it->spare.signaller, ask_driver)) {
      Spend(it->spare.semaphore, it->spare.signaller);
      Spend(it->direct, it->submission);
      it = s.points.erase(it);
    } else {
      ++it;
    }
  }
}

TimePoint* DeviceTimelines::LowestPending(TimelineSemaphore& s, uint64_t value, const Submission* building) {
  // A device wait uses exactly the lowest point (a higher one would be a false dependency).
  TimePoint* best = nullptr;
  for (TimePoint& p : s.points) {
    if (p.value < value) continue;
    if (!p.submission->submitted.load(std::memory_order_acquire) && p.submission.get() != building) continue;
    if (best == nullptr || p.value < best->value) best = &p;
  }
  return best;
}

DeviceTimelines::PointUse DeviceTimelines::DeviceUse(const TimePoint& p, const Submission* building) {
  // The direct semaphore is signalled by the point's own submission (the driver's, or the
  // one being built): usable whenever it is still there.
  if (p.direct != VK_NULL_HANDLE) return PointUse::kDirect;
  if (p.spare.semaphore == VK_NULL_HANDLE) return PointUse::kNeedsCompletion;
  // The spare is being relayed by a submission the driver does not have yet.
  if (p.spare.signaller.get() != building && !p.spare.signaller->submitted.load(std::memory_order_acquire)) {
    return PointUse::kBeingRelayed;
  }
  return PointUse::kRelay;
}

VkResult DeviceTimelines::CounterValue(VkSemaphore semaphore, uint64_t* value) {
  SemaphoreRef s = Find(semaphore);
  if (s == nullptr) {
    BINDERY_LOG(device.log(), kError, "timeline-handle",
                "vkGetSemaphoreCounterValue: not a timeline semaphore of this device");
    return VK_ERROR_UNKNOWN;
  }
  if (lost()) return VK_ERROR_DEVICE_LOST;
  std::lock_guard<std::mutex> lock(s->mutex);
  Retire(*s);
  *value = s->value;
  return VK_SUCCESS;
}

VkResult DeviceTimelines::Signal(const VkSemaphoreSignalInfo* info) {
  SemaphoreRef s = Find(info->semaphore);
  if (s == nullptr) {
    BINDERY_LOG(device.log(), kError, "timeline-handle", "vkSignalSemaphore: not a timeline semaphore of this device");
    return VK_ERROR_UNKNOWN;
  }
  if (lost()) return VK_ERROR_DEVICE_LOST;
  bool raised = false;
  {
    std::lock_guard<std::mutex> lock(s->mutex);
    Retire(*s);
    if (info->value <= s->value) {
      BINDERY_LOG(device.log(), kWarn, "timeline-signal",
                  "vkSignalSemaphore: value %llu is not above the current value %llu "
                  "(VUID-VkSemaphoreSignalInfo-value-03258); the value stays",
                  static_cast<unsigned long long>(info->value), static_cast<unsigned long long>(s->value));
    } else {
      // May be below a pending device signal: the value rises now, the device point later.
      s->value = info->value;
      raised = true;
    }
  }
  // Parked work this value releases goes down on this thread, before the waiters are
  // told: a host waiter then finds the points it needs pending at once.
  if (raised) ReleaseParkedOn(*s, nullptr);
  NotifyChange();
  return VK_SUCCESS;
}

VkResult DeviceTimelines::Wait(const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  counters.host_waits->Add();
  const bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
  const uint32_t n = info->semaphoreCount;
  if (n == 0) return VK_SUCCESS;
  // Small fixed arrays for the common case; larger waits allocate (cold).
  std::vector<SemaphoreRef> sems(n);
  for (uint32_t i = 0; i < n; ++i) {
    sems[i] = Find(info->pSemaphores[i]);
    if (sems[i] == nullptr) {
      BINDERY_LOG(device.log(), kError, "timeline-handle", "vkWaitSemaphores: semaphore %u is not a timeline semaphore",
                  i);
      return VK_ERROR_UNKNOWN;
    }
  }
  const bool forever = timeout == UINT64_MAX;
  const Clock::time_point deadline =
      forever ? Clock::time_point::max()
              : Clock::now() + std::chrono::nanoseconds(std::min<uint64_t>(timeout, 1ull << 62));
  std::vector<SubmissionRef> held;
  // The first look at the values uses only what is known complete: when the wait then
  // blocks in the driver, one fence wait answers for every submission it needs (an
  // already signalled fence returns at once); a second look asks the driver.
  bool ask_driver = false;
  for (;;) {
    const uint64_t seen = Generation();
    if (lost()) return VK_ERROR_DEVICE_LOST;
    held.clear();
    uint32_t reached = 0;
    // Every value not reached is exactly the value of a pending point: only the device can
    // reach it first (a host signal must stay below every pending signal).
    bool exact = true;
    for (uint32_t i = 0; i < n; ++i) {
      TimelineSemaphore& s = *sems[i];
      std::lock_guard<std::mutex> lock(s.mutex);
      Retire(s, ask_driver);
      if (s.value >= info->pValues[i]) {
        ++reached;
        continue;
      }
      if (TimePoint* p = LowestPending(s, info->pValues[i], nullptr)) {
        if (held.empty() || held.back() != p->submission) held.push_back(p->submission);
        exact = exact && p->value == info->pValues[i];
      } else {
        exact = false;
      }
    }
    if (any ? reached > 0 : reached == n) return VK_SUCCESS;
    if (lost()) return VK_ERROR_DEVICE_LOST;
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      // The first look used only completions already known: before answering "timeout"
      // (a zero timeout is a query), ask the driver about the points the wait needs once —
      // a submission the application knows complete (its later fence signalled) must read
      // as reached.
      if (!ask_driver) {
        ask_driver = true;
        continue;
      }
      return VK_TIMEOUT;
    }
    const uint64_t left = forever ? UINT64_MAX
                                  : static_cast<uint64_t>(
                                        std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now).count());
    if (exact && held.size() <= kMaxDirectWaits) {
      // Block in the driver on those submissions' own fences: no completion thread in
      // between, and nothing else (but device loss) could end the wait earlier.
      const VkResult r = WaitOnDevice(held, any, left);
      if (r != VK_NOT_READY) return r;
      continue;
    }
    if (!ask_driver) {
      ask_driver = true;
      continue;
    }
    // Ask for a wake-up when a pending point the wait needs is reached, then look once more
    // (it may have completed before the request). Host signals, releases of parked work
    // and device loss wake the waiter too. Nothing here blocks in the driver, so a host
    // signal is seen at once even while the device works towards a higher point.
    bool completed = false;
    for (const SubmissionRef& sub : held) {
      WantCompletion(sub);
      completed = SubmissionComplete(*sub) || completed;
    }
    if (completed) continue;
    WaitChange(seen, left);
    ask_driver = false;
  }
}

VkResult DeviceTimelines::WaitOnDevice(const std::vector<SubmissionRef>& held, bool any, uint64_t left) {
  // A slice at a time, so that a loss the layer learns of elsewhere ends the wait.
  constexpr uint64_t kSliceNs = 10'000'000;
  VkFence fences[kMaxDirectWaits];
  uint32_t count = 0;
  for (const SubmissionRef& sub : held) {
    if (sub->complete.load()) return VK_NOT_READY;  // look again: the value may be reached
    bool known = false;
    for (uint32_t i = 0; i < count; ++i) known = known || fences[i] == sub->fence;
    if (known) continue;
    fences[count++] = sub->fence;
  }
  // The submissions are the driver's (LowestPending) and referenced here: their fences are
  // not reset or reused while this waits (Sweep recycles unreferenced ones only).
  VkResult r = spin_ns_ != 0 ? SpinOnFences(count, fences, any, std::min(left, spin_ns_)) : VK_TIMEOUT;
  if (r == VK_TIMEOUT) r = next.WaitForFences(device.handle, count, fences, any ? VK_FALSE : VK_TRUE, std::min(left, kSliceNs));
  if (r == VK_SUCCESS) {
    // Wait-all: every fence is signalled; wait-any: the driver does not say which.
    for (const SubmissionRef& sub : held) {
      if (any) {
        SubmissionComplete(*sub);
      } else {
        MarkComplete(*sub);
      }
    }
  } else if (r != VK_TIMEOUT) {
    if (r == VK_ERROR_DEVICE_LOST) MarkLost();
    return r;
  }
  return VK_NOT_READY;  // the caller looks at the values again (and at its deadline)
}

VkResult DeviceTimelines::SpinOnFences(uint32_t count, const VkFence* fences, bool any, uint64_t spin_ns) {
  const Clock::time_point until = Clock::now() + std::chrono::nanoseconds(spin_ns);
  do {
    uint32_t signalled = 0;
    for (uint32_t i = 0; i < count; ++i) {
      const VkResult r = next.GetFenceStatus(device.handle, fences[i]);
      if (r == VK_SUCCESS) {
        ++signalled;
      } else if (r != VK_NOT_READY) {
        return r;
      }
    }
    if (any ? signalled != 0 : signalled == count) return VK_SUCCESS;
  } while (Clock::now() < until);
  return VK_TIMEOUT;
}

// ---- pools ----------------------------------------------------------------------------

VkSemaphore DeviceTimelines::TakeSemaphore(QueueTimelines& q) {
  return TakeOrCreate(q.free_semaphores, [&](VkSemaphore* s) {
    const VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    return next.CreateSemaphore(device.handle, &info, nullptr, s);
  });
}

SubmissionRef DeviceTimelines::TakeSubmission(QueueTimelines& q) {
  if (q.free_submissions.empty()) {
    auto sub = std::make_shared<Submission>();
    sub->queue = &q;
    return sub;
  }
  // Nobody else refers to it (Sweep frees only unreferenced records): reset in place.
  SubmissionRef sub = std::move(q.free_submissions.back());
  q.free_submissions.pop_back();
  sub->submitted.store(false, std::memory_order_relaxed);
  sub->complete.store(false, std::memory_order_relaxed);
  sub->wanted.store(false, std::memory_order_relaxed);
  sub->watched = VK_NULL_HANDLE;
  return sub;
}

void DeviceTimelines::Spend(VkSemaphore semaphore, const SubmissionRef& signaller) {
  if (semaphore == VK_NULL_HANDLE) return;
  // More than this many waiting to be unsignalled on one queue (nothing is released
  // there any more): destroyed instead.
  constexpr std::size_t kMaxSpent = 1024;
  if (signaller != nullptr && signaller->queue != nullptr) {
    QueueTimelines& q = *signaller->queue;
    std::lock_guard<std::mutex> lock(q.spent_mutex);
    if (q.spent.size() < kMaxSpent) {
      q.spent.push_back(semaphore);
      return;
    }
  }
  next.DestroySemaphore(device.handle, semaphore, nullptr);
}

VkFence DeviceTimelines::TakeFence(QueueTimelines& q) {
  return TakeOrCreate(q.free_fences, [&](VkFence* f) {
    const VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    return next.CreateFence(device.handle, &info, nullptr, f);
  });
}

void DeviceTimelines::Sweep(QueueTimelines& q) {
  // Fences of one queue signal in submission order: stop at the first incomplete one.
  while (!q.in_flight.empty() && SubmissionComplete(*q.in_flight.front())) {
    SubmissionRef sub = std::move(q.in_flight.front());
    q.in_flight.pop_front();
    q.free_semaphores.insert(q.free_semaphores.end(), sub->waited.begin(), sub->waited.end());
    sub->waited.clear();
    q.held.push_back(std::move(sub));
  }
  for (auto it = q.held.begin(); it != q.held.end();) {
    if (it->use_count() == 1) {  // no point or waiter refers to it: the fence can be reused
      next.ResetFences(device.handle, 1, &(*it)->fence);
      q.free_fences.push_back((*it)->fence);
      (*it)->fence = VK_NULL_HANDLE;
      q.free_submissions.push_back(std::move(*it));
      it = q.held.erase(it);
    } else {
      ++it;
    }
  }
  if (graveyard_used_.load(std::memory_order_acquire)) SweepGraveyard();
}

}  // namespace bindery::timeline
