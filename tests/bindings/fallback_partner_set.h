// The descriptor set of fallback_partner.comp (and fallback_refused.comp, which reads the
// same layout): binding 0 the two input buffers, binding 1 the output buffer. Shared by
// the tests that bind those shaders so each writes only what its own checks need.
#pragma once

#include <vulkan/vulkan.h>

#include "support/vk_harness.h"
#include "support/vk_objects.h"

namespace bindery::test {

// Allocates the set of `layout` from `pool` and points it at in0, in1 (binding 0) and out
// (binding 1), whole buffers.
inline VkDescriptorSet WriteFallbackPartnerSet(VkDevice device, VkDescriptorPool pool, VkDescriptorSetLayout layout,
                                               const HostBuffer& in0, const HostBuffer& in1,
                                               const HostBuffer& out) {
  const VkDescriptorSet set = AllocateSet(device, pool, layout);
  const VkDescriptorBufferInfo infos[3] = {
      {in0.buffer, 0, VK_WHOLE_SIZE}, {in1.buffer, 0, VK_WHOLE_SIZE}, {out.buffer, 0, VK_WHOLE_SIZE}};
  const VkWriteDescriptorSet writes[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 2),
                                          BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[2])};
  vkUpdateDescriptorSets(device, 2, writes, 0, nullptr);
  return set;
}

}  // namespace bindery::test
