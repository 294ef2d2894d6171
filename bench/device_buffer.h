// Buffers in device memory for the transfer benchmarks. The harness's CreateHostBuffer
// gives host-visible memory, which on a discrete GPU is system memory behind PCIe; a
// bandwidth benchmark wants the GPU's own memory.
#pragma once

#include <cstdint>
#include <string>

#include <vulkan/vulkan.h>

namespace bindery::bench {

struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  uint32_t memory_type = UINT32_MAX;
  VkMemoryPropertyFlags memory_flags = 0;
};

// A buffer of `size` bytes with `usage`, bound to the first memory type that works in
// this order: DEVICE_LOCAL and not HOST_VISIBLE, DEVICE_LOCAL, then any type the buffer
// allows (software drivers have only host memory). Returns an empty DeviceBuffer and
// fills *error on failure.
DeviceBuffer CreateDeviceBuffer(VkPhysicalDevice physical_device, VkDevice device, VkDeviceSize size,
                                VkBufferUsageFlags usage, std::string* error);
void DestroyDeviceBuffer(VkDevice device, DeviceBuffer& buffer);

// "DEVICE_LOCAL|HOST_VISIBLE|..." for a memory type's property flags ("none" for 0).
std::string MemoryFlagsName(VkMemoryPropertyFlags flags);

}  // namespace bindery::bench
