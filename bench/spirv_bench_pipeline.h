// Lavapipe's native compute pipeline creation for a module, the yardstick for the rewrite's
// cost: a device with every feature the driver offers (no layers, no validation: timing
// only) and a pipeline layout built from Inspect.
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

 private:
  struct Layout {
    std::string entry;
    std::vector<VkDescriptorSetLayout> sets;
    VkPipelineLayout layout = VK_NULL_HANDLE;
  };
  std::string error_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  std::map<std::string, Layout> layouts_;
};

}  // namespace bindery::bench
