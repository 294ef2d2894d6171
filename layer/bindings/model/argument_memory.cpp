#include "bindings/model/argument_memory.h"

namespace bindery::bindings {
namespace {

// A host-visible device-local heap at least this large is resizable BAR, not the small
// window every application competes for.
constexpr VkDeviceSize kPlentifulHeap = 1ull << 30;

}  // namespace

uint32_t ChooseArgumentMemoryType(const VkPhysicalDeviceMemoryProperties& props, uint32_t allowed) {
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  const VkMemoryPropertyFlags avoid = VK_MEMORY_PROPERTY_PROTECTED_BIT | VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD |
                                      VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;
  auto first = [&](auto&& fits) {
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags f = props.memoryTypes[i].propertyFlags;
      if ((allowed & (1u << i)) == 0 || (f & host) != host || (f & avoid) != 0) continue;
      if (fits(f, props.memoryHeaps[props.memoryTypes[i].heapIndex].size)) return i;
    }
    return UINT32_MAX;
  };
  uint32_t type = first([](VkMemoryPropertyFlags f, VkDeviceSize heap) {
    return (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0 && heap >= kPlentifulHeap;
  });
  if (type == UINT32_MAX) {
    type = first([](VkMemoryPropertyFlags f, VkDeviceSize) { return (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) == 0; });
  }
  if (type == UINT32_MAX) type = first([](VkMemoryPropertyFlags, VkDeviceSize) { return true; });
  return type;
}

}  // namespace bindery::bindings
