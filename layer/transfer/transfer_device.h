// Per-device state of the transfers capability.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "core/handle_map.h"
#include "core/state.h"
#include "transfer/command_state.h"
#include "transfer/kernels.h"
#include "transfer/policy.h"
#include "transfer/staging.h"

namespace bindery {
class ChainEditor;
struct InstanceState;
}

namespace bindery::transfer {

struct BufferInfo {
  VkDeviceSize size = 0;
  bool wants_address = false;  // created with SHADER_DEVICE_ADDRESS usage (ours or the app's)
  VkDeviceAddress address = 0;  // known once bound to memory that allows it
};

struct MemoryInfo {
  bool device_address = false;  // allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
};

// Decided before vkCreateDevice; kept alive across the call (it owns a struct the
// edited create-info chain may point at).
struct DevicePlan {
  bool active = false;
  Policy policy;
  bool device_address = false;  // bufferDeviceAddress will be enabled on the device
  const char* why_no_kernels = nullptr;
  VkPhysicalDeviceBufferDeviceAddressFeatures address_features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES};
};

// Fills `plan` and edits the device create info (chain and extension list) for it.
void PlanDevice(InstanceState& instance, VkPhysicalDevice physical_device, ChainEditor& chain,
                std::vector<const char*>& extensions, DevicePlan& plan);

class DeviceTransfers : public DeviceCapability {
 public:
  DeviceTransfers(DeviceState& device, const DevicePlan& plan);
  ~DeviceTransfers() override;

  // Compute kernels can run on this device, so the application's compute state is
  // tracked (pipeline, push constants, conditional rendering) to be restored after them.
  bool KernelsPossible() const { return device_address && policy.UsesKernels(); }

  DeviceState& device;
  const Policy policy;
  const bool device_address;
  uint32_t max_push_constant_bytes = 128;
  std::vector<VkQueueFamilyProperties> families;
  Kernels kernels;
  StagingPool staging;
  ShardedHandleMap<VkBuffer, BufferInfo> buffers;
  ShardedHandleMap<VkDeviceMemory, MemoryInfo> memories;
  ShardedHandleMap<VkCommandPool, PoolInfo> pools;
  ShardedHandleMap<VkCommandBuffer, CommandState> commands;

  // The state of a command buffer being recorded. Recording is single-threaded per
  // command buffer and a thread records many commands into one in a row, so a
  // per-thread cache of the last answer skips the map on the record path; it is
  // invalidated whenever any command buffer state is erased (ForgetCommand).
  CommandState* FindCommand(VkCommandBuffer cb);
  std::unique_ptr<CommandState> ForgetCommand(VkCommandBuffer cb);
};

}  // namespace bindery::transfer
