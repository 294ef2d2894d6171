#include "support/vk_objects.h"

namespace bindery::test {

VkDescriptorSetLayout CreateSetLayout(VkDevice device, const std::vector<VkDescriptorSetLayoutBinding>& bindings,
                                      VkDescriptorSetLayoutCreateFlags flags) {
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.flags = flags;
  info.bindingCount = static_cast<uint32_t>(bindings.size());
  info.pBindings = bindings.data();
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  if (vkCreateDescriptorSetLayout(device, &info, nullptr, &layout) != VK_SUCCESS) return VK_NULL_HANDLE;
  return layout;
}

std::vector<VkDescriptorSetLayout> CreateSetLayouts(VkDevice device, const SetBindings& sets, ObjectBag& bag) {
  const uint32_t count = sets.empty() ? 0 : sets.rbegin()->first + 1;
  std::vector<VkDescriptorSetLayout> layouts;
  for (uint32_t s = 0; s < count; ++s) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    const auto it = sets.find(s);
    if (it != sets.end()) {
      for (const auto& [binding, slot] : it->second) {
        bindings.push_back({binding, slot.type, slot.count, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
      }
    }
    const VkDescriptorSetLayout layout = bag.Keep(CreateSetLayout(device, bindings));
    if (layout == VK_NULL_HANDLE) return {};
    layouts.push_back(layout);
  }
  return layouts;
}

PoolCounts CountDescriptors(const SetBindings& sets) {
  PoolCounts counts;
  for (const auto& [set, bindings] : sets) {
    for (const auto& [binding, slot] : bindings) counts[slot.type] += slot.count;
  }
  return counts;
}

VkPipelineLayout CreatePipelineLayout(VkDevice device, const std::vector<VkDescriptorSetLayout>& set_layouts,
                                      uint32_t push_bytes, VkShaderStageFlags push_stages) {
  const VkPushConstantRange range{push_stages, 0, push_bytes};
  VkPipelineLayoutCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  info.setLayoutCount = static_cast<uint32_t>(set_layouts.size());
  info.pSetLayouts = set_layouts.data();
  info.pushConstantRangeCount = push_bytes != 0 ? 1 : 0;
  info.pPushConstantRanges = &range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  if (vkCreatePipelineLayout(device, &info, nullptr, &layout) != VK_SUCCESS) return VK_NULL_HANDLE;
  return layout;
}

VkShaderModuleCreateInfo ShaderModuleInfo(const uint32_t* code, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = code;
  return info;
}

VkShaderModule CreateShaderModule(VkDevice device, const uint32_t* code, size_t bytes) {
  const VkShaderModuleCreateInfo info = ShaderModuleInfo(code, bytes);
  VkShaderModule module = VK_NULL_HANDLE;
  if (vkCreateShaderModule(device, &info, nullptr, &module) != VK_SUCCESS) return VK_NULL_HANDLE;
  return module;
}

VkComputePipelineCreateInfo ComputePipelineInfo(VkShaderModule module, VkPipelineLayout layout,
                                                const char* entry_point) {
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = entry_point;
  info.layout = layout;
  return info;
}

VkResult CreateComputePipeline(VkDevice device, VkPipelineLayout layout, VkShaderModule module,
                               const char* entry_point, const SpecConstants& spec, VkPipeline* pipeline,
                               VkPipelineCreateFlags flags) {
  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint32_t> data;
  for (const auto& [id, value] : spec) {
    entries.push_back({id, static_cast<uint32_t>(data.size() * 4), 4});
    data.push_back(value);
  }
  const VkSpecializationInfo spec_info{static_cast<uint32_t>(entries.size()), entries.data(), data.size() * 4,
                                       data.data()};
  VkComputePipelineCreateInfo info = ComputePipelineInfo(module, layout, entry_point);
  info.flags = flags;
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec_info;
  *pipeline = VK_NULL_HANDLE;
  const VkResult r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, pipeline);
  if (r != VK_SUCCESS) *pipeline = VK_NULL_HANDLE;
  return r;
}

VkPipeline CreateComputePipeline(VkDevice device, VkPipelineLayout layout, const uint32_t* code, size_t bytes,
                                 const SpecConstants& spec) {
  VkShaderModule module = CreateShaderModule(device, code, bytes);
  if (module == VK_NULL_HANDLE) return VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  CreateComputePipeline(device, layout, module, "main", spec, &pipeline);
  vkDestroyShaderModule(device, module, nullptr);
  return pipeline;
}

VkResult CreateGraphicsPipeline(VkDevice device, VkPipelineLayout layout, VkShaderModule vertex,
                                VkShaderModule fragment, uint32_t width, uint32_t height, VkRenderPass render_pass,
                                VkFormat color_format, VkPipeline* pipeline, uint32_t color_attachments) {
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex;
  stages[0].pName = "main";
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragment;
  stages[1].pName = "main";
  const VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  const VkViewport viewport{0, 0, static_cast<float>(width), static_cast<float>(height), 0, 1};
  const VkRect2D scissor{{0, 0}, {width, height}};
  VkPipelineViewportStateCreateInfo viewport_state{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport_state.viewportCount = 1;
  viewport_state.pViewports = &viewport;
  viewport_state.scissorCount = 1;
  viewport_state.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend_attachment{};
  blend_attachment.colorWriteMask = 0xf;
  VkPipelineColorBlendStateCreateInfo blend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blend.attachmentCount = color_attachments;
  blend.pAttachments = &blend_attachment;
  VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
  rendering.colorAttachmentCount = color_attachments;
  rendering.pColorAttachmentFormats = &color_format;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.pNext = render_pass == VK_NULL_HANDLE ? &rendering : nullptr;
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = &vertex_input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewport_state;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blend;
  info.layout = layout;
  info.renderPass = render_pass;
  *pipeline = VK_NULL_HANDLE;
  const VkResult r = vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, pipeline);
  if (r != VK_SUCCESS) *pipeline = VK_NULL_HANDLE;
  return r;
}

VkDescriptorPool CreateDescriptorPool(VkDevice device, uint32_t max_sets, const PoolCounts& counts,
                                      VkDescriptorPoolCreateFlags flags) {
  std::vector<VkDescriptorPoolSize> sizes;
  for (const auto& [type, count] : counts) {
    if (count != 0) sizes.push_back({type, count});
  }
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.flags = flags;
  info.maxSets = max_sets;
  info.poolSizeCount = static_cast<uint32_t>(sizes.size());
  info.pPoolSizes = sizes.data();
  VkDescriptorPool pool = VK_NULL_HANDLE;
  if (vkCreateDescriptorPool(device, &info, nullptr, &pool) != VK_SUCCESS) return VK_NULL_HANDLE;
  return pool;
}

VkDescriptorSet AllocateSet(VkDevice device, VkDescriptorPool pool, VkDescriptorSetLayout layout) {
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorPool = pool;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (vkAllocateDescriptorSets(device, &info, &set) != VK_SUCCESS) return VK_NULL_HANDLE;
  return set;
}

VkDescriptorSetAllocateInfo SetAllocateInfo(VkDescriptorPool pool, uint32_t count,
                                            const VkDescriptorSetLayout* layouts) {
  VkDescriptorSetAllocateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  info.descriptorPool = pool;
  info.descriptorSetCount = count;
  info.pSetLayouts = layouts;
  return info;
}

VkDescriptorUpdateTemplateCreateInfo SetTemplateInfo(const VkDescriptorUpdateTemplateEntry* entries, uint32_t count,
                                                     VkDescriptorSetLayout set_layout) {
  VkDescriptorUpdateTemplateCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
  info.descriptorUpdateEntryCount = count;
  info.pDescriptorUpdateEntries = entries;
  info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
  info.descriptorSetLayout = set_layout;
  return info;
}

VkDescriptorUpdateTemplateCreateInfo PushTemplateInfo(const VkDescriptorUpdateTemplateEntry* entries, uint32_t count,
                                                      VkPipelineBindPoint bind_point, VkPipelineLayout pipeline_layout,
                                                      uint32_t set) {
  VkDescriptorUpdateTemplateCreateInfo info = SetTemplateInfo(entries, count, VK_NULL_HANDLE);
  info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR;  // the set layout is ignored
  info.pipelineBindPoint = bind_point;
  info.pipelineLayout = pipeline_layout;
  info.set = set;
  return info;
}

VkWriteDescriptorSet BufferWrite(VkDescriptorSet set, uint32_t binding, uint32_t element, VkDescriptorType type,
                                 const VkDescriptorBufferInfo* infos, uint32_t count) {
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstSet = set;
  w.dstBinding = binding;
  w.dstArrayElement = element;
  w.descriptorCount = count;
  w.descriptorType = type;
  w.pBufferInfo = infos;
  return w;
}

void RecordDispatch(VkCommandBuffer cb, VkPipeline pipeline, VkPipelineLayout layout,
                    const std::vector<VkDescriptorSet>& sets, uint32_t groups_x) {
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  if (!sets.empty()) {
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, static_cast<uint32_t>(sets.size()),
                            sets.data(), 0, nullptr);
  }
  vkCmdDispatch(cb, groups_x, 1, 1);
}

