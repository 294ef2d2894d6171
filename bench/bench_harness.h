// What every benchmark device starts from: harness options (Bindery by name or not, never
// the validation layer), the buffer-device-address feature the kernels use, environment
// overrides the layer reads at instance creation, and the device-level entry points the
// recording loops call (from vkGetDeviceProcAddr, as volk or IREE call them: no loader
// trampoline, so with Bindery on the call goes straight into the layer).
#pragma once

#include <cstdlib>
#include <string>

#include <vulkan/vulkan.h>

#include "support/vk_harness.h"

namespace bindery::bench {

// Sets an environment variable while alive (the layer and the drivers read their settings
// when the instance and device are created); restores the old value. Null unsets it.
class EnvOverride {
 public:
  EnvOverride(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvOverride() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// Harness options of a benchmark device: Bindery by name or not, never validation.
inline test::HarnessOptions BenchHarnessOptions(bool bindery, const void* device_pnext = nullptr) {
  test::HarnessOptions o;
  o.bindery = bindery;
  o.validation = false;  // never measure the validation layer
  o.device_pnext = device_pnext;
  return o;
}

// bufferDeviceAddress on (core in 1.3): the kernels with buffer references need it.
inline VkPhysicalDeviceBufferDeviceAddressFeatures BdaFeatures() {
  VkPhysicalDeviceBufferDeviceAddressFeatures f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
  f.bufferDeviceAddress = VK_TRUE;
  return f;
}

template <typename Fn>
bool LoadDeviceFn(VkDevice device, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(vkGetDeviceProcAddr(device, name));
  return *out != nullptr;
}

// The entry points of the descriptor-set recording loops.
struct RecordFns {
  PFN_vkResetCommandPool ResetCommandPool = nullptr;
  PFN_vkBeginCommandBuffer BeginCommandBuffer = nullptr;
  PFN_vkEndCommandBuffer EndCommandBuffer = nullptr;
  PFN_vkResetDescriptorPool ResetDescriptorPool = nullptr;
  PFN_vkAllocateDescriptorSets AllocateDescriptorSets = nullptr;
  PFN_vkUpdateDescriptorSets UpdateDescriptorSets = nullptr;
  PFN_vkCmdBindPipeline CmdBindPipeline = nullptr;
  PFN_vkCmdBindDescriptorSets CmdBindDescriptorSets = nullptr;
  PFN_vkCmdPushConstants CmdPushConstants = nullptr;
  PFN_vkCmdDispatch CmdDispatch = nullptr;
};

inline bool LoadRecordFns(VkDevice d, RecordFns* fn) {
  return LoadDeviceFn(d, "vkResetCommandPool", &fn->ResetCommandPool) &&
         LoadDeviceFn(d, "vkBeginCommandBuffer", &fn->BeginCommandBuffer) &&
         LoadDeviceFn(d, "vkEndCommandBuffer", &fn->EndCommandBuffer) &&
         LoadDeviceFn(d, "vkResetDescriptorPool", &fn->ResetDescriptorPool) &&
         LoadDeviceFn(d, "vkAllocateDescriptorSets", &fn->AllocateDescriptorSets) &&
         LoadDeviceFn(d, "vkUpdateDescriptorSets", &fn->UpdateDescriptorSets) &&
         LoadDeviceFn(d, "vkCmdBindPipeline", &fn->CmdBindPipeline) &&
         LoadDeviceFn(d, "vkCmdBindDescriptorSets", &fn->CmdBindDescriptorSets) &&
         LoadDeviceFn(d, "vkCmdPushConstants", &fn->CmdPushConstants) &&
         LoadDeviceFn(d, "vkCmdDispatch", &fn->CmdDispatch);
}

// The entry points of the transfer and timestamp workloads.
struct TransferCmdFns {
  PFN_vkCmdPipelineBarrier CmdPipelineBarrier = nullptr;
  PFN_vkCmdFillBuffer CmdFillBuffer = nullptr;
  PFN_vkCmdUpdateBuffer CmdUpdateBuffer = nullptr;
  PFN_vkCmdCopyBuffer CmdCopyBuffer = nullptr;
  PFN_vkCmdWriteTimestamp CmdWriteTimestamp = nullptr;
  PFN_vkCmdResetQueryPool CmdResetQueryPool = nullptr;
  PFN_vkQueueSubmit QueueSubmit = nullptr;
};

inline bool LoadTransferCmdFns(VkDevice d, TransferCmdFns* fn) {
  return LoadDeviceFn(d, "vkCmdPipelineBarrier", &fn->CmdPipelineBarrier) &&
         LoadDeviceFn(d, "vkCmdFillBuffer", &fn->CmdFillBuffer) &&
         LoadDeviceFn(d, "vkCmdUpdateBuffer", &fn->CmdUpdateBuffer) &&
         LoadDeviceFn(d, "vkCmdCopyBuffer", &fn->CmdCopyBuffer) &&
         LoadDeviceFn(d, "vkCmdWriteTimestamp", &fn->CmdWriteTimestamp) &&
         LoadDeviceFn(d, "vkCmdResetQueryPool", &fn->CmdResetQueryPool) &&
         LoadDeviceFn(d, "vkQueueSubmit", &fn->QueueSubmit);
}

// A command pool of `family` without RESET_COMMAND_BUFFER (the loops reset the whole
// pool) and one primary command buffer of it. Empty on success, else what failed.
inline std::string CreatePoolAndCommandBuffer(VkDevice d, uint32_t family, VkCommandPool* pool, VkCommandBuffer* cb) {
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = family;
  if (vkCreateCommandPool(d, &cpci, nullptr, pool) != VK_SUCCESS) return "vkCreateCommandPool failed";
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = *pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  if (vkAllocateCommandBuffers(d, &cbai, cb) != VK_SUCCESS) return "vkAllocateCommandBuffers failed";
  return "";
}

}  // namespace bindery::bench
