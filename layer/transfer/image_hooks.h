// The image commands the transfers capability runs as compute kernels where they pay
// (image_hooks.cpp), and the image lifetime hooks that make images reachable by them
// (transfer/images.h). Installed where image kernels are planned, and the commands also
// where small writes are coalesced (they flush writes that waited past a barrier).
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::transfer {

VKAPI_ATTR void VKAPI_CALL CmdCopyBufferToImage(VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout layout,
                                                uint32_t count, const VkBufferImageCopy* regions);
VKAPI_ATTR void VKAPI_CALL CmdCopyBufferToImage2(VkCommandBuffer cb, const VkCopyBufferToImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdCopyBufferToImage2KHR(VkCommandBuffer cb, const VkCopyBufferToImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdCopyImageToBuffer(VkCommandBuffer cb, VkImage src, VkImageLayout layout, VkBuffer dst,
                                                uint32_t count, const VkBufferImageCopy* regions);
VKAPI_ATTR void VKAPI_CALL CmdCopyImageToBuffer2(VkCommandBuffer cb, const VkCopyImageToBufferInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdCopyImageToBuffer2KHR(VkCommandBuffer cb, const VkCopyImageToBufferInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdCopyImage(VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                                        VkImageLayout dst_layout, uint32_t count, const VkImageCopy* regions);
VKAPI_ATTR void VKAPI_CALL CmdCopyImage2(VkCommandBuffer cb, const VkCopyImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdCopyImage2KHR(VkCommandBuffer cb, const VkCopyImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdClearColorImage(VkCommandBuffer cb, VkImage image, VkImageLayout layout,
                                              const VkClearColorValue* color, uint32_t count,
                                              const VkImageSubresourceRange* ranges);

VKAPI_ATTR void VKAPI_CALL CmdBlitImage(VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                                        VkImageLayout dst_layout, uint32_t count, const VkImageBlit* regions,
                                        VkFilter filter);
VKAPI_ATTR void VKAPI_CALL CmdBlitImage2(VkCommandBuffer cb, const VkBlitImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdBlitImage2KHR(VkCommandBuffer cb, const VkBlitImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdResolveImage(VkCommandBuffer cb, VkImage src, VkImageLayout src_layout, VkImage dst,
                                           VkImageLayout dst_layout, uint32_t count, const VkImageResolve* regions);
VKAPI_ATTR void VKAPI_CALL CmdResolveImage2(VkCommandBuffer cb, const VkResolveImageInfo2* info);
VKAPI_ATTR void VKAPI_CALL CmdResolveImage2KHR(VkCommandBuffer cb, const VkResolveImageInfo2* info);

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* info,
                                           const VkAllocationCallbacks* allocator, VkImage* image);
VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* allocator);
VKAPI_ATTR void VKAPI_CALL GetDeviceImageMemoryRequirements(VkDevice device,
                                                            const VkDeviceImageMemoryRequirements* info,
                                                            VkMemoryRequirements2* requirements);
VKAPI_ATTR void VKAPI_CALL GetDeviceImageMemoryRequirementsKHR(VkDevice device,
                                                               const VkDeviceImageMemoryRequirements* info,
                                                               VkMemoryRequirements2* requirements);

}  // namespace bindery::transfer
