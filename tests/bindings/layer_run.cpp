#include "layer_run.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "support/vk_objects.h"

namespace bindery::test {
namespace {

// Dynamic runs put each buffer's data this far into a larger buffer.
constexpr uint32_t kDynamicShift = 256;

// The buffers of one run, destroyed on every path out (the other objects are in an ObjectBag).
struct RunBuffers {
  VkHarness& h;
  std::vector<HostBuffer> buffers;
  explicit RunBuffers(VkHarness& harness) : h(harness) {}
  ~RunBuffers() {
    for (HostBuffer& b : buffers) h.Destroy(b);
  }
};

// Writes the sets' descriptors with one vkUpdateDescriptorSets, or one update template per set.
std::string WriteSets(VkDevice dev, const std::vector<VkWriteDescriptorSet>& writes,
                      const std::vector<VkDescriptorSet>& descriptor_sets,
                      const std::vector<VkDescriptorSetLayout>& set_layouts, bool use_template) {
  if (!use_template) {
    vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    return "";
  }
  for (size_t s = 0; s < descriptor_sets.size(); ++s) {
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
    info.descriptorSetLayout = set_layouts[s];
    VkDescriptorUpdateTemplate t = VK_NULL_HANDLE;
    if (vkCreateDescriptorUpdateTemplate(dev, &info, nullptr, &t) != VK_SUCCESS) {
      return "vkCreateDescriptorUpdateTemplate failed";
    }
    vkUpdateDescriptorSetWithTemplate(dev, descriptor_sets[s], t, data.data());
    vkDestroyDescriptorUpdateTemplate(dev, t, nullptr);
  }
  return "";
}

}  // namespace

LayerRunOutput RunThroughLayer(VkHarness& h, const spirv_exec::CorpusEntry& entry, const std::vector<uint32_t>& module,
                               const std::string& entry_point, const LayerRunOptions& options) {
  LayerRunOutput out;
  RunBuffers o(h);
  VkDevice dev = h.device();
  ObjectBag bag(dev);
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

  SetBindings sets;
  for (const spirv_exec::BufferSpec& spec : entry.buffers) {
    BindingSlot& d = sets[spec.set][spec.binding];
    d.type = spec.uniform ? uniform : storage;
    d.count = std::max(d.count, spec.index + 1);
  }
  const uint32_t set_count = sets.empty() ? 0 : sets.rbegin()->first + 1;
  const std::vector<VkDescriptorSetLayout> set_layouts = CreateSetLayouts(dev, sets, bag);
  if (set_layouts.size() != set_count) {
    out.error = "vkCreateDescriptorSetLayout failed";
    return out;
  }

  const uint32_t push_size = (entry.push_size + 3) & ~3u;
  std::vector<uint8_t> push(entry.push_size);
  spirv_exec::FillPattern(entry.push_fill, push);
  push.resize(push_size, 0);
  const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(dev, set_layouts, push_size));
  if (layout == VK_NULL_HANDLE) {
    out.error = "vkCreatePipelineLayout failed";
    return out;
  }
  const VkShaderModule shader = bag.Keep(CreateShaderModule(dev, module.data(), module.size() * 4));
  if (shader == VK_NULL_HANDLE) {
    out.error = "vkCreateShaderModule failed";
    return out;
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult pr = CreateComputePipeline(dev, layout, shader, entry_point.c_str(), entry.spec, &pipeline);
  bag.Keep(pipeline);
  if (pr != VK_SUCCESS) {
    out.error = "vkCreateComputePipelines failed: " + std::to_string(pr);
    return out;
  }

  std::vector<VkDescriptorSet> descriptor_sets(set_count, VK_NULL_HANDLE);
  if (set_count != 0) {
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(dev, set_count, CountDescriptors(sets)));
    if (pool == VK_NULL_HANDLE) {
      out.error = "vkCreateDescriptorPool failed";
      return out;
    }
    // All sets in one call (the layer's multi-set allocation path).
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = set_count;
    dsai.pSetLayouts = set_layouts.data();
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
    writes.push_back(BufferWrite(descriptor_sets[spec.set], spec.binding, spec.index,
                                 spec.uniform ? uniform : storage, &infos[i]));
  }
  out.error = WriteSets(dev, writes, descriptor_sets, set_layouts, options.use_template);
  if (!out.error.empty()) return out;

  // Dynamic offsets in set, binding, element order.
  std::vector<std::vector<uint32_t>> offsets(set_count);
  for (uint32_t s = 0; s < set_count; ++s) {
    for (const auto& [binding, d] : sets[s]) offsets[s].insert(offsets[s].end(), d.count, shift);
  }

  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
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
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, s, n, &descriptor_sets[s],
                              static_cast<uint32_t>(dyn.size()), dyn.empty() ? nullptr : dyn.data());
    }
    s += n;
  }
  if (push_size != 0) vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push.data());
  vkCmdDispatch(cb, entry.dispatch[0], entry.dispatch[1], entry.dispatch[2]);
  BarrierToHost(cb);
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
