#include "layer_run.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace bindery::test {
namespace {

// Dynamic runs put each buffer's data this far into a larger buffer.
constexpr uint32_t kDynamicShift = 256;

struct Objects {
  VkHarness& h;
  std::vector<HostBuffer> buffers;
  std::vector<VkDescriptorSetLayout> set_layouts;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  explicit Objects(VkHarness& harness) : h(harness) {}
  ~Objects() {
    VkDevice d = h.device();
    if (pipeline) vkDestroyPipeline(d, pipeline, nullptr);
    if (module) vkDestroyShaderModule(d, module, nullptr);
    if (layout) vkDestroyPipelineLayout(d, layout, nullptr);
    for (VkDescriptorSetLayout l : set_layouts) vkDestroyDescriptorSetLayout(d, l, nullptr);
    if (pool) vkDestroyDescriptorPool(d, pool, nullptr);
    for (HostBuffer& b : buffers) h.Destroy(b);
  }
};

}  // namespace

LayerRunOutput RunThroughLayer(VkHarness& h, const spirv_exec::CorpusEntry& entry, const std::vector<uint32_t>& module,
                               const std::string& entry_point, const LayerRunOptions& options) {
  LayerRunOutput out;
  Objects o(h);
  VkDevice dev = h.device();
  const uint32_t shift = options.dynamic ? kDynamicShift : 0;
  for (const spirv_exec::BufferSpec& spec : entry.buffers) {
    HostBuffer b = h.CreateHostBuffer(spec.size + shift, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                                             VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    if (b.buffer == VK_NULL_HANDLE) {
      out.error = "buffer creation failed";
      return out;
    }
    std::vector<uint8_t> init(spec.size);
    spirv_exec::FillPattern(spec.fill, init);
    std::memset(b.mapped, 0xcd, spec.size + shift);
    std::memcpy(static_cast<uint8_t*>(b.mapped) + shift, init.data(), init.size());
    o.buffers.push_back(b);
  }
  const VkDescriptorType storage =
      options.dynamic ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  const VkDescriptorType uniform =
      options.dynamic ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;

  // set -> binding -> descriptor count (and type).
  std::map<uint32_t, std::map<uint32_t, std::pair<VkDescriptorType, uint32_t>>> sets;
  for (const spirv_exec::BufferSpec& spec : entry.buffers) {
    auto& d = sets[spec.set][spec.binding];
    d.first = spec.uniform ? uniform : storage;
    d.second = std::max(d.second, spec.index + 1);
  }
  const uint32_t set_count = sets.empty() ? 0 : sets.rbegin()->first + 1;
  uint32_t storage_count = 0, uniform_count = 0;
  for (uint32_t s = 0; s < set_count; ++s) {
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const auto& [binding, d] : sets[s]) {
      bindings.push_back({binding, d.first, d.second, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
      (d.first == storage ? storage_count : uniform_count) += d.second;
    }
    VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    info.bindingCount = static_cast<uint32_t>(bindings.size());
    info.pBindings = bindings.data();
    VkDescriptorSetLayout l = VK_NULL_HANDLE;
    if (vkCreateDescriptorSetLayout(dev, &info, nullptr, &l) != VK_SUCCESS) {
      out.error = "vkCreateDescriptorSetLayout failed";
      return out;
    }
    o.set_layouts.push_back(l);
  }

  const uint32_t push_size = (entry.push_size + 3) & ~3u;
  std::vector<uint8_t> push(entry.push_size);
  spirv_exec::FillPattern(entry.push_fill, push);
  push.resize(push_size, 0);
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = static_cast<uint32_t>(o.set_layouts.size());
  plci.pSetLayouts = o.set_layouts.data();
  plci.pushConstantRangeCount = push_size != 0 ? 1 : 0;
  plci.pPushConstantRanges = &range;
  if (vkCreatePipelineLayout(dev, &plci, nullptr, &o.layout) != VK_SUCCESS) {
    out.error = "vkCreatePipelineLayout failed";
    return out;
  }
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = module.size() * 4;
  smci.pCode = module.data();
  if (vkCreateShaderModule(dev, &smci, nullptr, &o.module) != VK_SUCCESS) {
    out.error = "vkCreateShaderModule failed";
    return out;
  }
  std::vector<VkSpecializationMapEntry> spec_entries;
  std::vector<uint32_t> spec_data;
  for (const auto& [id, value] : entry.spec) {
    spec_entries.push_back({id, static_cast<uint32_t>(spec_data.size() * 4), 4});
    spec_data.push_back(value);
  }
  VkSpecializationInfo spec_info{static_cast<uint32_t>(spec_entries.size()), spec_entries.data(),
                                 spec_data.size() * 4, spec_data.data()};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = o.module;
  cpci.stage.pName = entry_point.c_str();
  cpci.stage.pSpecializationInfo = spec_entries.empty() ? nullptr : &spec_info;
  cpci.layout = o.layout;
  const VkResult pr = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &o.pipeline);
  if (pr != VK_SUCCESS) {
    out.error = "vkCreateComputePipelines failed: " + std::to_string(pr);
    return out;
  }

  std::vector<VkDescriptorSet> descriptor_sets(set_count, VK_NULL_HANDLE);
  std::vector<VkDescriptorPoolSize> sizes;
  if (storage_count != 0) sizes.push_back({storage, storage_count});
  if (uniform_count != 0) sizes.push_back({uniform, uniform_count});
  if (set_count != 0) {
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = set_count;
    dpci.poolSizeCount = static_cast<uint32_t>(sizes.size());
    dpci.pPoolSizes = sizes.data();
    if (vkCreateDescriptorPool(dev, &dpci, nullptr, &o.pool) != VK_SUCCESS) {
      out.error = "vkCreateDescriptorPool failed";
      return out;
    }
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = o.pool;
    dsai.descriptorSetCount = set_count;
    dsai.pSetLayouts = o.set_layouts.data();
    if (vkAllocateDescriptorSets(dev, &dsai, descriptor_sets.data()) != VK_SUCCESS) {
      out.error = "vkAllocateDescriptorSets failed";
      return out;
    }
  }
  std::vector<VkDescriptorBufferInfo> infos(entry.buffers.size());
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t i = 0; i < entry.buffers.size(); ++i) {
    const spirv_exec::BufferSpec& spec = entry.buffers[i];
    const VkDeviceSize size = spec.record_size != 0 ? spec.record_size : spec.size;
    // Dynamic: the descriptor starts at 0 and the dynamic offset moves it to the data.
    infos[i] = {o.buffers[i].buffer, 0, options.whole_size && !options.dynamic ? VK_WHOLE_SIZE : size};
    if (!options.dynamic && !options.whole_size) infos[i].range = size;
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = descriptor_sets[spec.set];
    w.dstBinding = spec.binding;
    w.dstArrayElement = spec.index;
    w.descriptorCount = 1;
    w.descriptorType = spec.uniform ? uniform : storage;
    w.pBufferInfo = &infos[i];
    writes.push_back(w);
  }
  if (!options.use_template) {
    vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  } else {
    for (uint32_t s = 0; s < set_count; ++s) {
      std::vector<VkDescriptorUpdateTemplateEntry> entries;
      std::vector<VkDescriptorBufferInfo> data;
      for (const VkWriteDescriptorSet& w : writes) {
        if (w.dstSet != descriptor_sets[s]) continue;
        entries.push_back({w.dstBinding, w.dstArrayElement, 1, w.descriptorType,
                           data.size() * sizeof(VkDescriptorBufferInfo), sizeof(VkDescriptorBufferInfo)});
        data.push_back(*w.pBufferInfo);
      }
      if (entries.empty()) continue;
      VkDescriptorUpdateTemplateCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
      info.descriptorUpdateEntryCount = static_cast<uint32_t>(entries.size());
      info.pDescriptorUpdateEntries = entries.data();
      info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
      info.descriptorSetLayout = o.set_layouts[s];
      VkDescriptorUpdateTemplate t = VK_NULL_HANDLE;
      if (vkCreateDescriptorUpdateTemplate(dev, &info, nullptr, &t) != VK_SUCCESS) {
        out.error = "vkCreateDescriptorUpdateTemplate failed";
        return out;
      }
      vkUpdateDescriptorSetWithTemplate(dev, descriptor_sets[s], t, data.data());
      vkDestroyDescriptorUpdateTemplate(dev, t, nullptr);
    }
  }

  // Dynamic offsets in set, binding, element order.
  std::vector<std::vector<uint32_t>> offsets(set_count);
  for (uint32_t s = 0; s < set_count; ++s) {
    for (const auto& [binding, d] : sets[s]) offsets[s].insert(offsets[s].end(), d.second, shift);
  }

  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipeline);
  // Sets bound one call per set except the first two together (both paths of the bind).
  for (uint32_t s = 0; s < set_count;) {
    const uint32_t n = (s == 0 && set_count >= 2 && !sets[0].empty() && !sets[1].empty()) ? 2 : 1;
    bool bindable = true;
    std::vector<uint32_t> dyn;
    for (uint32_t k = s; k < s + n; ++k) {
      bindable = bindable && !sets[k].empty();
      if (options.dynamic) dyn.insert(dyn.end(), offsets[k].begin(), offsets[k].end());
    }
    if (bindable) {
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, o.layout, s, n, &descriptor_sets[s],
                              static_cast<uint32_t>(dyn.size()), dyn.empty() ? nullptr : dyn.data());
    }
    s += n;
  }
  if (push_size != 0) vkCmdPushConstants(cb, o.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push.data());
  vkCmdDispatch(cb, entry.dispatch[0], entry.dispatch[1], entry.dispatch[2]);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
  if (h.SubmitAndWait(cb) != VK_SUCCESS) {
    out.error = "submit failed";
    return out;
  }
  for (size_t i = 0; i < entry.buffers.size(); ++i) {
    const uint8_t* p = static_cast<const uint8_t*>(o.buffers[i].mapped);
    out.buffers.emplace_back(p, p + entry.buffers[i].size + shift);
  }
  return out;
}

}  // namespace bindery::test
