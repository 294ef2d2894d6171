// tests/shaders/scale_add.comp as the integration tests use it: an application's compute
// pipeline (out[i] = in[i] * params[0] + (i ^ params[1]) for i < params[2]) whose bound
// state a layer must leave alone. The tests differ in what they record around the binds.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "scale_add_comp.h"
#include "support/vk_harness.h"

namespace bindery::test {

struct ScaleAddKernel {
  ComputeKernel kernel;
  VkDescriptorSet set = VK_NULL_HANDLE;  // binding 0 `in`, binding 1 `out`; null if allocation failed
};

// The kernel (two storage buffers, 12 bytes of push constants) and its set over in -> out.
inline ScaleAddKernel CreateScaleAdd(VkHarness& h, VkBuffer in, VkBuffer out) {
  ScaleAddKernel s;
  s.kernel = h.CreateKernel(scale_add_comp, sizeof(scale_add_comp), 2, 12);
  s.set = h.AllocateStorageSet(s.kernel, {in, out});
  return s;
}

// What an application binds before dispatching it: the pipeline, the set and the three
// push constants {scale, xor mask, element count}.
inline void BindScaleAdd(VkCommandBuffer cb, const ScaleAddKernel& s, const uint32_t (&params)[3]) {
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.kernel.pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, s.kernel.layout, 0, 1, &s.set, 0, nullptr);
  vkCmdPushConstants(cb, s.kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), params);
}

}  // namespace bindery::test
