#include "bindings/model/argument_memory.h"

#include "bindings/model/device_core.h"

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

VkResult CreateArgumentBuffer(DeviceCore& b, const VkBufferCreateInfo& info, ArgumentBuffer* out) {
  const VkDevice device = b.device.handle;
  VkResult r = b.next.CreateBuffer(device, &info, nullptr, &out->buffer);
  if (r != VK_SUCCESS) {
    out->buffer = VK_NULL_HANDLE;
    return r;
  }
  VkMemoryRequirements req{};
  b.next.GetBufferMemoryRequirements(device, out->buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.pNext = b.device.addressing.memory_flag ? &flags : nullptr;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = ChooseArgumentMemoryType(b.memory_properties, req.memoryTypeBits);
  if (alloc.memoryTypeIndex == UINT32_MAX) return VK_ERROR_OUT_OF_HOST_MEMORY;
  r = b.next.AllocateMemory(device, &alloc, nullptr, &out->memory);
  if (r != VK_SUCCESS) {
    out->memory = VK_NULL_HANDLE;
    return r;
  }
  out->bytes = alloc.allocationSize;
  r = b.next.BindBufferMemory(device, out->buffer, out->memory, 0);
  if (r != VK_SUCCESS) return r;
  void* mapped = nullptr;
  r = b.next.MapMemory(device, out->memory, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (r != VK_SUCCESS) return r;
  out->mapped = static_cast<uint8_t*>(mapped);
  out->address = b.trackers().AddressOf(out->buffer);
  return VK_SUCCESS;
}

}  // namespace bindery::bindings
