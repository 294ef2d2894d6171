// The timeline capability on one device: emulated semaphores, per-queue submission
// state (parked work, submit thread, pools), host waits and the change signal that wakes
// waiters and submit threads.
//
// Locks (never two of the same kind at once, never held across a blocking call):
//   queue.mutex  -> semaphore.mutex  (a queue releasing work registers/relays points)
//   change_mutex_ (leaf: only the generation counter)
//   parked_binary_mutex_ (leaf)
//   graveyard_mutex_ (leaf)
//   queue.spent_mutex (leaf)
// Host waits hold no lock while they block. A wait whose every missing value is exactly a
// pending point's (only the device can reach it: a host signal must stay below pending
// signals) blocks in the driver on those submissions' fences; any other sleeps on the
// change signal, which every event that can meet a wait bumps (host signal, release of
// parked work, device loss, and completion of a wanted submission, seen by the queue's
// completion thread). Parked work is released by whichever thread makes it ready (a host
// signal, a submission on another queue) when it can, else by the queue's submit thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include <vulkan/vulkan.h>

#include "chassis/capability.h"
#include "chassis/state.h"
#include "core/handle_map.h"
#include "timeline/batch.h"
#include "timeline/present_copy.h"
#include "timeline/submit_builder.h"
#include "timeline/timeline_semaphore.h"

namespace bindery::timeline {

class TimelinePlan : public DevicePlan {
 public:
  bool synchronization2 = false;  // the application enabled it (vkQueueSubmit2 goes down as Submit2)
  // How long a host wait polls its submissions' fences before blocking in the driver
  // (DefaultHostWaitSpinNs; BINDERY_TIMELINE_SPIN_US overrides it).
  uint64_t host_wait_spin_ns = 0;
};

// The per-driver default of TimelinePlan::host_wait_spin_ns: 50 us on NVIDIA's proprietary
// driver, where a blocking fence wait's wake-up made the emulated round trip 1.69x native and
// 50 us of polling made it 0.53x (H100, driver 580.159.04, 2026-12-07, docs/timeline.md);
// 0 elsewhere (not measured: lavapipe's "GPU" is the CPU the polling would take).
uint64_t DefaultHostWaitSpinNs(VkDriverId driver_id);

// Work a queue holds back until its waits can be met, in queue order.
struct ParkedWork {
  enum class Kind { kSubmit, kPresent } kind = Kind::kSubmit;
  std::vector<Batch> batches;  // kSubmit: the batches not yet released
  std::size_t next_batch = 0;
  std::size_t release_end = 0;     // DrainParked scratch: batches ready in this pass
  VkFence fence = VK_NULL_HANDLE;  // the application's, after the last batch
  Route route = Route::kSubmit;    // the entry point it came through: goes down the same way
  std::shared_ptr<PresentCopy> present;  // kPresent
};

class DeviceTimelines;

struct QueueTimelines {
  QueueTimelines(DeviceTimelines& d, VkQueue q, uint32_t i) : device(d), queue(q), index(i), builder(d, *this) {}
  DeviceTimelines& device;
  const VkQueue queue;
  // Its place in the device's queue table (TimelineSemaphore::parked_queues names queues
  // by it); kUnindexedQueue past the table's end (such a queue's parked work is released
  // by its submit thread only).
  const uint32_t index;

