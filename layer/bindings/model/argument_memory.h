// Where the layer's argument memory lives (descriptor pools' record blocks, the root ring):
// memory the host writes and every dispatch of a rewritten shader reads before its first
// buffer access. Host-visible and coherent (no flush at record or update time), never
// protected. Device-local where a host-visible device-local heap is plentiful (resizable
// BAR): the GPU then reads records at device speed instead of across the bus, a latency
// every dispatch pays before its first buffer access (the forced kernels' fixed ~4 us per
// dispatch on the H100 was measured with pool records in system memory). Without resizable BAR that heap is 256 MiB the
// application needs too, so system memory is used.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

namespace bindery::bindings {

// The memory type index for argument memory among `allowed` types; UINT32_MAX if none is
// host-visible and coherent.
uint32_t ChooseArgumentMemoryType(const VkPhysicalDeviceMemoryProperties& props, uint32_t allowed);

class DeviceCore;

// A buffer in argument memory, bound, mapped, with its device address (the pools' record
// blocks: descriptors/pool_blocks.cpp; the ring's blocks: record/root_ring.cpp).
struct ArgumentBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;       // made (else VK_NULL_HANDLE), also when a later step failed
  VkDeviceMemory memory = VK_NULL_HANDLE;  // allocated (likewise): the caller frees both
  VkDeviceSize bytes = 0;                 // the memory's size, once allocated
  uint8_t* mapped = nullptr;
  VkDeviceAddress address = 0;            // 0 where the tracking stage has none for it
};
// Makes `out` from `info` (the caller sets its size, usage and queue sharing) on `b`'s
// device, through the layer below: the first failing call's result, or
// VK_ERROR_OUT_OF_HOST_MEMORY where no memory type is argument memory.
VkResult CreateArgumentBuffer(DeviceCore& b, const VkBufferCreateInfo& info, ArgumentBuffer* out);

}  // namespace bindery::bindings
