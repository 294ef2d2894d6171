#include "spirv_bench_pipeline.h"

#include <cstring>
#include <vector>

namespace bindery::bench {

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
  }
}

PipelineTimer::~PipelineTimer() {
  if (device_ != VK_NULL_HANDLE) {
    for (auto& [name, l] : layouts_) {
      vkDestroyPipelineLayout(device_, l.layout, nullptr);
      for (VkDescriptorSetLayout s : l.sets) vkDestroyDescriptorSetLayout(device_, s, nullptr);
    }
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
  layouts_[m.name] = l;
  if (!CreateAndDestroy(m)) return "vkCreateComputePipelines failed";
  return "";
}

bool PipelineTimer::CreateAndDestroy(const BenchModule& m) {
  auto it = layouts_.find(m.name);
  if (it == layouts_.end()) return false;
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = m.words.size() * 4;
  smci.pCode = m.words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (vkCreateShaderModule(device_, &smci, nullptr, &module) != VK_SUCCESS) return false;
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module;
  cpci.stage.pName = it->second.entry.c_str();
  cpci.layout = it->second.layout;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline);
  if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device_, pipeline, nullptr);
  vkDestroyShaderModule(device_, module, nullptr);
  return r == VK_SUCCESS;
}

}  // namespace bindery::bench