  std::mutex mutex;  // everything below
  std::deque<ParkedWork> parked;
  std::thread thread;  // started when work is first parked
  // The submit thread sleeps on `changed` under the device's change mutex (a queue past the
  // indexed table: on the device's unindexed_changed_); the three fields below are under
  // that mutex too. It looks at its queue again when `kick` is set, or, while `listening`,
  // once the change signal moves past `listen_seen`. `listening` is set by the thread after
  // a look that left work parked, or on its behalf by the thread that parks work on an
  // empty queue (with the generation read before that thread's readiness check, so a change
  // in between is not missed): parking hands nothing to the submit thread, and a signal that
  // releases the work itself (vkSignalSemaphore, a submit on another queue) wakes nobody.
  // Cleared when the thread wakes or the queue's parked work is gone.
  std::condition_variable changed;
  bool listening = false;
  bool kick = false;
  uint64_t listen_seen = 0;
  // Started when a host waiter first needs a submission of this queue to complete: blocks
  // on the driver fences in submission order and wakes waiters (see CompletionThread).
  std::thread completion_thread;
  std::condition_variable completion_wanted;
  std::condition_variable idle;  // parked became empty
  std::deque<SubmissionRef> in_flight;  // by submission order (fences signal in order)
  std::vector<SubmissionRef> held;      // complete, still referenced by points or waiters
  std::vector<VkSemaphore> free_semaphores;  // unsignalled binary semaphores
  std::vector<VkFence> free_fences;          // unsignalled
  std::vector<SubmissionRef> free_submissions;  // records to reuse (no fence, nothing waited)
  // Binary semaphores of retired points that no device waiter took (a point's spare, or
  // its direct semaphore when only the host waited): signalled, and a binary semaphore is
  // unsignalled only by a wait. Once 16 have gathered, the next release on this queue
  // waits them in a batch of its own (their signals are complete: it waits for nothing)
  // and they return to `free_semaphores` when it completes: no destroy and create per point.
  // Its own leaf lock: points retire under a semaphore's lock, from any thread.
  std::mutex spent_mutex;
  std::vector<VkSemaphore> spent;
  // Scratch reused by every submission (no allocation once warm).
  std::vector<Batch> scratch_batches;
  std::vector<const Batch*> release_list;  // the batches of the driver call being built
  // Readiness checks of a run of batches: what the batches checked so far signal.
  std::vector<std::pair<TimelineSemaphore*, uint64_t>> local_signals;
  std::vector<VkSemaphore> local_binary;
  // Pending points whose direct semaphore an earlier wait of the same run will take.
  std::vector<std::pair<TimelineSemaphore*, uint64_t>> local_direct;
  // The submission of a point without a spare whose direct semaphore is taken, that the
  // first parked work waits: only its completion can make the wait ready, so the submit
  // thread asks the completion thread to report it (DrainParked sets it, SubmitThread
  // takes it).
  SubmissionRef awaiting;
  SubmitBuilder builder;  // builds and sends each release (this queue's mutex held)
  // The application fence of the last driver call on this queue that carried application
  // work, while nothing went down after it and it has no watch (DeviceTimelines::
  // watch_fences_ not yet set); else null. Written by the thread that holds the queue (the
  // application's, externally synchronized, on the pass-through path; else under `mutex`).
  std::atomic<VkFence> last_fence{VK_NULL_HANDLE};
  std::atomic<Route> last_fence_route{Route::kSubmit};
  VkResult deferred_present_result = VK_SUCCESS;  // reported by the next present
};

class DeviceTimelines : public CapabilityDevice {
 public:
  DeviceTimelines(DeviceState& device, const TimelinePlan& plan, const VkLayerDispatchTable& next);
  ~DeviceTimelines() override;

  DeviceState& device;
  const VkLayerDispatchTable& next;
  const bool synchronization2;

  // Semaphores -----------------------------------------------------------------------
  VkResult CreateSemaphore(const VkSemaphoreCreateInfo* info, const VkAllocationCallbacks* alloc, VkSemaphore* out);
  void DestroySemaphore(VkSemaphore semaphore, const VkAllocationCallbacks* alloc);
  SemaphoreRef Find(VkSemaphore semaphore) const;
  VkResult CounterValue(VkSemaphore semaphore, uint64_t* value);
  VkResult Signal(const VkSemaphoreSignalInfo* info);
  VkResult Wait(const VkSemaphoreWaitInfo* info, uint64_t timeout);

