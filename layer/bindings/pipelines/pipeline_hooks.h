// The Vulkan commands the pipelines store's hooks take (pipeline_store.h): shader modules
// and pipelines.
#pragma once

#include <vulkan/vulkan.h>

namespace bindery::bindings {

// shader_module_hooks.cpp
VKAPI_ATTR VkResult VKAPI_CALL CreateShaderModule(VkDevice, const VkShaderModuleCreateInfo*,
                                                  const VkAllocationCallbacks*, VkShaderModule*);
VKAPI_ATTR void VKAPI_CALL DestroyShaderModule(VkDevice, VkShaderModule, const VkAllocationCallbacks*);

// pipeline_hooks.cpp
VKAPI_ATTR VkResult VKAPI_CALL CreateComputePipelines(VkDevice, VkPipelineCache, uint32_t,
                                                      const VkComputePipelineCreateInfo*, const VkAllocationCallbacks*,
                                                      VkPipeline*);
VKAPI_ATTR VkResult VKAPI_CALL CreateGraphicsPipelines(VkDevice, VkPipelineCache, uint32_t,
                                                       const VkGraphicsPipelineCreateInfo*, const VkAllocationCallbacks*,
                                                       VkPipeline*);
VKAPI_ATTR void VKAPI_CALL DestroyPipeline(VkDevice, VkPipeline, const VkAllocationCallbacks*);

}  // namespace bindery::bindings
