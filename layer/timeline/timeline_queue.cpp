// Submissions with emulated timeline semaphores: what goes down to the driver, what is
// parked (wait-before-signal), and the per-queue submit thread that releases parked work.
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
#include <algorithm>
#include <chrono>
#include <cstddef>

#include "timeline/timeline_device.h"

namespace bindery::timeline {

QueueTimelines& DeviceTimelines::Queue(VkQueue queue) {
  if (QueueTimelines* q = queues_.Find(queue)) return *q;
  std::lock_guard<std::mutex> lock(queues_mutex_);
  if (QueueTimelines* q = queues_.Find(queue)) return *q;
  QueueTimelines* q = queues_.Insert(queue, std::make_unique<QueueTimelines>(*this, queue));
  queue_list_.push_back(q);
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
  for (const auto& [s, value] : q.local_signals) {
    if (s == w.timeline.get() && value >= w.value) return true;
  }
  TimelineSemaphore& s = *w.timeline;
  std::lock_guard<std::mutex> lock(s.mutex);
  Retire(s);
  return s.value >= w.value || LowestPending(s, w.value, nullptr, true) != nullptr;
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

VkResult DeviceTimelines::Release(QueueTimelines& q, const Batch* const* batches, std::size_t count, Route route) {
  auto sub = std::make_shared<Submission>();
  sub->queue = &q;
  sub->fence = TakeFence(q);
  if (sub->fence == VK_NULL_HANDLE) return VK_ERROR_OUT_OF_HOST_MEMORY;

  std::size_t sem_need = 0, cmd_need = 0;
  for (std::size_t b = 0; b < count; ++b) {
    // Per timeline wait: the relay waits 1, signals 2, the batch waits 1.
    // Per timeline signal: the spare and the direct semaphore.
    sem_need += batches[b]->waits.size() * 4 + batches[b]->signals.size() * 2;
    cmd_need += batches[b]->commands.size();
  }
  q.out_submits.clear();
  q.out_semaphores.clear();
  q.out_commands.clear();
  q.out_origin.clear();
  q.staged.clear();
  q.undo.clear();
  q.undo_direct.clear();
  q.rollback_free.clear();
  q.out_submits.reserve(2 * count);
  q.out_semaphores.reserve(sem_need);
  q.out_commands.reserve(cmd_need);
  VkResult result = VK_SUCCESS;

  auto push_sem = [&](VkSemaphore s, VkPipelineStageFlags2 stage, uint32_t device_index) {
    VkSemaphoreSubmitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    info.semaphore = s;
    info.stageMask = stage;
    info.deviceIndex = device_index;
    q.out_semaphores.push_back(info);
  };

  for (std::size_t b = 0; b < count && result == VK_SUCCESS; ++b) {
    const Batch& batch = *batches[b];
    q.wait_semaphores.assign(batch.waits.size(), VK_NULL_HANDLE);
    q.relay_signals.clear();
    const std::size_t relay_begin = q.out_semaphores.size();
    for (std::size_t i = 0; i < batch.waits.size(); ++i) {
      const SemOp& w = batch.waits[i];
      if (w.timeline == nullptr) {
        q.wait_semaphores[i] = w.semaphore;
        continue;
      }
      TimelineSemaphore& s = *w.timeline;
      std::lock_guard<std::mutex> lock(s.mutex);
      Retire(s);
      if (s.value >= w.value) continue;  // reached: nothing to wait for
      TimePoint* p = LowestPending(s, w.value, sub.get(), true);
      if (p == nullptr) {  // cannot happen after BatchReady (values only rise); refuse rather than guess
        result = VK_ERROR_UNKNOWN;
        break;
      }
      if (p->direct != VK_NULL_HANDLE) {
        // The first device waiter of the point: its own semaphore, no relay batch.
        q.wait_semaphores[i] = p->direct;
        sub->waited.push_back(p->direct);
        q.undo_direct.push_back({&s, p->value, p->direct});
        p->direct = VK_NULL_HANDLE;
        continue;
      }
      const VkSemaphore for_batch = TakeSemaphore(q);
      const VkSemaphore new_spare = TakeSemaphore(q);
      if (for_batch == VK_NULL_HANDLE || new_spare == VK_NULL_HANDLE) {
        if (for_batch != VK_NULL_HANDLE) q.free_semaphores.push_back(for_batch);
        if (new_spare != VK_NULL_HANDLE) q.free_semaphores.push_back(new_spare);
        result = VK_ERROR_OUT_OF_HOST_MEMORY;
        break;
      }
      push_sem(p->spare.semaphore, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0);
      q.relay_signals.push_back(for_batch);
      q.relay_signals.push_back(new_spare);
      q.undo.push_back({&s, new_spare, p->spare});
      sub->waited.push_back(p->spare.semaphore);
      sub->waited.push_back(for_batch);
      q.rollback_free.push_back(for_batch);
      p->spare = {new_spare, sub};
      q.wait_semaphores[i] = for_batch;
      counters.relays->Add();
    }
    if (result != VK_SUCCESS) break;
    const std::size_t relay_waits = q.out_semaphores.size() - relay_begin;
    if (relay_waits != 0) {
      for (VkSemaphore s : q.relay_signals) push_sem(s, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0);
      VkSubmitInfo2 relay{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
      relay.flags = batch.flags;  // a relay inside a protected submission stays protected
      relay.waitSemaphoreInfoCount = static_cast<uint32_t>(relay_waits);
      relay.pWaitSemaphoreInfos = &q.out_semaphores[relay_begin];
      relay.signalSemaphoreInfoCount = static_cast<uint32_t>(q.relay_signals.size());
      relay.pSignalSemaphoreInfos = &q.out_semaphores[relay_begin + relay_waits];
      q.out_submits.push_back(relay);
      q.out_origin.push_back(nullptr);
    }

    VkSubmitInfo2 out{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    out.flags = batch.flags;
    const std::size_t wait_begin = q.out_semaphores.size();
    for (std::size_t i = 0; i < batch.waits.size(); ++i) {
      if (q.wait_semaphores[i] != VK_NULL_HANDLE) {
        push_sem(q.wait_semaphores[i], batch.waits[i].stage, batch.waits[i].device_index);
      }
    }
    out.waitSemaphoreInfoCount = static_cast<uint32_t>(q.out_semaphores.size() - wait_begin);
    out.pWaitSemaphoreInfos = q.out_semaphores.data() + wait_begin;
    const std::size_t cmd_begin = q.out_commands.size();
    q.out_commands.insert(q.out_commands.end(), batch.commands.begin(), batch.commands.end());
    out.commandBufferInfoCount = static_cast<uint32_t>(batch.commands.size());
    out.pCommandBufferInfos = q.out_commands.data() + cmd_begin;
    const std::size_t signal_begin = q.out_semaphores.size();
    for (const SemOp& sig : batch.signals) {
      if (sig.timeline == nullptr) {
        push_sem(sig.semaphore, sig.stage, sig.device_index);
        continue;
      }
      const VkSemaphore first_spare = TakeSemaphore(q);
      const VkSemaphore direct = TakeSemaphore(q);
      if (first_spare == VK_NULL_HANDLE || direct == VK_NULL_HANDLE) {
        if (first_spare != VK_NULL_HANDLE) q.free_semaphores.push_back(first_spare);
        if (direct != VK_NULL_HANDLE) q.free_semaphores.push_back(direct);
        result = VK_ERROR_OUT_OF_HOST_MEMORY;
        break;
      }
      push_sem(first_spare, sig.stage, sig.device_index);
      push_sem(direct, sig.stage, sig.device_index);
      std::lock_guard<std::mutex> lock(sig.timeline->mutex);
      sig.timeline->points.push_back({sig.value, sub, {first_spare, sub}, direct});
      q.staged.push_back(sig.timeline);
    }
    out.signalSemaphoreInfoCount = static_cast<uint32_t>(q.out_semaphores.size() - signal_begin);
    out.pSignalSemaphoreInfos = q.out_semaphores.data() + signal_begin;
    q.out_submits.push_back(out);
    q.out_origin.push_back(&batch);
  }

  if (result == VK_SUCCESS) result = SendDown(q, route, sub->fence);

  if (result != VK_SUCCESS) {
    // Nothing reached the driver: put every point and spare back as it was.
    for (const SemaphoreRef& s : q.staged) {
      std::lock_guard<std::mutex> lock(s->mutex);
      for (auto it = s->points.begin(); it != s->points.end();) {
        if (it->submission == sub) {
          if (it->spare.signaller == sub) q.free_semaphores.push_back(it->spare.semaphore);
          if (it->direct != VK_NULL_HANDLE) q.free_semaphores.push_back(it->direct);
          it = s->points.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto it = q.undo.rbegin(); it != q.undo.rend(); ++it) {
      std::lock_guard<std::mutex> lock(it->semaphore->mutex);
      for (TimePoint& p : it->semaphore->points) {
        if (p.spare.semaphore == it->new_spare) {
          p.spare = it->old;
          q.free_semaphores.push_back(it->new_spare);
        }
      }
    }
    for (const QueueTimelines::UndoDirect& u : q.undo_direct) {
      std::lock_guard<std::mutex> lock(u.semaphore->mutex);
      for (TimePoint& p : u.semaphore->points) {
        if (p.value == u.value && p.direct == VK_NULL_HANDLE) p.direct = u.direct;
      }
    }
    // The semaphores the relays would have signalled for the batches are unsignalled.
    q.free_semaphores.insert(q.free_semaphores.end(), q.rollback_free.begin(), q.rollback_free.end());
    sub->waited.clear();
    q.free_fences.push_back(sub->fence);
    if (result == VK_ERROR_DEVICE_LOST) MarkLost();
    q.staged.clear();
    return result;
  }
  sub->submitted.store(true, std::memory_order_release);
  bool watched = false;
  for (const SemaphoreRef& s : q.staged) watched = watched || s->host_waiters.load() != 0;
  if (watched) {
    // A host thread waits on a value this submission signals: have its completion watched
    // now rather than after that waiter wakes to ask for it (q.mutex is held).
    sub->wanted.store(true);
    if (!q.completion_thread.joinable()) {
      q.completion_thread = std::thread(&DeviceTimelines::CompletionThread, this, &q);
    }
    q.completion_wanted.notify_one();
  }
  q.in_flight.push_back(std::move(sub));
  q.staged.clear();
  NotifyChange();
  return VK_SUCCESS;
}

void DeviceTimelines::ParkFence(VkFence fence, int delta) {
  if (fence == VK_NULL_HANDLE) return;
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  uint32_t& n = parked_fences_[fence];
  n = static_cast<uint32_t>(static_cast<int>(n) + delta);
  if (n == 0) parked_fences_.erase(fence);
  parked_fence_count_.store(static_cast<uint32_t>(parked_fences_.size()), std::memory_order_release);
}

bool DeviceTimelines::FenceParked(VkFence fence) {
  if (parked_fence_count_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(parked_fence_mutex_);
  return parked_fences_.count(fence) != 0;
}

VkResult DeviceTimelines::FenceStatus(VkFence fence) {
  // After a loss the fences of dropped parked work never reach the driver: lost, not "not ready".
  if (lost()) return VK_ERROR_DEVICE_LOST;
  if (FenceParked(fence)) return VK_NOT_READY;
  return next.GetFenceStatus(device.handle, fence);
}

VkResult DeviceTimelines::WaitForFences(uint32_t count, const VkFence* fences, VkBool32 all, uint64_t timeout) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const uint64_t seen = Generation();
    uint32_t parked = 0;
    for (uint32_t i = 0; i < count; ++i) parked += FenceParked(fences[i]) ? 1 : 0;
    if (lost()) return VK_ERROR_DEVICE_LOST;
    const uint64_t spent = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    const uint64_t left = timeout == UINT64_MAX ? UINT64_MAX : (spent >= timeout ? 0 : timeout - spent);
    if (parked == 0 || (!all && parked < count)) {
      // Every fence (or, for wait-any, at least one) is the driver's now. For wait-any the
      // parked ones are left out: they cannot signal before they are submitted.
      if (parked == 0) return next.WaitForFences(device.handle, count, fences, all, left);
      std::vector<VkFence> ready;
      for (uint32_t i = 0; i < count; ++i) {
        if (!FenceParked(fences[i])) ready.push_back(fences[i]);
      }
      const VkResult r = next.WaitForFences(device.handle, static_cast<uint32_t>(ready.size()), ready.data(), VK_FALSE,
                                            std::min<uint64_t>(left, 2'000'000));
      if (r != VK_TIMEOUT || left <= 2'000'000) return r;
      continue;
    }
    if (left == 0) return VK_TIMEOUT;
    WaitChange(seen, std::min<uint64_t>(left, 50'000'000));
  }
}

void DeviceTimelines::Park(QueueTimelines& q, ParkedWork&& work) {
  for (const Batch& b : work.batches) ParkBinarySignals(b, +1);
  ParkFence(work.fence, +1);
  counters.parked->Add(work.kind == ParkedWork::Kind::kPresent ? 1 : std::max<std::size_t>(work.batches.size(), 1));
  q.parked.push_back(std::move(work));
  if (!q.thread.joinable()) q.thread = std::thread(&DeviceTimelines::SubmitThread, this, &q);
  q.work_parked.notify_one();
  NotifyChange();
}

VkResult DeviceTimelines::Submit(QueueTimelines& q, std::vector<Batch>& batches, std::size_t count, VkFence fence,
                                 Route route) {
  if (lost()) return VK_ERROR_DEVICE_LOST;
  std::lock_guard<std::mutex> lock(q.mutex);
  Sweep(q);
  std::size_t ready = 0;
  if (q.parked.empty()) {
    q.local_signals.clear();
    q.local_binary.clear();
    q.release_list.clear();
    while (ready < count && BatchReady(q, batches[ready])) q.release_list.push_back(&batches[ready++]);
    if (ready != 0) {
      const VkResult r = Release(q, q.release_list.data(), ready, route);
      if (r != VK_SUCCESS) return r;
    }
    if (ready == count) return fence != VK_NULL_HANDLE ? SubmitFence(q, fence, route) : VK_SUCCESS;
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
  Park(q, std::move(work));
  return VK_SUCCESS;
}

void DeviceTimelines::DrainParked(QueueTimelines& q) {
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
      for (VkSemaphore s : w.present->waits()) {
        if (BinaryParked(s)) return;
      }
      const VkResult r = next.QueuePresentKHR(q.queue, &w.present->info());
      if (r == VK_ERROR_DEVICE_LOST) MarkLost();
      if (r != VK_SUCCESS) q.deferred_present_result = r;
      for (VkFence f : w.present->fences()) ParkFence(f, -1);
      q.parked.pop_front();
      NotifyChange();  // fence waiters: the present's fences are the driver's now
      continue;
    }
    // Every ready batch of this work and of the submit works after it (same entry point)
    // goes down in one driver call: one host signal that releases many parked submissions
    // costs one vkQueueSubmit. A work with its own fence ends the call (the fence goes down
    // right after its batches).
    q.local_signals.clear();
    q.local_binary.clear();
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
    if (!q.release_list.empty()) r = Release(q, q.release_list.data(), q.release_list.size(), route);
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
    for (std::size_t i = 0; i < whole; ++i) {
      ParkedWork& x = q.parked.front();
      if (x.fence != VK_NULL_HANDLE) {
        SubmitFence(q, x.fence, x.route);
        ParkFence(x.fence, -1);
        NotifyChange();
      }
      q.parked.pop_front();
    }
    if (waiting) return;  // the first work not wholly ready is still waiting
  }
  q.idle.notify_all();
}

void DeviceTimelines::SubmitThread(QueueTimelines* q) {
  std::unique_lock<std::mutex> lock(q->mutex);
  while (!stopping_.load()) {
    if (q->parked.empty()) {
      // Nothing to release: sleep until work is parked, so that the change signal of
      // every submission and host signal does not wake this thread for nothing.
      q->work_parked.wait_for(lock, std::chrono::milliseconds(100));
      continue;
    }
    const uint64_t seen = Generation();
    DrainParked(*q);
    if (q->parked.empty()) continue;
    lock.unlock();
    WaitChange(seen, 100'000'000);
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
  Park(q, std::move(work));
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

}  // namespace bindery::timeline
