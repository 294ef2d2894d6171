#include "bindings/descriptors/native_buffer_sets.h"

namespace bindery::bindings {

bool HasConvertibleNativeBuffers(const SetLayoutShadow& layout, bool convert_uniform_buffers) {
  for (const VkDescriptorSetLayoutBinding& b : layout.app_bindings) {
    if (b.descriptorCount != 0 && IsConvertedType(b.descriptorType, convert_uniform_buffers)) return true;
  }
  return false;
}

}  // namespace bindery::bindings