  // Queues ---------------------------------------------------------------------------
  QueueTimelines& Queue(VkQueue queue);
  // Submits `count` batches (already converted) on `q`, parking what cannot go yet.
  VkResult Submit(QueueTimelines& q, std::vector<Batch>& batches, std::size_t count, VkFence fence, Route route);
  VkResult Present(QueueTimelines& q, const VkPresentInfoKHR* info);
  VkResult QueueWaitIdle(QueueTimelines& q);
  VkResult DeviceWaitIdle();
  bool HasParked(QueueTimelines& q);
  // `s` was signalled (host signal, or a submission that signals it went down): releases,
  // on the calling thread, the parked work waiting on it that is ready now, on every queue
  // other than `except` (the caller's own, or null), each under its queue's mutex (the
  // queue stays externally synchronized, submission order per queue holds). The caller
  // holds no lock. This saves the hand-off to the queue's submit thread; that thread
  // remains the fallback for whatever is left (a present, a wait still unmet).
  void ReleaseParkedOn(TimelineSemaphore& s, const QueueTimelines* except);

  // Binary semaphores signalled by parked work: waits on them must park too.
  bool BinaryParked(VkSemaphore semaphore);

  // Application fences whose submission is parked: the layer answers for them until the
  // submit thread has handed them to the driver (so the driver never sees the fence used by
  // two threads at once: the submit thread's vkQueueSubmit and an application wait).
  VkResult WaitForFences(uint32_t count, const VkFence* fences, VkBool32 all, uint64_t timeout);
  VkResult FenceStatus(VkFence fence);
  bool FenceParked(VkFence fence);
  // Work of the application went down on `q` through the pass-through submit path, with
  // `fence` (or none): a watch follows the fence once the device has parked fenced work
  // (watch_fences_), else the fence is remembered as the queue's last (QueueTimelines::
  // last_fence). Takes q's mutex only to watch.
  void PassedThrough(QueueTimelines& q, VkFence fence, Route route);
  void DestroyFence(VkFence fence, const VkAllocationCallbacks* alloc);

  // Exports (vkGetFenceFdKHR, vkGetSemaphoreFdKHR): the payload must be one the driver was
  // asked to signal, so an export of a fence or binary semaphore signalled by parked work
  // waits until that work has gone down. VK_ERROR_DEVICE_LOST if it never will.
  VkResult WaitFenceSentDown(VkFence fence, const char* call);
  VkResult WaitBinarySentDown(VkSemaphore semaphore, const char* call);

  bool lost() const { return lost_.load(std::memory_order_acquire); }
  void MarkLost();

  // Change signal: a point became pending or was reached, a host signal, device loss, a
  // release of parked work. Waiters read the generation before checking, then wait for it
  // to move. Reading it takes no lock.
  uint64_t Generation() const { return generation_.load(std::memory_order_acquire); }
  // Wakes host waiters and, with `submit_threads`, the submit threads listening for a change
  // (QueueTimelines::listening) but `except`'s: a release on a queue by any thread notifies
  // with its own queue excepted, since that thread has just looked at it under its mutex
  // (what the release makes ready there it releases in the same pass).
  // `except_queues`: indexed queues (bit = index) not told either (their parked work is
  // released by the caller: SubmitBuilder::Commit).
  void NotifyChange(bool submit_threads = true, const QueueTimelines* except = nullptr, uint64_t except_queues = 0);
  void WaitChange(uint64_t seen, uint64_t timeout_ns);

  // A device wait found pending point `p` of `s` with its direct semaphore taken and no
  // spare (s.mutex held): `s`, and semaphores created later, get spares from now on.
  void NeedsRelays(TimelineSemaphore& s) {
    s.relays = true;
    relays_seen_.store(true, std::memory_order_relaxed);
  }

  struct Counters {
    Counter* semaphores;
    Counter* parked;
    Counter* relays;
    Counter* host_waits;
    // Each time a queue's submit thread looks at its parked work: work that a host signal or
    // another queue's submit releases itself costs none (tests count them).
    Counter* submit_thread_looks;
    // Fence-only submissions the layer sent to watch an application fence (tests count
    // them: none on a device that never parked fenced work).
    Counter* fence_watches;
  } counters;

