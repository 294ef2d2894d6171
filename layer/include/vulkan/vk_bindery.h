/*
 * vk_bindery.h — public interface of the Bindery Vulkan layer (VK_LAYER_bindery).
 *
 * Bindery advertises the device extension below while its transfers capability is on.
 * Its presence in vkEnumerateDeviceExtensionProperties tells a runtime that, on this
 * device:
 *   - vkCmdFillBuffer accepts any dstOffset and size; byte dstOffset+i becomes byte i%4
 *     of data;
 *   - VK_WHOLE_SIZE: a call that is valid in core Vulkan keeps its core meaning. From a
 *     dstOffset that is a multiple of 4 the size is rounded down to a multiple of 4 (the
 *     last 1-3 bytes of the buffer are not written), unless the application enabled
 *     this extension at vkCreateDevice: then, and from any dstOffset that is not a
 *     multiple of 4 (invalid natively), the fill reaches the last byte of the buffer;
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
