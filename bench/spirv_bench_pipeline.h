// Lavapipe's native compute pipeline creation for a module, the yardstick for the rewrite's
// cost: a device with every feature the driver offers (no layers, no validation: timing
// only) and a pipeline layout built from Inspect. Lavapipe leaves LLVM code generation to
// the first dispatch, so that is timed too: create, bind one zeroed buffer everywhere,
// dispatch one workgroup, wait, destroy.
#pragma once

#include <map>
#include <string>

#include <vulkan/vulkan.h>

#include "spirv_bench_modules.h"

namespace bindery::bench {

class PipelineTimer {
 public:
  PipelineTimer();
  ~PipelineTimer();
  PipelineTimer(const PipelineTimer&) = delete;
  PipelineTimer& operator=(const PipelineTimer&) = delete;

  const std::string& error() const { return error_; }

  // Builds the pipeline layout for `m` (its first GLCompute entry point); "" on success,
  // else why the module cannot be timed (not compute, a descriptor it cannot describe).
  std::string Prepare(const BenchModule& m);
  // One vkCreateShaderModule + vkCreateComputePipelines + destroy; false on failure.
  bool CreateAndDestroy(const BenchModule& m);
  // Whether CreateDispatchDestroy can run `m` (after Prepare): not when the module follows
  // its own buffer_reference pointers (they would be null here).
  bool CanDispatch(const BenchModule& m) const;
  // Create, one dispatch of one workgroup (the driver compiles), wait, destroy.
  bool CreateDispatchDestroy(const BenchModule& m);

 private:
  struct Layout {
    std::string entry;
    std::vector<VkDescriptorSetLayout> sets;
    std::vector<VkDescriptorSet> descriptor_sets;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    uint32_t push_bytes = 0;
    bool dispatchable = false;
  };
  VkPipeline Create(const BenchModule& m, const Layout& l, VkShaderModule& module);
  std::string error_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;  // 64 KiB of zeros behind every descriptor
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::map<std::string, Layout> layouts_;
};

}  // namespace bindery::bench
