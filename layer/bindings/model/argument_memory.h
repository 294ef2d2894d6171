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

}  // namespace bindery::bindings
