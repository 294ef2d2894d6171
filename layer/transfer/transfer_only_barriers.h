// Which barriers queued small writes may wait past (transfer/coalesced_writes.h). A barrier
// whose destination stages are all transfer stages orders the writes only before later
// transfer commands (and, through chains, before whatever a later barrier orders after
// those). While writes wait past such a barrier, every transfer command of the command
// buffer flushes them first (the transfers capability hooks each one), every other
// synchronisation point flushes them as before, and the flush adds a TRANSFER -> TRANSFER
// barrier of its own after them standing in for the ones they crossed. So each command the
// crossed barrier ordered after a write still runs after it and sees its bytes, and one
// dispatch writes many writes that the application separated by barriers.
//
// Only plain barriers qualify: no dependency flags, no queue family ownership transfer (a
// release must come after the writes), no image layout transition (it rewrites memory an
// aliased image may share with the buffer), no extension structure in any pNext chain.
// Pure functions: unit-tested without a GPU.
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::transfer {

// vkCmdPipelineBarrier.
bool WaitsOnlyForTransfers(VkPipelineStageFlags dst_stages, VkDependencyFlags flags, uint32_t memory_count,
                           const VkMemoryBarrier* memory, uint32_t buffer_count, const VkBufferMemoryBarrier* buffers,
                           uint32_t image_count, const VkImageMemoryBarrier* images);
// vkCmdPipelineBarrier2 / vkCmdPipelineBarrier2KHR.
bool WaitsOnlyForTransfers(const VkDependencyInfo* info);

}  // namespace bindery::transfer
