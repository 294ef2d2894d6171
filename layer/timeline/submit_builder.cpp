// The steps of a release (see submit_builder.h). Locks: the queue's mutex is held by the
// caller; each semaphore's mutex is taken around the reads and changes of its points.
#include "timeline/submit_builder.h"

#include "timeline/timeline_device.h"

namespace bindery::timeline {

VkResult SubmitBuilder::Release(const Batch* const* batches, std::size_t count, Route route, bool caller_releases) {
  VkResult r = Begin(batches, count);
  if (r == VK_SUCCESS) PushUnsignal();
  for (std::size_t b = 0; b < count && r == VK_SUCCESS; ++b) {
    r = CollectWaits(*batches[b]);
    if (r == VK_SUCCESS) r = PushBatch(*batches[b]);
  }
  if (r == VK_SUCCESS) r = SendDown(route);
  if (r != VK_SUCCESS) {
    RollBack(r);
    return r;
  }
  Commit(caller_releases);
  return VK_SUCCESS;
}

VkResult SubmitBuilder::Begin(const Batch* const* batches, std::size_t count) {
  sub_ = device_.TakeSubmission(queue_);
  unsignal_.clear();
  {
    // Waited a batch at a time: a wait costs the driver something per batch too (lavapipe
    // 22.3 pays more for a batch with binary waits than for a create and a destroy).
    constexpr std::size_t kUnsignalBatch = 16;
    std::lock_guard<std::mutex> lock(queue_.spent_mutex);
    if (queue_.spent.size() >= kUnsignalBatch) {
      unsignal_.insert(unsignal_.end(), queue_.spent.begin(), queue_.spent.end());
      queue_.spent.clear();
    }
  }
  std::size_t sem_need = unsignal_.size(), cmd_need = 0;
  for (std::size_t b = 0; b < count; ++b) {
    // Per timeline wait: the relay waits 1, signals 2, the batch waits 1.
    // Per timeline signal: the spare and the direct semaphore.
    sem_need += batches[b]->waits.size() * 4 + batches[b]->signals.size() * 2;
    cmd_need += batches[b]->commands.size();
  }
  submits_.clear();
  origin_.clear();
  semaphores_.clear();
  commands_.clear();
  staged_.clear();
  relayed_.clear();
  taken_direct_.clear();
  relay_outputs_.clear();
  // Reserved up front: the submit infos point into these arrays as they are built.
  submits_.reserve(2 * count + 1);
  semaphores_.reserve(sem_need);
  commands_.reserve(cmd_need);
  sub_->fence = device_.TakeFence(queue_);
  return sub_->fence != VK_NULL_HANDLE ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

void SubmitBuilder::PushUnsignal() {
  if (unsignal_.empty()) return;
  const std::size_t begin = semaphores_.size();
  for (VkSemaphore s : unsignal_) {
    PushSemaphore(s, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0);
    sub_->waited.push_back(s);
  }
  // A batch of its own, first in the call: it waits only signals that are complete, so it
  // holds nothing back; the application's batches do not see these waits.
  VkSubmitInfo2 info{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
  info.waitSemaphoreInfoCount = static_cast<uint32_t>(unsignal_.size());
  info.pWaitSemaphoreInfos = &semaphores_[begin];
  submits_.push_back(info);
  origin_.push_back(nullptr);
}

void SubmitBuilder::PushSemaphore(VkSemaphore s, VkPipelineStageFlags2 stage, uint32_t device_index) {
  VkSemaphoreSubmitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
  info.semaphore = s;
  info.stageMask = stage;
  info.deviceIndex = device_index;
  semaphores_.push_back(info);
}

bool SubmitBuilder::TakePair(VkSemaphore* a, VkSemaphore* b) {
  *a = device_.TakeSemaphore(queue_);
  *b = device_.TakeSemaphore(queue_);
  if (*a != VK_NULL_HANDLE && *b != VK_NULL_HANDLE) return true;
  if (*a != VK_NULL_HANDLE) queue_.free_semaphores.push_back(*a);
  if (*b != VK_NULL_HANDLE) queue_.free_semaphores.push_back(*b);
  return false;
}

VkResult SubmitBuilder::CollectWaits(const Batch& batch) {
  wait_semaphores_.assign(batch.waits.size(), VK_NULL_HANDLE);
  relay_signals_.clear();
  const std::size_t relay_begin = semaphores_.size();
  for (std::size_t i = 0; i < batch.waits.size(); ++i) {
    const SemOp& w = batch.waits[i];
    if (w.timeline == nullptr) {
      wait_semaphores_[i] = w.semaphore;
      continue;
    }
    const VkResult r = WaitOnPoint(w, &wait_semaphores_[i]);
    if (r != VK_SUCCESS) return r;
  }
  PushRelay(batch, relay_begin);
  return VK_SUCCESS;
}

VkResult SubmitBuilder::WaitOnPoint(const SemOp& w, VkSemaphore* out) {
  TimelineSemaphore& s = *w.timeline;
  std::lock_guard<std::mutex> lock(s.mutex);
  device_.Retire(s, false);
  if (s.value >= w.value) return VK_SUCCESS;  // reached: nothing to wait for
  TimePoint* p = device_.LowestPending(s, w.value, sub_.get());
  // Not pending: cannot follow a readiness check that found it ready (points only leave
  // by being reached, seen above); not ready rather than a wait on nothing.
  if (p == nullptr) return VK_NOT_READY;
  switch (DeviceTimelines::DeviceUse(*p, sub_.get())) {
    case DeviceTimelines::PointUse::kDirect:
      // The first device waiter of the point: its own semaphore, no relay batch.
      *out = p->direct;
      sub_->waited.push_back(p->direct);
      taken_direct_.push_back({&s, p->value, p->direct});
      p->direct = VK_NULL_HANDLE;
      return VK_SUCCESS;
    case DeviceTimelines::PointUse::kBeingRelayed:
      // Another queue relays its spare in a call it has not sent down yet (it dropped this
      // lock before its driver call). Not ready, not an error: its commit bumps the change.
      return VK_NOT_READY;
    case DeviceTimelines::PointUse::kNeedsCompletion:
      // A second waiter of a point that got no spare (this call signals it, or another
      // took its direct semaphore since the readiness check). Later points of the
      // semaphore get spares; nothing goes down now and the caller looks again at once
      // (RollBack bumps the change): a point of this call is then staged with a spare, one
      // of the driver's is waited for until it completes (DeviceTimelines::WaitReady).
      device_.NeedsRelays(s);
      retry_ = true;
      return VK_NOT_READY;
    case DeviceTimelines::PointUse::kRelay:
      break;
  }
  VkSemaphore for_batch = VK_NULL_HANDLE, new_spare = VK_NULL_HANDLE;
  if (!TakePair(&for_batch, &new_spare)) return VK_ERROR_OUT_OF_HOST_MEMORY;
  PushSemaphore(p->spare.semaphore, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0);
  relay_signals_.push_back(for_batch);
  relay_signals_.push_back(new_spare);
  relayed_.push_back({&s, new_spare, p->spare});
  sub_->waited.push_back(p->spare.semaphore);
  sub_->waited.push_back(for_batch);
  relay_outputs_.push_back(for_batch);
  p->spare = {new_spare, sub_};
  *out = for_batch;
  device_.counters.relays->Add();
  return VK_SUCCESS;
}

void SubmitBuilder::PushRelay(const Batch& batch, std::size_t relay_begin) {
  const std::size_t relay_waits = semaphores_.size() - relay_begin;
  if (relay_waits == 0) return;
  for (VkSemaphore s : relay_signals_) PushSemaphore(s, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0);
  VkSubmitInfo2 relay{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
  relay.flags = batch.flags;  // a relay inside a protected submission stays protected
  relay.waitSemaphoreInfoCount = static_cast<uint32_t>(relay_waits);
  relay.pWaitSemaphoreInfos = &semaphores_[relay_begin];
  relay.signalSemaphoreInfoCount = static_cast<uint32_t>(relay_signals_.size());
  relay.pSignalSemaphoreInfos = &semaphores_[relay_begin + relay_waits];
  submits_.push_back(relay);
  origin_.push_back(nullptr);
}

VkResult SubmitBuilder::PushBatch(const Batch& batch) {
  VkSubmitInfo2 out{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
  out.pNext = batch.chain != nullptr ? batch.chain->head() : nullptr;
  out.flags = batch.flags;
  const std::size_t wait_begin = semaphores_.size();
  for (std::size_t i = 0; i < batch.waits.size(); ++i) {
    if (wait_semaphores_[i] != VK_NULL_HANDLE) {
      PushSemaphore(wait_semaphores_[i], batch.waits[i].stage, batch.waits[i].device_index);
    }
  }
  out.waitSemaphoreInfoCount = static_cast<uint32_t>(semaphores_.size() - wait_begin);
  out.pWaitSemaphoreInfos = semaphores_.data() + wait_begin;
  const std::size_t cmd_begin = commands_.size();
  commands_.insert(commands_.end(), batch.commands.begin(), batch.commands.end());
  out.commandBufferInfoCount = static_cast<uint32_t>(batch.commands.size());
  out.pCommandBufferInfos = commands_.data() + cmd_begin;
  const VkResult r = StageSignals(batch, out);
  if (r != VK_SUCCESS) return r;
  submits_.push_back(out);
  origin_.push_back(&batch);
  return VK_SUCCESS;
}

VkResult SubmitBuilder::StageSignals(const Batch& batch, VkSubmitInfo2& out) {
  const std::size_t signal_begin = semaphores_.size();
  for (const SemOp& sig : batch.signals) {
    if (sig.timeline == nullptr) {
      PushSemaphore(sig.semaphore, sig.stage, sig.device_index);
      continue;
    }
    // Every point gets its direct semaphore; a spare only on a semaphore that has needed
    // one (a second device waiter of a point): each binary signal costs the driver (about
    // 2 us per submit on the H100's), and most points have one device waiter at most.
    bool spare_needed;
    {
      std::lock_guard<std::mutex> lock(sig.timeline->mutex);
      spare_needed = sig.timeline->relays;
    }
    VkSemaphore direct = VK_NULL_HANDLE, first_spare = VK_NULL_HANDLE;
    if (spare_needed) {
      if (!TakePair(&direct, &first_spare)) return VK_ERROR_OUT_OF_HOST_MEMORY;
    } else {
      direct = device_.TakeSemaphore(queue_);
      if (direct == VK_NULL_HANDLE) return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    PushSemaphore(direct, sig.stage, sig.device_index);
    if (first_spare != VK_NULL_HANDLE) PushSemaphore(first_spare, sig.stage, sig.device_index);
    const SubmissionRef spare_signaller = first_spare != VK_NULL_HANDLE ? sub_ : nullptr;
    std::lock_guard<std::mutex> lock(sig.timeline->mutex);
    sig.timeline->points.push_back({sig.value, sub_, {first_spare, spare_signaller}, direct});
    staged_.push_back(sig.timeline);
  }
  out.signalSemaphoreInfoCount = static_cast<uint32_t>(semaphores_.size() - signal_begin);
  out.pSignalSemaphoreInfos = semaphores_.data() + signal_begin;
  return VK_SUCCESS;
}

void SubmitBuilder::Commit(bool caller_releases) {
  sub_->submitted.store(true, std::memory_order_release);
  // A host thread already waiting on a value this call signals wakes on the change below
  // and, finding the point pending, blocks on this submission's fence itself.
  queue_.in_flight.push_back(std::move(sub_));
  // Submit threads not told: this queue's (the thread committing has this queue's mutex and
  // looks at its parked work in the same pass, DrainParked, or it has none, SubmitLocked),
  // and, when the caller releases them itself, those of the queues whose parked work waits
  // on a semaphore this call signals (a queue that parks on one after this read finds the
  // point pending, or sees the change signal moved past what it listens from: Park).
  uint64_t released_by_caller = 0;
  if (caller_releases) {
    for (const SemaphoreRef& s : staged_) released_by_caller |= s->parked_queues.load(std::memory_order_acquire);
  }
  staged_.clear();
  device_.NotifyChange(true, &queue_, released_by_caller);
}

void SubmitBuilder::RollBack(VkResult why) {
  // Nothing reached the driver: put every point and spare back as it was.
  const bool visible = !staged_.empty() || !relayed_.empty() || !taken_direct_.empty() || retry_;
  retry_ = false;
  for (const SemaphoreRef& s : staged_) {
    std::lock_guard<std::mutex> lock(s->mutex);
    for (auto it = s->points.begin(); it != s->points.end();) {
      if (it->submission != sub_) {
        ++it;
        continue;
      }
      if (it->spare.signaller == sub_) queue_.free_semaphores.push_back(it->spare.semaphore);
      if (it->direct != VK_NULL_HANDLE) queue_.free_semaphores.push_back(it->direct);
      it = s->points.erase(it);
    }
  }
  for (auto it = relayed_.rbegin(); it != relayed_.rend(); ++it) {
    std::lock_guard<std::mutex> lock(it->semaphore->mutex);
    for (TimePoint& p : it->semaphore->points) {
      if (p.spare.semaphore == it->new_spare) {
        p.spare = it->old;
        queue_.free_semaphores.push_back(it->new_spare);
      }
    }
  }
  for (const TakenDirect& t : taken_direct_) {
    std::lock_guard<std::mutex> lock(t.semaphore->mutex);
    for (TimePoint& p : t.semaphore->points) {
      if (p.value == t.value && p.direct == VK_NULL_HANDLE) p.direct = t.direct;
    }
  }
  // The semaphores the relays would have signalled for the batches are unsignalled.
  queue_.free_semaphores.insert(queue_.free_semaphores.end(), relay_outputs_.begin(), relay_outputs_.end());
  // Those this call was to unsignal still are signalled: the next call takes them.
  if (!unsignal_.empty()) {
    std::lock_guard<std::mutex> lock(queue_.spent_mutex);
    queue_.spent.insert(queue_.spent.end(), unsignal_.begin(), unsignal_.end());
    unsignal_.clear();
  }
  sub_->waited.clear();
  if (sub_->fence != VK_NULL_HANDLE) queue_.free_fences.push_back(sub_->fence);
  sub_.reset();
  staged_.clear();
  if (why == VK_ERROR_DEVICE_LOST) device_.MarkLost();
  // Another queue may have found a point not ready because of what this call took: it
  // looks again (and so does this one's submit thread after a point without a spare).
  if (visible) device_.NotifyChange();
}

}  // namespace bindery::timeline
