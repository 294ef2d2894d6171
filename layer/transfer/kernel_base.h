// What the buffer kernels (transfer/kernels.h) and the image kernels
// (transfer/image_kernels.h) share: the device and the next table they record through, the
// staging their parameter records come from (a dispatch names its record by its base
// workgroup, so every pipeline takes VK_PIPELINE_CREATE_DISPATCH_BASE_BIT), the
// TransferCommandData slot of each command buffer, vkCmdDispatchBase, the pipeline layout,
// and the steps that begin their Build, create a kernel's pipeline and end their lifetime.
#pragma once

#include <cstddef>
#include <cstdint>

#include <vulkan/vulkan.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vk_layer_dispatch_table.h>

namespace bindery {
struct DeviceState;
}

namespace bindery::transfer {

class StagingPool;

class KernelBase {
 public:
  KernelBase(const KernelBase&) = delete;
  KernelBase& operator=(const KernelBase&) = delete;

  bool Ready() const { return ready_; }

 protected:
  KernelBase(DeviceState& device, const VkLayerDispatchTable& next) : device_(device), next_(next) {}
  ~KernelBase() = default;

  // The first step of Build: not ready until Build ends; remembers `staging` and the slot;
  // picks vkCmdDispatchBase (core 1.1, or VK_KHR_device_group's: kernels need device
  // addresses, which below Vulkan 1.2 come from VK_KHR_buffer_device_address, which needs
  // VK_KHR_device_group below 1.1, so one of the two is always there) and takes staging's
  // block directory address for the kernels' specialization. False where kernels cannot
  // run (no dispatch base, no directory).
  bool BeginBuild(StagingPool& staging, uint32_t command_data_slot);

  // Creates the kernel `code` as a compute pipeline of layout_ (its module into *module
  // first, unless made before), with VK_PIPELINE_CREATE_DISPATCH_BASE_BIT and the block
  // directory's address as specialization constants 0 and 1. False where the driver
  // refused either.
  bool CreatePipeline(const uint32_t* code, std::size_t bytes, VkShaderModule* module, VkPipeline* pipeline) const;

  // The last step of the destructor, after the pipelines: the modules made and the
  // pipeline layout.
  void DestroyModulesAndLayout(const VkShaderModule* modules, std::size_t count) const;

  DeviceState& device_;
  const VkLayerDispatchTable& next_;
  bool ready_ = false;
  StagingPool* staging_ = nullptr;
  uint32_t command_data_slot_ = 0;
  PFN_vkCmdDispatchBase dispatch_base_ = nullptr;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  uint32_t directory_words_[2] = {};  // staging's block directory address, low word first
};

}  // namespace bindery::transfer
