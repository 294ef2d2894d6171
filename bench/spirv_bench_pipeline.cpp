#include "spirv_bench_pipeline.h"

#include <cstring>
#include <vector>

namespace bindery::bench {
namespace {
constexpr VkDeviceSize kBufferBytes = 64 * 1024;
constexpr VkDeviceSize kUniformRange = 16 * 1024;

// OpCapability PhysicalStorageBufferAddresses: the module dereferences pointers of its own.
bool UsesOwnPointers(const std::vector<uint32_t>& words) {
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    if (count == 0) break;
    if ((words[i] & 0xffffu) == 17 && i + 1 < words.size() && words[i + 1] == 5347) return true;
    i += count;
  }
  return false;
}
}  // namespace

PipelineTimer::PipelineTimer() {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (vkCreateInstance(&ici, nullptr, &instance_) != VK_SUCCESS) {
    error_ = "vkCreateInstance failed";
    instance_ = VK_NULL_HANDLE;
    return;
  }
  uint32_t count = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  vkEnumeratePhysicalDevices(instance_, &count, &physical);
  if (count == 0 || physical == VK_NULL_HANDLE) {
    error_ = "no physical device";
    return;
  }
  // Every feature the driver offers, so any corpus module is legal on this device.
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  uint32_t ext_count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &ext_count, exts.data());
  std::vector<const char*> enable;
  for (const auto& e : exts) {
    if (std::strcmp(e.extensionName, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) == 0) {
      enable.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    }
  }
  f2.pNext = &v11;
  v11.pNext = &v12;
  v12.pNext = &v13;
  v13.pNext = enable.empty() ? nullptr : &atomic_float;
  vkGetPhysicalDeviceFeatures2(physical, &f2);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = 0;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &f2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<uint32_t>(enable.size());
  dci.ppEnabledExtensionNames = enable.data();
  if (vkCreateDevice(physical, &dci, nullptr, &device_) != VK_SUCCESS) {
    error_ = "vkCreateDevice failed";
    device_ = VK_NULL_HANDLE;
    return;
  }
  vkGetDeviceQueue(device_, 0, 0, &queue_);
  VkCommandPoolCreateInfo cpci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpci.queueFamilyIndex = 0;
  vkCreateCommandPool(device_, &cpci, nullptr, &command_pool_);
  const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4096},
                                        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1024}};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1024;
  dpci.poolSizeCount = 2;
  dpci.pPoolSizes = sizes;
  vkCreateDescriptorPool(device_, &dpci, nullptr, &descriptor_pool_);
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = kBufferBytes;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  vkCreateBuffer(device_, &bci, nullptr, &buffer_);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, buffer_, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical, &props);
  uint32_t type = 0;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
      type = i;
      break;
    }
  }
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  vkAllocateMemory(device_, &mai, nullptr, &memory_);
  vkBindBufferMemory(device_, buffer_, memory_, 0);
  void* p = nullptr;
  vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &p);
  std::memset(p, 0, kBufferBytes);
  vkUnmapMemory(device_, memory_);
}

