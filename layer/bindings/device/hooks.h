// The Vulkan commands the indirect-bindings capability hooks (its hook table:
// bindings_capability.cpp): each store's hooks, declared in its folder, and the buffer
// hooks the capability keeps itself.
#pragma once

#include <vulkan/vulkan.h>

#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/pipelines/pipeline_hooks.h"
#include "bindings/record/record_hooks.h"

namespace bindery::bindings {

// buffer_hooks.cpp: buffers without an address (pipelines/native_twin.h), and the buffer
// lookup caches emptied (model/lookup_cache.h).
VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice, const VkBufferCreateInfo*, const VkAllocationCallbacks*, VkBuffer*);
VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice, VkBuffer, const VkAllocationCallbacks*);

}  // namespace bindery::bindings
