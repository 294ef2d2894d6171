/*
 * vk_bindery.h — public interface of the Bindery Vulkan layer (VK_LAYER_bindery).
 *
 * Bindery advertises the device extension below while its transfers capability is on.
 * Its presence in vkEnumerateDeviceExtensionProperties tells a runtime that, on this
 * device:
 *   - vkCmdFillBuffer accepts any dstOffset and size (VK_WHOLE_SIZE reaches the end of
 *     the buffer, not rounded down; byte dstOffset+i becomes byte i%4 of data);
 *   - vkCmdUpdateBuffer accepts any dstOffset and dataSize, including more than 65536
 *     bytes (the data is captured when the command is recorded);
 *   - vkCmdCopyBuffer / vkCmdCopyBuffer2 keep their meaning and may run as compute
 *     kernels where that is faster.
 * Enabling it in VkDeviceCreateInfo::ppEnabledExtensionNames is allowed and changes
 * nothing; the layer removes it before the driver sees the list. It has no commands and
 * no structures.
 */
#ifndef VK_BINDERY_H_
#define VK_BINDERY_H_

#define VK_BINDERY_transfer_any_alignment 1
#define VK_BINDERY_TRANSFER_ANY_ALIGNMENT_SPEC_VERSION 1
#define VK_BINDERY_TRANSFER_ANY_ALIGNMENT_EXTENSION_NAME "VK_BINDERY_transfer_any_alignment"

#endif /* VK_BINDERY_H_ */