PipelineTimer::~PipelineTimer() {
  if (device_ != VK_NULL_HANDLE) {
    for (auto& [name, l] : layouts_) {
      vkDestroyPipelineLayout(device_, l.layout, nullptr);
      for (VkDescriptorSetLayout s : l.sets) vkDestroyDescriptorSetLayout(device_, s, nullptr);
    }
    if (descriptor_pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    if (command_pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, command_pool_, nullptr);
    if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

std::string PipelineTimer::Prepare(const BenchModule& m) {
  if (device_ == VK_NULL_HANDLE) return error_;
  const spirv::EntryPointInfo* ep = nullptr;
  for (const auto& e : m.info.entry_points) {
    if (e.execution_model == "GLCompute") {
      ep = &e;
      break;
    }
  }
  if (!ep) return "not a compute module";
  std::map<uint32_t, std::vector<VkDescriptorSetLayoutBinding>> sets;
  for (const spirv::ResourceInfo& r : ep->resources) {
    if (r.kind == spirv::ResourceKind::kPushConstants) continue;
    if (r.kind == spirv::ResourceKind::kOther) return "a descriptor that is not a buffer";
    if (r.array_size == 0) return "a runtime descriptor array (no descriptor indexing on lavapipe)";
    const VkDescriptorType type = r.kind == spirv::ResourceKind::kUniformBuffer ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                                                              : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    sets[r.set].push_back({r.binding, type, r.array_size, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  }
  Layout l;
  l.entry = ep->name;
  const uint32_t set_count = sets.empty() ? 0 : sets.rbegin()->first + 1;
  for (uint32_t s = 0; s < set_count; ++s) {
    VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = static_cast<uint32_t>(sets[s].size());
    dslci.pBindings = sets[s].data();
    VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
    vkCreateDescriptorSetLayout(device_, &dslci, nullptr, &dsl);
    l.sets.push_back(dsl);
  }
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, (m.info.push_constant_bytes + 3u) & ~3u};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = set_count;
  plci.pSetLayouts = l.sets.data();
  plci.pushConstantRangeCount = range.size ? 1 : 0;
  plci.pPushConstantRanges = &range;
  vkCreatePipelineLayout(device_, &plci, nullptr, &l.layout);
  l.push_bytes = range.size;
  // Descriptor sets with the zeroed buffer behind every descriptor.
  l.descriptor_sets.assign(set_count, VK_NULL_HANDLE);
  l.dispatchable = !UsesOwnPointers(m.words);
  for (uint32_t s = 0; s < set_count && l.dispatchable; ++s) {
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = descriptor_pool_;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &l.sets[s];
    if (vkAllocateDescriptorSets(device_, &dsai, &l.descriptor_sets[s]) != VK_SUCCESS) {
      l.dispatchable = false;
      break;
    }
    for (const VkDescriptorSetLayoutBinding& b : sets[s]) {
      const bool uniform = b.descriptorType == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
      std::vector<VkDescriptorBufferInfo> infos(b.descriptorCount, {buffer_, 0, uniform ? kUniformRange : kBufferBytes});
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstSet = l.descriptor_sets[s];
      w.dstBinding = b.binding;
      w.descriptorCount = b.descriptorCount;
      w.descriptorType = b.descriptorType;
      w.pBufferInfo = infos.data();
      vkUpdateDescriptorSets(device_, 1, &w, 0, nullptr);
    }
  }
  layouts_[m.name] = l;
  if (!CreateAndDestroy(m)) return "vkCreateComputePipelines failed";
  return "";
}

VkPipeline PipelineTimer::Create(const BenchModule& m, const Layout& l, VkShaderModule& module) {
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = m.words.size() * 4;
  smci.pCode = m.words.data();
  module = VK_NULL_HANDLE;
  if (vkCreateShaderModule(device_, &smci, nullptr, &module) != VK_SUCCESS) return VK_NULL_HANDLE;
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = l.entry.c_str();
  cpci.layout = l.layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline) != VK_SUCCESS) {
    pipeline = VK_NULL_HANDLE;
  }
  return pipeline;
}

bool PipelineTimer::CreateAndDestroy(const BenchModule& m) {
  auto it = layouts_.find(m.name);
  if (it == layouts_.end()) return false;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipeline pipeline = Create(m, it->second, module);
  if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device_, pipeline, nullptr);
  if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device_, module, nullptr);
  return pipeline != VK_NULL_HANDLE;
}

bool PipelineTimer::CanDispatch(const BenchModule& m) const {
  auto it = layouts_.find(m.name);
  return it != layouts_.end() && it->second.dispatchable;
}

bool PipelineTimer::CreateDispatchDestroy(const BenchModule& m) {
  auto it = layouts_.find(m.name);
  if (it == layouts_.end() || !it->second.dispatchable) return false;
  const Layout& l = it->second;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipeline pipeline = Create(m, l, module);
  bool ok = pipeline != VK_NULL_HANDLE;
  if (ok) {
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = command_pool_;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    vkAllocateCommandBuffers(device_, &cbai, &cb);
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cb, &begin);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    for (uint32_t s = 0; s < l.descriptor_sets.size(); ++s) {
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, l.layout, s, 1, &l.descriptor_sets[s], 0, nullptr);
    }
    if (l.push_bytes) {
      const std::vector<uint8_t> zeros(l.push_bytes, 0);
      vkCmdPushConstants(cb, l.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, l.push_bytes, zeros.data());
    }
    vkCmdDispatch(cb, 1, 1, 1);
    vkEndCommandBuffer(cb);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    ok = vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS && vkQueueWaitIdle(queue_) == VK_SUCCESS;
    vkFreeCommandBuffers(device_, command_pool_, 1, &cb);
  }
  if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device_, pipeline, nullptr);
  if (module != VK_NULL_HANDLE) vkDestroyShaderModule(device_, module, nullptr);
  return ok;
}

}  // namespace bindery::bench
