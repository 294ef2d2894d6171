// Does one push write every descriptor of its set layout? Pushes to a set accumulate (a
// partial push keeps what earlier pushes wrote), so a pipeline running natively that is
// bound after several pushes must get all of them again (PushCopy chains them); a push
// that writes every descriptor makes the earlier ones irrelevant and ends the chain, which
// keeps the replay short for programs that push whole sets (GL drivers do).
#pragma once

#include <bitset>
#include <cstdint>

#include <vulkan/vulkan.h>

#include "bindings/descriptors/native_buffer_sets.h"
#include "bindings/model/set_layout_shadow.h"

namespace bindery::bindings {

// Layouts of more descriptors than this are never judged covered (their pushes chain).
inline constexpr uint32_t kCoverageDescriptors = 256;

// `for_each_write(visit)` calls visit(binding, element, count) once per write of the push.
// Bindings of immutable samplers need no write and count as covered.
template <typename ForEachWrite>
bool WritesEveryDescriptor(const SetLayoutShadow& layout, ForEachWrite&& for_each_write) {
  // Each binding's first index in a dense numbering of the layout's descriptors.
  auto base_of = [&](uint32_t binding) {
    uint32_t base = 0;
    for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) {
      if (b.binding < binding) base += b.descriptorCount;
    }
    return base;
  };
  uint32_t total = 0;
  for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) total += b.descriptorCount;
  if (total > kCoverageDescriptors) return false;
  std::bitset<kCoverageDescriptors> written;
  for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) {
    if (b.pImmutableSamplers == nullptr || b.descriptorType != VK_DESCRIPTOR_TYPE_SAMPLER) continue;
    const uint32_t base = base_of(b.binding);
    for (uint32_t k = 0; k < b.descriptorCount; ++k) written.set(base + k);
  }
  for_each_write([&](uint32_t binding, uint32_t element, uint32_t count) {
    ForEachAppDescriptor(layout, binding, element, count, [&](uint32_t bnd, uint32_t el, uint32_t) {
      const uint32_t at = base_of(bnd) + el;
      if (at < kCoverageDescriptors) written.set(at);
    });
  });
  return written.count() == total;
}

}  // namespace bindery::bindings
