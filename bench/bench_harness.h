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

// Entry-point tables as X-macro lists: BINDERY_BENCH_FN_FIELD declares one PFN member,
// BINDERY_BENCH_FN_LOAD loads it (and clears `ok` when the device has none).
#define BINDERY_BENCH_FN_FIELD(name) PFN_vk##name name = nullptr;
#define BINDERY_BENCH_FN_LOAD(name) ok = LoadDeviceFn(d, "vk" #name, &fn->name) && ok;

// The entry points of the descriptor-set recording loops.
#define BINDERY_BENCH_RECORD_FNS(X)                                                                     \
  X(ResetCommandPool) X(BeginCommandBuffer) X(EndCommandBuffer) X(ResetDescriptorPool)                   \
  X(AllocateDescriptorSets) X(UpdateDescriptorSets) X(CmdBindPipeline) X(CmdBindDescriptorSets)          \
  X(CmdPushConstants) X(CmdDispatch)
// The entry points of the transfer and timestamp workloads.
#define BINDERY_BENCH_TRANSFER_FNS(X)                                                                   \
  X(CmdPipelineBarrier) X(CmdFillBuffer) X(CmdUpdateBuffer) X(CmdCopyBuffer) X(CmdWriteTimestamp)        \
  X(CmdResetQueryPool) X(QueueSubmit)

struct RecordFns {
  BINDERY_BENCH_RECORD_FNS(BINDERY_BENCH_FN_FIELD)
};
struct TransferCmdFns {
  BINDERY_BENCH_TRANSFER_FNS(BINDERY_BENCH_FN_FIELD)
};

inline bool LoadRecordFns(VkDevice d, RecordFns* fn) {
  bool ok = true;
  BINDERY_BENCH_RECORD_FNS(BINDERY_BENCH_FN_LOAD)
  return ok;
}
inline bool LoadTransferCmdFns(VkDevice d, TransferCmdFns* fn) {
  bool ok = true;
  BINDERY_BENCH_TRANSFER_FNS(BINDERY_BENCH_FN_LOAD)
  return ok;
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
