// The transfers capability on one device: its policy, staging, kernels and counters.
// Written as a layer of its own (see chassis/capability.h): it calls down through
// `next`, and reads the chassis's shared trackers for buffer sizes, addresses and the
// command state it must put back after a kernel.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <vulkan/vulkan.h>

#include "chassis/capability.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "transfer/kernels.h"
#include "transfer/policy.h"
#include "transfer/small_writes.h"
#include "transfer/staging.h"

namespace bindery::transfer {

// Decided before vkCreateDevice.
class TransferPlan : public DevicePlan {
 public:
  Policy policy;
  bool kernels = false;  // bufferDeviceAddress is on and the policy uses kernels
  const char* why_no_kernels = nullptr;
  // The application enabled VK_BINDERY_transfer_any_alignment: VK_WHOLE_SIZE fills reach
  // the last byte even from aligned offsets (vk_bindery.h).
  bool any_alignment = false;
  // Queued small writes may wait past barriers that only make transfer commands wait
  // (transfer/small_write_barriers.h): off where the application enabled an extension with
  // transfer commands this capability does not hook.
  bool cross_barriers = true;
  // The device is made of several physical devices (VkDeviceGroupDeviceCreateInfo): no
  // kernels, staging from heaps with one instance (DeviceGroupKeepsKernelsOff).
  bool device_group = false;
};

// Why kernels stay off on a device made of `physical_devices` physical devices (nullptr:
// they may run). Their buffer addresses need bufferDeviceAddressMultiDevice there, and
// their parameter records, written by the host into staging, would need one memory
// instance per physical device; vkCmdSetDeviceMask itself needs nothing (docs/transfers.md).
const char* DeviceGroupKeepsKernelsOff(uint32_t physical_devices);

class DeviceTransfers : public CapabilityDevice {
 public:
  DeviceTransfers(DeviceState& device, const TransferPlan& plan, const VkLayerDispatchTable& next);
  ~DeviceTransfers() override;

  // Compute kernels can run on this device (addresses enabled, policy uses them, and the
  // pipelines were built).
  bool KernelsPossible() const { return kernels_possible_; }
  // Small unaligned fills and updates are coalesced here (transfer/small_writes.h).
  bool small_writes() const { return kernels_possible_ && policy.small_write_max != 0; }
  // Whether a kernel may be recorded in this command buffer now (CommandState::
  // CanRecordComputeWork: its compute state can be put back, and no active query would count
  // the dispatch). The first time a query is why not, the device's log says so once.
  bool ComputeAllowedIn(const CommandState& state) {
    if (state.CanRecordComputeWork()) return true;
    if (state.DispatchesCounted() && !query_fallback_logged_.load(std::memory_order_relaxed)) LogQueryFallback();
    return false;
  }
  Trackers& trackers() const { return *device.trackers; }

  DeviceState& device;
  const VkLayerDispatchTable& next;
  const Policy policy;
  const bool any_alignment;  // TransferPlan::any_alignment
  const bool cross_barriers;  // TransferPlan::cross_barriers
  Kernels kernels;
  StagingPool staging;

  struct Counters {
    Counter* polyfilled;
    Counter* passed_through;
    Counter* kernels;
    Counter* edge_copies;
  } counters;

 private:
  void LogQueryFallback();
  bool kernels_possible_ = false;
  std::atomic<bool> query_fallback_logged_{false};
};

// What a command buffer holds for transfers: its staging, and the first error met while
// recording (returned by vkEndCommandBuffer instead of dropping work).
class TransferCommandData : public CommandData {
 public:
  // `small_writes`: the device coalesces small writes (the pending list is made here, at
  // allocation, never while recording).
  TransferCommandData(StagingPool& pool, bool small_writes)
      : pending(small_writes ? std::make_unique<PendingWrites>() : nullptr), pool_(pool) {}
  ~TransferCommandData() override { arena.ReleaseAll(pool_); }
  void OnReset() override {
    if (pending != nullptr) pending->Clear();
    arena.ReleaseAll(pool_);
    error = VK_SUCCESS;
  }
  VkResult RecordingError() const override { return error; }

  // Records the first error (later ones do not replace it).
  void Fail(VkResult result) {
    if (error == VK_SUCCESS) error = result;
  }

  std::unique_ptr<PendingWrites> pending;  // null where the device does not coalesce
  StagingArena arena;
  VkResult error = VK_SUCCESS;

 private:
  StagingPool& pool_;
};

}  // namespace bindery::transfer