 private:
  friend struct QueueTimelines;
  friend class SubmitBuilder;
  // Brings `s` up to date from the fences of its points (s.mutex held). `ask_driver`
  // false: from what is already known complete only (no driver call; the submit path,
  // where a stale value costs nothing: a device wait on a reached point is met at once).
  void Retire(TimelineSemaphore& s, bool ask_driver = true);
  // The lowest point >= value that the driver has (or that `building`, the submission being
  // built, signals itself). s.mutex held.
  TimePoint* LowestPending(TimelineSemaphore& s, uint64_t value, const Submission* building);
  // How a device wait can use pending point `p` now (s.mutex held): its direct semaphore,
  // or a relay of its spare (signalled by a submission the driver has, or `building`).
  // kBeingRelayed: another queue relays the spare in a call not sent down yet (the
  // relaying queue's commit bumps the change signal). kNeedsCompletion: no spare and the
  // direct semaphore is taken: only the point's completion can release the waiter.
  enum class PointUse { kDirect, kRelay, kBeingRelayed, kNeedsCompletion };
  static PointUse DeviceUse(const TimePoint& p, const Submission* building);
  bool WaitReady(QueueTimelines& q, const SemOp& wait);
  bool BatchReady(QueueTimelines& q, const Batch& batch);
  VkResult SubmitFence(QueueTimelines& q, VkFence fence, Route route);
  // Submit's work under q.mutex; `sent`: how many of the batches went down at once.
  VkResult SubmitLocked(QueueTimelines& q, std::vector<Batch>& batches, std::size_t count, VkFence fence, Route route,
                        std::size_t* sent);
  // `look_now`: the submit thread must look at once (a present, a wait only a completion
  // can release, a release that was refused for a retry, a queue past the indexed table);
  // else it only listens from generation `seen` (read before the readiness check that found
  // the work not ready). q.mutex held.
  void Park(QueueTimelines& q, ParkedWork&& work, bool look_now, uint64_t seen);
  // The submit thread's sleep: until kicked, or, while it listens, until the generation
  // moves past what it listens from (`listen`: start listening from `seen` first).
  void SleepUntilLook(QueueTimelines& q, bool listen, uint64_t seen, uint64_t timeout_ns);
  // Under change_mutex_.
  void Listen(QueueTimelines& q, uint64_t seen);
  void Unlisten(QueueTimelines& q);
  void Kick(QueueTimelines& q);
  void ParkBinarySignals(const Batch& batch, int delta);
  // Releases what is ready on `q` (q.mutex held). `presents`: also a present at the front
  // (the submit thread only: a present may block, a host signal should not).
  void DrainParked(QueueTimelines& q, bool presents = true);
  void SubmitThread(QueueTimelines* q);
  void CompletionThread(QueueTimelines* q);
  // Marks `sub` wanted by a host waiter and makes sure its queue's completion thread runs.
  void WantCompletion(const SubmissionRef& sub);
  void Sweep(QueueTimelines& q);  // q.mutex held
  VkSemaphore TakeSemaphore(QueueTimelines& q);
  VkFence TakeFence(QueueTimelines& q);
  // A cleared submission record for `q` (reused from Sweep when one is free). q.mutex held.
  SubmissionRef TakeSubmission(QueueTimelines& q);
  // `semaphore` is signalled by `signaller` (complete) and will never be waited: its
  // queue unsignals it for reuse (QueueTimelines::spent). Any lock may be held.
  void Spend(VkSemaphore semaphore, const SubmissionRef& signaller);
  void BuryOrDestroy(Spare&& spare);
  void SweepGraveyard();
  // `ask_driver` false: only what is already known (no driver call).
  bool SubmissionComplete(Submission& s, bool ask_driver = true);
  // `s` is known complete (its fence was waited): records it, waking waiters that want it.
  void MarkComplete(Submission& s);


  // One host wait, blocked in the driver on the fences of the submissions that signal
  // exactly the values it waits for (see Wait). VK_NOT_READY: look again.
  VkResult WaitOnDevice(const std::vector<SubmissionRef>& held, bool any, uint64_t left);

