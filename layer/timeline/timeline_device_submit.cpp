// DeviceTimelines, submissions: what goes down to the driver, what is parked
// (wait-before-signal), and the per-queue submit thread that releases parked work. How a
// release is built is SubmitBuilder's (submit_builder.h); fences are in
// timeline_device_fences.cpp.
//
// A batch goes down once each of its waits is *pending* (a submission the driver has
// signals a value >= the wait's) or reached; it does not wait for completion. Each timeline
// wait becomes, in the same driver call, a relay batch (waits the point's spare binary
// semaphore; signals a binary semaphore for the waiting batch and a fresh spare) followed
// by the application's batch waiting that binary semaphore. Each timeline signal becomes a
// binary semaphore (the point's first spare). One pool fence per driver call tells the
// layer when the points it signals are reached. Whatever cannot go yet is parked with
// everything after it on that queue (submits, fence-only submits, presents), so queue
// order holds; binary semaphores signalled by parked work make their waiters park too.
#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstddef>

#include "timeline/timeline_device.h"

namespace bindery::timeline {

QueueTimelines& DeviceTimelines::Queue(VkQueue queue) {
  if (QueueTimelines* q = queues_.Find(queue)) return *q;
  std::lock_guard<std::mutex> lock(queues_mutex_);
  if (QueueTimelines* q = queues_.Find(queue)) return *q;
  const uint32_t n = queue_count_.load(std::memory_order_relaxed);
  const uint32_t index = n < kIndexedQueues ? n : kUnindexedQueue;
  QueueTimelines* q = queues_.Insert(queue, std::make_unique<QueueTimelines>(*this, queue, index));
  queue_list_.push_back(q);
  if (index != kUnindexedQueue) {
    indexed_queues_[index] = q;
    queue_count_.store(n + 1, std::memory_order_release);
  }
  return *q;
}

bool DeviceTimelines::HasParked(QueueTimelines& q) {
  std::lock_guard<std::mutex> lock(q.mutex);
  return !q.parked.empty();
}

bool DeviceTimelines::BinaryParked(VkSemaphore semaphore) {
  if (parked_binary_count_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(parked_binary_mutex_);
  return parked_binary_.count(semaphore) != 0;
}

void DeviceTimelines::ParkBinarySignals(const Batch& batch, int delta) {
  for (const SemOp& s : batch.signals) {
    if (s.timeline != nullptr) continue;
    std::lock_guard<std::mutex> lock(parked_binary_mutex_);
    uint32_t& n = parked_binary_[s.semaphore];
    n = static_cast<uint32_t>(static_cast<int>(n) + delta);
    if (n == 0) parked_binary_.erase(s.semaphore);
    parked_binary_count_.store(static_cast<uint32_t>(parked_binary_.size()), std::memory_order_release);
  }
}

bool DeviceTimelines::WaitReady(QueueTimelines& q, const SemOp& w) {
  if (w.timeline == nullptr) {
    if (!BinaryParked(w.semaphore)) return true;
    return std::find(q.local_binary.begin(), q.local_binary.end(), w.semaphore) != q.local_binary.end();
  }
  TimelineSemaphore& s = *w.timeline;
  // The lowest value >= the wait that an earlier batch of this run signals.
  bool local = false;
  uint64_t local_value = 0;
  for (const auto& [sem, value] : q.local_signals) {
    if (sem == &s && value >= w.value && (!local || value < local_value)) {
      local = true;
      local_value = value;
    }
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  Retire(s, false);
  if (s.value >= w.value) return true;
  // The release waits the lowest point >= the value among the driver's and its own (the
  // same choice SubmitBuilder::WaitOnPoint makes, so what is found ready here goes down).
  TimePoint* p = LowestPending(s, w.value, nullptr);
  if (local && (p == nullptr || local_value < p->value)) return true;
  if (p == nullptr) return false;
  const std::pair<TimelineSemaphore*, uint64_t> key{&s, p->value};
  const bool claimed = std::find(q.local_direct.begin(), q.local_direct.end(), key) != q.local_direct.end();
  if (p->direct != VK_NULL_HANDLE && !claimed) {
    q.local_direct.push_back(key);  // this wait takes it: a later one of the run relays
    return true;
  }
  if (p->spare.semaphore == VK_NULL_HANDLE) {
    // A second device waiter of a point that got no spare: it waits for the point's
    // completion (then it waits nothing), and the semaphore's later points get spares.
    NeedsRelays(s);
    if (q.awaiting == nullptr) q.awaiting = p->submission;
    return false;
  }
  return p->spare.signaller->submitted.load(std::memory_order_acquire);
}

bool DeviceTimelines::BatchReady(QueueTimelines& q, const Batch& batch) {
  for (const SemOp& w : batch.waits) {
    if (!WaitReady(q, w)) return false;
  }
  for (const SemOp& s : batch.signals) {
    if (s.timeline != nullptr) q.local_signals.emplace_back(s.timeline.get(), s.value);
    else q.local_binary.push_back(s.semaphore);
  }
  return true;
}

VkResult DeviceTimelines::SubmitFence(QueueTimelines& q, VkFence fence, Route route) {
  // A fence-only call through the same entry point (a sparse-only queue takes no submits).
  const VkResult r = route == Route::kBindSparse ? next.QueueBindSparse(q.queue, 0, nullptr, fence)
                                                 : next.QueueSubmit(q.queue, 0, nullptr, fence);
  if (r == VK_ERROR_DEVICE_LOST) MarkLost();
  return r;
}

void DeviceTimelines::Park(QueueTimelines& q, ParkedWork&& work, bool look_now, uint64_t seen) {
  for (const Batch& b : work.batches) {
    ParkBinarySignals(b, +1);
    if (q.index == kUnindexedQueue) continue;
    for (const SemOp& w : b.waits) {
      if (w.timeline != nullptr) w.timeline->parked_queues.fetch_or(uint64_t{1} << q.index);
    }
  }
  ParkFence(work.fence, +1);
  // From now on a wait-any may mix this parked fence with driver fences: those get watches.
  if (work.fence != VK_NULL_HANDLE || (work.present != nullptr && !work.present->fences().empty())) {
    StartWatchingFences(q);
  }
  counters.parked->Add(work.kind == ParkedWork::Kind::kPresent ? 1 : std::max<std::size_t>(work.batches.size(), 1));
  const bool first = q.parked.empty();
  q.parked.push_back(std::move(work));
  if (!q.thread.joinable()) {
    q.thread = std::thread(&DeviceTimelines::SubmitThread, this, &q);  // it looks at once
    return;
  }
  // Work parked behind other parked work needs nothing: the submit thread is already
  // listening (or looking) for the work before it. Work parked on an empty queue needs no
  // look either where what can make it ready either releases it itself (a host signal, a
  // submit on another queue: through parked_queues) or bumps the change signal (a relay
  // sent down, a parked binary signaller released, a destroyed semaphore, device loss):
  // the thread listens from `seen`, read before this thread's readiness check, so a change
  // after that check wakes it. No hand-off per park: with the application's thread and
  // the submit thread on one core, each wake-up was a context switch in the round trip.
  if (!first) return;
  std::lock_guard<std::mutex> lock(change_mutex_);
  if (look_now || q.index == kUnindexedQueue) {
    Kick(q);  // a queue past the table has no bit in parked_queues: only its thread releases
    return;
  }
  Listen(q, seen);
  if (generation_.load(std::memory_order_relaxed) != seen) Kick(q);
}

VkResult DeviceTimelines::Submit(QueueTimelines& q, std::vector<Batch>& batches, std::size_t count, VkFence fence,
                                 Route route) {
  if (lost()) return VK_ERROR_DEVICE_LOST;
  std::size_t sent = 0;
  VkResult r;
  {
    std::lock_guard<std::mutex> lock(q.mutex);
    r = SubmitLocked(q, batches, count, fence, route, &sent);
  }
  // Work parked on other queues behind a value these batches signal goes down now, on this
  // thread (their submit threads would only be woken to do the same).
  for (std::size_t b = 0; b < sent; ++b) {
    for (const SemOp& s : batches[b].signals) {
      if (s.timeline != nullptr && s.timeline->parked_queues.load(std::memory_order_relaxed) != 0) {
        ReleaseParkedOn(*s.timeline, &q);
      }
    }
  }
  return r;
}

VkResult DeviceTimelines::SubmitLocked(QueueTimelines& q, std::vector<Batch>& batches, std::size_t count,
                                       VkFence fence, Route route, std::size_t* sent) {
  // Before the readiness check: a change after it must make the submit thread look (Park).
  const uint64_t seen = Generation();
  bool look_now = false;
  Sweep(q);
  std::size_t ready = 0;
  if (q.parked.empty()) {
    q.local_signals.clear();
    q.local_binary.clear();
    q.local_direct.clear();
    q.release_list.clear();
    while (ready < count && BatchReady(q, batches[ready])) q.release_list.push_back(&batches[ready++]);
    // A wait only a completion can release: the submit thread asks for it once the rest parks.
    look_now = q.awaiting != nullptr;
    q.awaiting.reset();
    if (ready != 0) {
      // The parked work these batches' signals release goes down on this thread (Submit).
      const VkResult r = q.builder.Release(q.release_list.data(), ready, route, true);
      // Not ready after all (another queue is relaying a point these batches wait), or the
      // call must be built again (SubmitBuilder): nothing went down, so all of them park
      // and the submit thread looks again.
      if (r == VK_NOT_READY) {
        ready = 0;
        look_now = true;
      } else if (r != VK_SUCCESS) {
        return r;
      }
      *sent = ready;
    }
    if (ready != 0) FenceAfterRelease(q, VK_NULL_HANDLE, route);  // work went down after the last fence
    if (ready == count) {
      if (fence == VK_NULL_HANDLE) return VK_SUCCESS;
      const VkResult r = SubmitFence(q, fence, route);
      if (r == VK_SUCCESS) FenceAfterRelease(q, fence, route);
      return r;
    }
  }
  // Wait-before-signal: the rest waits in queue order for the submit thread.
  ParkedWork work;
  work.route = route;
  work.fence = fence;
  work.batches.reserve(count - ready);
  for (std::size_t b = ready; b < count; ++b) {
    work.batches.push_back(batches[b]);
    Batch& parked = work.batches.back();
    if (parked.sparse != nullptr) {  // the application's arrays are not ours after this call
      parked.sparse_copy = std::make_shared<const SparseBinds>(*parked.sparse);
      parked.sparse = nullptr;
    }
  }
  Park(q, std::move(work), look_now, seen);
  return VK_SUCCESS;
}

void DeviceTimelines::DrainParked(QueueTimelines& q, bool presents) {
  struct Emptied {  // the submit thread stops listening once nothing is parked, however this returns
    DeviceTimelines& d;
    QueueTimelines& q;
    const bool had = !q.parked.empty();
    ~Emptied() {
      if (!had || !q.parked.empty()) return;
      std::lock_guard<std::mutex> lock(d.change_mutex_);
      d.Unlisten(q);
    }
  } emptied{*this, q};
  q.awaiting.reset();
  while (!q.parked.empty()) {
    ParkedWork& w = q.parked.front();
    if (lost() || stopping_.load()) {
      for (std::size_t b = w.next_batch; b < w.batches.size(); ++b) ParkBinarySignals(w.batches[b], -1);
      ParkFence(w.fence, -1);
      if (w.present != nullptr) {
        for (VkFence f : w.present->fences()) ParkFence(f, -1);
      }
      q.parked.pop_front();
      continue;
    }
    if (w.kind == ParkedWork::Kind::kPresent) {
      if (!presents) return;
      for (VkSemaphore s : w.present->waits()) {
        if (BinaryParked(s)) return;
      }
      const VkResult r = next.QueuePresentKHR(q.queue, &w.present->info());
      if (r == VK_ERROR_DEVICE_LOST) MarkLost();
      if (r != VK_SUCCESS) q.deferred_present_result = r;
      for (VkFence f : w.present->fences()) FenceSentDown(f);
      q.parked.pop_front();
      NotifyChange();
      continue;
    }
    // Every ready batch of this work and of the submit works after it (same entry point)
    // goes down in one driver call: one host signal that releases many parked submissions
    // costs one vkQueueSubmit. A work with its own fence ends the call (the fence goes down
    // right after its batches).
    q.local_signals.clear();
    q.local_binary.clear();
    q.local_direct.clear();
    q.release_list.clear();
    const Route route = w.route;
    std::size_t whole = 0;  // works whose every batch is ready
    bool waiting = false;   // the work after those has a batch whose waits are not pending yet
    for (ParkedWork& x : q.parked) {
      if (x.kind != ParkedWork::Kind::kSubmit || x.route != route) break;
      std::size_t end = x.next_batch;
      while (end < x.batches.size() && BatchReady(q, x.batches[end])) q.release_list.push_back(&x.batches[end++]);
      x.release_end = end;
      if (end < x.batches.size()) {
        waiting = true;
        break;
      }
      ++whole;
      if (x.fence != VK_NULL_HANDLE) break;
    }
    const std::size_t touched = waiting ? whole + 1 : whole;
    VkResult r = VK_SUCCESS;
    if (!q.release_list.empty()) r = q.builder.Release(q.release_list.data(), q.release_list.size(), route);
    // A point another queue is relaying in a call it has not sent down yet: nothing went
    // down and nothing is dropped; the works wait for the next change as they are.
    if (r == VK_NOT_READY) return;
    for (std::size_t i = 0; i < touched; ++i) {
      ParkedWork& x = q.parked[i];
      if (x.kind != ParkedWork::Kind::kSubmit || x.route != route) break;
      for (std::size_t b = x.next_batch; b < x.release_end; ++b) ParkBinarySignals(x.batches[b], -1);
      x.next_batch = x.release_end;
    }
    if (r != VK_SUCCESS) {
      // Nothing of that call reached the driver: the works it held are dropped, so that
      // later work is not held behind them forever.
      BINDERY_LOG(device.log(), kError, "timeline-parked",
                  "releasing parked work failed (VkResult %d); %zu parked submissions are dropped", r, touched);
      for (std::size_t i = 0; i < touched && !q.parked.empty(); ++i) {
        ParkedWork& x = q.parked.front();
        for (std::size_t b = x.next_batch; b < x.batches.size(); ++b) ParkBinarySignals(x.batches[b], -1);
        ParkFence(x.fence, -1);
        q.parked.pop_front();
      }
      continue;
    }
    if (!q.release_list.empty()) FenceAfterRelease(q, VK_NULL_HANDLE, route);  // work went down after the last fence
    for (std::size_t i = 0; i < whole; ++i) {
      ParkedWork& x = q.parked.front();
      if (x.fence != VK_NULL_HANDLE) {
        if (SubmitFence(q, x.fence, x.route) == VK_SUCCESS) FenceAfterRelease(q, x.fence, x.route);
        FenceSentDown(x.fence);
      }
      q.parked.pop_front();
    }
    if (waiting) return;  // the first work not wholly ready is still waiting
  }
  q.idle.notify_all();
}

void DeviceTimelines::ReleaseParkedOn(TimelineSemaphore& s, const QueueTimelines* except) {
  uint64_t queues = s.parked_queues.load(std::memory_order_acquire);
  if (queues == 0) return;
  const uint32_t count = queue_count_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < count && queues != 0; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if ((queues & bit) == 0) continue;
    queues &= ~bit;
    QueueTimelines& q = *indexed_queues_[i];
    if (&q == except) continue;
    std::lock_guard<std::mutex> lock(q.mutex);
    if (!q.parked.empty()) DrainParked(q, false);
    // What is left for the queue's submit thread alone: a present at the front, or a wait
    // only a completion can release (it asks for that completion itself).
    if (!q.parked.empty() &&
        (q.awaiting != nullptr || q.parked.front().kind == ParkedWork::Kind::kPresent)) {
      std::lock_guard<std::mutex> change(change_mutex_);
      Kick(q);
    }
    q.awaiting.reset();
    // Nothing parked there any more: no work on that queue waits on `s` (a later park sets
    // the bit again, under this same lock).
    if (q.parked.empty()) s.parked_queues.fetch_and(~bit, std::memory_order_acq_rel);
  }
}

void DeviceTimelines::SubmitThread(QueueTimelines* q) {
  // Named so that profilers and debuggers tell the layer's threads from the driver's.
  pthread_setname_np(pthread_self(), "bindery-submit");
  std::unique_lock<std::mutex> lock(q->mutex);
  while (!stopping_.load()) {
    if (q->parked.empty()) {
      // Nothing to release: sleep until work is parked and something may make it ready
      // (Park), so that the change signal of every submission and host signal does not
      // wake this thread for nothing.
      lock.unlock();
      SleepUntilLook(*q, false, 0, 100'000'000);
      lock.lock();
      continue;
    }
    const uint64_t seen = Generation();
    counters.submit_thread_looks->Add();
    DrainParked(*q);
    SubmissionRef awaiting = std::move(q->awaiting);
    if (q->parked.empty()) continue;
    lock.unlock();
    if (awaiting != nullptr) {
      // The first parked work waits a point that only its completion can release (no
      // spare): the queue's completion thread reports it (a change), unless it is
      // complete already (seen by a thread that did not know it was wanted).
      WantCompletion(awaiting);
      const bool complete = SubmissionComplete(*awaiting);
      awaiting.reset();  // before the lock: Sweep recycles records nobody refers to
      if (complete) {
        lock.lock();
        continue;
      }
    }
    SleepUntilLook(*q, true, seen, 100'000'000);
    lock.lock();
  }
}

VkResult DeviceTimelines::Present(QueueTimelines& q, const VkPresentInfoKHR* info) {
  if (lost()) return VK_ERROR_DEVICE_LOST;
  std::lock_guard<std::mutex> lock(q.mutex);
  VkResult late = q.deferred_present_result;
  q.deferred_present_result = VK_SUCCESS;
  bool park = !q.parked.empty();
  for (uint32_t i = 0; i < info->waitSemaphoreCount && !park; ++i) park = BinaryParked(info->pWaitSemaphores[i]);
  if (!park) {
    const VkResult r = next.QueuePresentKHR(q.queue, info);
    if (r == VK_ERROR_DEVICE_LOST) MarkLost();
    return r != VK_SUCCESS ? r : late;
  }
  // Behind parked work: the present waits its turn on the submit thread; the calling
  // thread never blocks. A result the driver gives then is returned by the next present.
  // Its pNext structs go down with it (present_copy.h).
  ParkedWork work;
  work.kind = ParkedWork::Kind::kPresent;
  auto copy = std::make_shared<PresentCopy>(*info);
  for (VkStructureType dropped : copy->dropped()) {
    BINDERY_LOG(device.log(), kWarn, "timeline-present",
                "a present queued behind parked work loses pNext struct %d (the layer cannot copy it)",
                static_cast<int>(dropped));
  }
  // The present's own fences signal after it: the layer answers for them meanwhile.
  for (VkFence f : copy->fences()) ParkFence(f, +1);
  work.present = std::move(copy);
  if (info->pResults != nullptr) {
    for (uint32_t i = 0; i < info->swapchainCount; ++i) info->pResults[i] = VK_SUCCESS;
  }
  Park(q, std::move(work), true, Generation());
  return late;
}

VkResult DeviceTimelines::QueueWaitIdle(QueueTimelines& q) {
  {
    std::unique_lock<std::mutex> lock(q.mutex);
    while (!q.parked.empty() && !lost()) q.idle.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (lost()) return VK_ERROR_DEVICE_LOST;
  const VkResult r = next.QueueWaitIdle(q.queue);
  if (r == VK_ERROR_DEVICE_LOST) MarkLost();
  std::lock_guard<std::mutex> lock(q.mutex);
  Sweep(q);
  return r;
}

VkResult DeviceTimelines::DeviceWaitIdle() {
  std::vector<QueueTimelines*> queues;
  {
    std::lock_guard<std::mutex> lock(queues_mutex_);
    queues = queue_list_;
  }
  for (QueueTimelines* q : queues) {
    std::unique_lock<std::mutex> lock(q->mutex);
    while (!q->parked.empty() && !lost()) q->idle.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (lost()) return VK_ERROR_DEVICE_LOST;
  const VkResult r = next.DeviceWaitIdle(device.handle);
  if (r == VK_ERROR_DEVICE_LOST) MarkLost();
  for (QueueTimelines* q : queues) {
    std::lock_guard<std::mutex> lock(q->mutex);
    Sweep(*q);
  }
  return r;
}

uint32_t DeviceTimelines::ForgetParkedSemaphore(VkSemaphore semaphore) {
  std::vector<QueueTimelines*> queues;
  {
    std::lock_guard<std::mutex> lock(queues_mutex_);
    queues = queue_list_;
  }
  uint32_t forgotten = 0;
  auto names = [&](const SemOp& op) { return op.semaphore == semaphore; };
  for (QueueTimelines* q : queues) {
    std::lock_guard<std::mutex> lock(q->mutex);
    for (ParkedWork& w : q->parked) {
      if (w.present != nullptr) forgotten += w.present->ForgetWait(semaphore);
      for (std::size_t b = w.next_batch; b < w.batches.size(); ++b) {
        Batch& batch = w.batches[b];
        for (const SemOp& s : batch.signals) {
          if (s.semaphore == semaphore && s.timeline == nullptr) {
            // No longer signalled by parked work: its waiters need not park for it.
            Batch only;
            only.signals.push_back(s);
            ParkBinarySignals(only, -1);
          }
        }
        const std::size_t before = batch.waits.size() + batch.signals.size();
        batch.waits.erase(std::remove_if(batch.waits.begin(), batch.waits.end(), names), batch.waits.end());
        batch.signals.erase(std::remove_if(batch.signals.begin(), batch.signals.end(), names), batch.signals.end());
        forgotten += static_cast<uint32_t>(before - batch.waits.size() - batch.signals.size());
      }
    }
  }
  if (forgotten != 0) NotifyChange();  // work that waited on it may be ready now
  return forgotten;
}

}  // namespace bindery::timeline