VkResult SubmitAndWaitIdle(VkQueue queue, const std::vector<VkCommandBuffer>& cbs) {
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = static_cast<uint32_t>(cbs.size());
  submit.pCommandBuffers = cbs.data();
  const VkResult r = vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE);
  return r != VK_SUCCESS ? r : vkQueueWaitIdle(queue);
}

void RecordMemoryBarrier(VkCommandBuffer cb, VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                         VkPipelineStageFlags dst_stages, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, src_stages, dst_stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void BarrierToHost(VkCommandBuffer cb, VkPipelineStageFlags src_stages, VkAccessFlags src_access) {
  RecordMemoryBarrier(cb, src_stages, src_access, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

VkResult DeviceExtensionNames(VkPhysicalDevice pd, const char* layer, std::vector<std::string>* names) {
  names->clear();
  uint32_t n = 0;
  VkResult r = vkEnumerateDeviceExtensionProperties(pd, layer, &n, nullptr);
  if (r != VK_SUCCESS) return r;
  std::vector<VkExtensionProperties> props(n);
  r = vkEnumerateDeviceExtensionProperties(pd, layer, &n, props.data());
  if (r != VK_SUCCESS) return r;
  for (uint32_t i = 0; i < n; ++i) names->push_back(props[i].extensionName);
  return VK_SUCCESS;
}

ObjectBag::~ObjectBag() { DestroyAll(); }

void ObjectBag::DestroyAll() {
  for (auto it = destroys_.rbegin(); it != destroys_.rend(); ++it) (*it)();
  destroys_.clear();
}

#define BINDERY_OBJECT_BAG_KEEP(Type, destroy)                                     \
  Type ObjectBag::Keep(Type handle) {                                              \
    if (handle != VK_NULL_HANDLE) {                                                \
      destroys_.push_back([device = device_, handle] { destroy(device, handle, nullptr); }); \
    }                                                                              \
    return handle;                                                                 \
  }
BINDERY_OBJECT_BAG_KEEP(VkDescriptorSetLayout, vkDestroyDescriptorSetLayout)
BINDERY_OBJECT_BAG_KEEP(VkPipelineLayout, vkDestroyPipelineLayout)
BINDERY_OBJECT_BAG_KEEP(VkShaderModule, vkDestroyShaderModule)
BINDERY_OBJECT_BAG_KEEP(VkPipeline, vkDestroyPipeline)
BINDERY_OBJECT_BAG_KEEP(VkDescriptorPool, vkDestroyDescriptorPool)
BINDERY_OBJECT_BAG_KEEP(VkDescriptorUpdateTemplate, vkDestroyDescriptorUpdateTemplate)
#undef BINDERY_OBJECT_BAG_KEEP

}  // namespace bindery::test
