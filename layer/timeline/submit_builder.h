// Builds the one driver call that releases a run of batches on a queue, in named steps
// (the life of a release, in order):
//   Begin         a submission record with the layer's fence for the call, and a first
//                 batch that unsignals the queue's spent semaphores (once 16 gathered);
//   CollectWaits  per batch: each timeline wait becomes the point's direct semaphore or a
//                 relay batch (waits the point's spare, signals one semaphore for the
//                 batch and a fresh spare);
//   StageSignals  per batch: each timeline signal becomes a new point of its semaphore
//                 with a fresh binary semaphore (its direct one), and a spare too on a
//                 semaphore that has needed relays (TimelineSemaphore::relays);
//   SendDown      the built VkSubmitInfo2 list goes down in the form of the application's
//                 entry point (submit_builder_forms.cpp);
//   Commit        the points become pending, the submission in flight;
//   RollBack      nothing reached the driver: every point, spare and direct semaphore
//                 taken is put back as it was.
// A wait whose lowest pending point is being relayed by a submission another queue has
// not sent down yet is not ready: the release returns VK_NOT_READY with nothing sent, and
// the caller parks the batches until the next change. So is a second waiter of a point
// without a spare: the semaphore's points get spares from then on, and the waiter waits
// until that point is complete (or, if this call signals the point, the next look stages
// it with a spare).
//
// One builder per queue, used under the queue's mutex; its vectors are scratch kept from
// one release to the next (no allocation once warm).
#pragma once

#include <cstddef>
#include <vector>

#include <vulkan/vulkan.h>

#include "timeline/batch.h"
#include "timeline/timeline_semaphore.h"

namespace bindery::timeline {

class DeviceTimelines;
struct QueueTimelines;

class SubmitBuilder {
 public:
  SubmitBuilder(DeviceTimelines& device, QueueTimelines& queue) : device_(device), queue_(queue) {}
  SubmitBuilder(const SubmitBuilder&) = delete;
  SubmitBuilder& operator=(const SubmitBuilder&) = delete;

  // Sends `count` batches (in queue order) down as one driver call through `route`.
  // VK_NOT_READY: a wait cannot be met by a submission the driver has (see above);
  // any result but VK_SUCCESS means nothing reached the driver.
  // `caller_releases`: the caller releases, right after, the parked work that waits on the
  // timeline values these batches signal (DeviceTimelines::Submit, through parked_queues),
  // so the submit threads of those queues are not told of the change.
  VkResult Release(const Batch* const* batches, std::size_t count, Route route, bool caller_releases = false);

 private:
  VkResult Begin(const Batch* const* batches, std::size_t count);
  // The queue's spent semaphores (QueueTimelines::spent), waited in a batch of their own.
  void PushUnsignal();
  VkResult CollectWaits(const Batch& batch);
  // One timeline wait: what the batch waits in its place (null: already reached).
  VkResult WaitOnPoint(const SemOp& wait, VkSemaphore* out);
  void PushRelay(const Batch& batch, std::size_t relay_begin);
  VkResult StageSignals(const Batch& batch, VkSubmitInfo2& out);
  VkResult PushBatch(const Batch& batch);  // the batch itself, its signals staged
  VkResult SendDown(Route route);
  VkResult SendSubmit();
  VkResult SendBindSparse();
  void Commit(bool caller_releases);
  void RollBack(VkResult why);

  void PushSemaphore(VkSemaphore s, VkPipelineStageFlags2 stage, uint32_t device_index);
  // Two semaphores from the queue's pool (both or neither).
  bool TakePair(VkSemaphore* a, VkSemaphore* b);

  DeviceTimelines& device_;
  QueueTimelines& queue_;
  SubmissionRef sub_;  // the driver call being built

  // The call in VkSubmitInfo2 form: one entry per relay or application batch.
  std::vector<VkSubmitInfo2> submits_;
  std::vector<const Batch*> origin_;  // per submits_ entry: its batch, null for a relay
  std::vector<VkSemaphoreSubmitInfo> semaphores_;
  std::vector<VkCommandBufferSubmitInfo> commands_;
  // The batch being added: per wait, what goes down in its place (or null).
  std::vector<VkSemaphore> wait_semaphores_;
  std::vector<VkSemaphore> relay_signals_;

  // What RollBack undoes.
  std::vector<SemaphoreRef> staged_;  // semaphores given points by this call
  struct RelayedSpare {
    TimelineSemaphore* semaphore;
    VkSemaphore new_spare;
    Spare old;
  };
  std::vector<RelayedSpare> relayed_;
  struct TakenDirect {
    TimelineSemaphore* semaphore;
    uint64_t value;
    VkSemaphore direct;
  };
  std::vector<TakenDirect> taken_direct_;
  std::vector<VkSemaphore> relay_outputs_;  // unsignalled again if nothing goes down
  std::vector<VkSemaphore> unsignal_;       // spent semaphores this call waits (PushUnsignal)
  // A wait found a point without a spare whose direct semaphore is taken: the caller must
  // look again (RollBack bumps the change signal even if nothing else was visible).
  bool retry_ = false;

  // The vkQueueSubmit and vkQueueBindSparse forms of the same call.
  std::vector<VkSubmitInfo> legacy_submits_;
  std::vector<VkSemaphore> legacy_semaphores_;
  std::vector<VkPipelineStageFlags> legacy_stages_;
  std::vector<VkCommandBuffer> legacy_commands_;
  std::vector<VkProtectedSubmitInfo> legacy_protected_;
  std::vector<VkBindSparseInfo> sparse_infos_;
  std::vector<VkDeviceGroupBindSparseInfo> sparse_groups_;
};

}  // namespace bindery::timeline