  ShardedHandleMap<VkSemaphore, SemaphoreRef> semaphores_;
  std::mutex queues_mutex_;  // creation of queue state only (cold)
  ShardedHandleMap<VkQueue, QueueTimelines> queues_;
  std::vector<QueueTimelines*> queue_list_;  // under queues_mutex_
  // The first kIndexedQueues queues by index, read without a lock: an entry is written
  // once, before queue_count_ (release) makes it visible.
  QueueTimelines* indexed_queues_[kIndexedQueues] = {};
  std::atomic<uint32_t> queue_count_{0};

  std::mutex change_mutex_;
  std::condition_variable changed_;            // host waiters
  std::condition_variable unindexed_changed_;  // submit threads of queues past the indexed table
  std::atomic<uint64_t> generation_{0};        // written under change_mutex_
  // Under change_mutex_: the indexed queues whose submit thread listens (bit = index), and
  // how many unindexed ones do.
  uint64_t listening_queues_ = 0;
  uint32_t unindexed_listening_ = 0;
  std::atomic<bool> lost_{false};
  std::atomic<bool> stopping_{false};
  // Some semaphore of this device has needed a relay (TimelineSemaphore::relays): the
  // application waits points from several batches, so semaphores created from then on
  // start with spares (one that creates a semaphore per frame would otherwise pay the
  // second waiter's wait for completion on every one).
  std::atomic<bool> relays_seen_{false};

  std::atomic<uint32_t> parked_binary_count_{0};
  std::mutex parked_binary_mutex_;
  std::unordered_map<VkSemaphore, uint32_t> parked_binary_;

  std::atomic<uint32_t> parked_fence_count_{0};
  std::mutex parked_fence_mutex_;
  std::unordered_map<VkFence, uint32_t> parked_fences_;
  void ParkFence(VkFence fence, int delta);
  void WatchFenceLocked(QueueTimelines& q, VkFence fence, Route route);  // q.mutex held
  // `fence` (or none) went down on `q` after the work of a release (q.mutex held): watched
  // once watch_fences_ is set, else remembered as the queue's last fence.
  void FenceAfterRelease(QueueTimelines& q, VkFence fence, Route route);
  // Work with a fence is being parked on `q` (q.mutex held): application fences sent down
  // from now on get watches, and the last one that went down on `q` with nothing after it
  // gets its watch now (as good as one made at its submit).
  void StartWatchingFences(QueueTimelines& q);
  // Set once work with an application fence has been parked on this device: only then can
  // a wait-any mix parked and driver fences (WaitAnyMixed), so only then does each fence
  // sent down get a watch (a fence-only vkQueueSubmit: ~7 us per fenced submit on the
  // H100). Driver fences sent down before, on other queues than the parking one, are waited
  // in slices like fences no submission through the layer carries.
  std::atomic<bool> watch_fences_{false};
  // A host wait on its submissions' fences polls them this long before blocking in the
  // driver: the plan's per-driver default, or BINDERY_TIMELINE_SPIN_US (environment only).
  const uint64_t spin_ns_;
  // VK_SUCCESS once the fences are signalled (all, or any), VK_TIMEOUT after `spin_ns`.
  VkResult SpinOnFences(uint32_t count, const VkFence* fences, bool any, uint64_t spin_ns);
  // The latest watch of `fence` not yet swept, or null (no submission through the layer
  // carries it: never submitted, acquired, imported).
  SubmissionRef FindWatch(VkFence fence);
  // One look of a wait-any over parked and driver fences: VK_NOT_READY to look again.
  VkResult WaitAnyMixed(uint32_t count, const VkFence* fences, uint64_t seen, uint64_t left);
  // `fence` of parked work went down: no longer parked; its waiters look again.
  void FenceSentDown(VkFence fence);
  void ForgetParkedFence(VkFence fence);
  // Removes the operations of parked work that name `semaphore` (being destroyed); returns
  // how many there were.
  uint32_t ForgetParkedSemaphore(VkSemaphore semaphore);


  std::mutex graveyard_mutex_;
  std::vector<Spare> graveyard_;
  std::atomic<bool> graveyard_used_{false};  // read without the lock on the submit path
};

}  // namespace bindery::timeline
