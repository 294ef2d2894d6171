#include "exec_device.h"

#include <cstring>
#include <vector>

namespace bindery::spirv_exec {
namespace {

struct FeatureChain {
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
  bool has_atomic_float_ext = false;
  void Link() {
    f2.pNext = &v11;
    v11.pNext = &v12;
    v12.pNext = &v13;
    v13.pNext = has_atomic_float_ext ? &af : nullptr;
    af.pNext = nullptr;
  }
};

// What lavapipe offers, read through an instance without layers.
bool QuerySupport(FeatureChain& chain, std::string& error) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) {
    error = "vkCreateInstance failed (feature query)";
    return false;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (count == 0) {
    vkDestroyInstance(instance, nullptr);
    error = "no physical device";
    return false;
  }
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance, &count, devices.data());
  uint32_t ext_count = 0;
  vkEnumerateDeviceExtensionProperties(devices[0], nullptr, &ext_count, nullptr);
  std::vector<VkExtensionProperties> exts(ext_count);
  vkEnumerateDeviceExtensionProperties(devices[0], nullptr, &ext_count, exts.data());
  for (const auto& e : exts) {
    if (std::strcmp(e.extensionName, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME) == 0) chain.has_atomic_float_ext = true;
  }
  chain.Link();
  vkGetPhysicalDeviceFeatures2(devices[0], &chain.f2);
  vkDestroyInstance(instance, nullptr);
  return true;
}

}  // namespace

ExecDevice::ExecDevice(bool with_int64) {
  FeatureChain have;
  if (!QuerySupport(have, error_)) return;
  if (!have.v12.bufferDeviceAddress) {
    error_ = "the device has no bufferDeviceAddress";
    return;
  }
  // Enable only what is supported; record what was enabled.
  FeatureChain want;
  want.has_atomic_float_ext = have.has_atomic_float_ext;
  want.Link();
  want.v12.bufferDeviceAddress = VK_TRUE;
  // Graphics stages that write storage buffers (the rewritten vertex/fragment shaders).
  want.f2.features.vertexPipelineStoresAndAtomics = have.f2.features.vertexPipelineStoresAndAtomics;
  want.f2.features.fragmentStoresAndAtomics = have.f2.features.fragmentStoresAndAtomics;
  enabled_.graphics_stores = have.f2.features.vertexPipelineStoresAndAtomics && have.f2.features.fragmentStoresAndAtomics;
  want.v13.dynamicRendering = have.v13.dynamicRendering;
  enabled_.dynamic_rendering = have.v13.dynamicRendering;
  enabled_.int64 = with_int64 && have.f2.features.shaderInt64;
  want.f2.features.shaderInt64 = enabled_.int64;
  enabled_.int16 = have.f2.features.shaderInt16 && have.v11.storageBuffer16BitAccess;
  want.f2.features.shaderInt16 = enabled_.int16;
  want.v11.storageBuffer16BitAccess = have.v11.storageBuffer16BitAccess;
  want.v11.uniformAndStorageBuffer16BitAccess = have.v11.uniformAndStorageBuffer16BitAccess;
  want.v11.storagePushConstant16 = have.v11.storagePushConstant16;
  want.v11.variablePointers = have.v11.variablePointers;
  want.v11.variablePointersStorageBuffer = have.v11.variablePointersStorageBuffer;
  enabled_.variable_pointers = have.v11.variablePointersStorageBuffer;
  enabled_.int8 = have.v12.shaderInt8 && have.v12.storageBuffer8BitAccess;
  want.v12.shaderInt8 = have.v12.shaderInt8;
  want.v12.storageBuffer8BitAccess = have.v12.storageBuffer8BitAccess;
  want.v12.uniformAndStorageBuffer8BitAccess = have.v12.uniformAndStorageBuffer8BitAccess;
  want.v12.storagePushConstant8 = have.v12.storagePushConstant8;
  enabled_.float16 = have.v12.shaderFloat16 && have.v11.storageBuffer16BitAccess;
  want.v12.shaderFloat16 = have.v12.shaderFloat16;
  enabled_.int64atomics = enabled_.int64 && have.v12.shaderBufferInt64Atomics;
  want.v12.shaderBufferInt64Atomics = enabled_.int64atomics;
  want.v12.shaderSharedInt64Atomics = enabled_.int64 && have.v12.shaderSharedInt64Atomics;
  enabled_.vmm = have.v12.vulkanMemoryModel && have.v12.vulkanMemoryModelDeviceScope;
  want.v12.vulkanMemoryModel = have.v12.vulkanMemoryModel;
  want.v12.vulkanMemoryModelDeviceScope = have.v12.vulkanMemoryModelDeviceScope;
  enabled_.runtimearray = have.v12.runtimeDescriptorArray;
  want.v12.runtimeDescriptorArray = have.v12.runtimeDescriptorArray;
  enabled_.nonuniform = have.v12.shaderStorageBufferArrayNonUniformIndexing;
  want.v12.shaderStorageBufferArrayNonUniformIndexing = have.v12.shaderStorageBufferArrayNonUniformIndexing;
  want.v12.shaderUniformBufferArrayNonUniformIndexing = have.v12.shaderUniformBufferArrayNonUniformIndexing;
  want.v12.descriptorIndexing = have.v12.descriptorIndexing;
  // SPIR-V 1.6 modules from glslang declare the workgroup size with LocalSizeId.
  want.v13.maintenance4 = have.v13.maintenance4;
  enabled_.scalar = have.v12.scalarBlockLayout;
  want.v12.scalarBlockLayout = have.v12.scalarBlockLayout;
  std::vector<const char*> extensions;
  if (have.has_atomic_float_ext) {
    enabled_.floatatomics = have.af.shaderBufferFloat32AtomicAdd && have.af.shaderBufferFloat32Atomics;
    want.af.shaderBufferFloat32AtomicAdd = have.af.shaderBufferFloat32AtomicAdd;
    want.af.shaderBufferFloat32Atomics = have.af.shaderBufferFloat32Atomics;
    if (enabled_.floatatomics) extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  test::HarnessOptions options;
  options.bindery = false;
  options.validation = true;
  options.device_pnext = &want.f2;
  options.device_extensions = extensions;
  harness_ = std::make_unique<test::VkHarness>(options);
}

ExecDevice::~ExecDevice() = default;

std::string ExecDevice::Missing(const CorpusEntry& entry) const {
  const std::pair<const char*, bool> table[] = {
      {"int64", enabled_.int64},         {"int64atomics", enabled_.int64atomics}, {"int8", enabled_.int8},
      {"int16", enabled_.int16},         {"float16", enabled_.float16},           {"vmm", enabled_.vmm},
      {"nonuniform", enabled_.nonuniform}, {"runtimearray", enabled_.runtimearray},
      {"floatatomics", enabled_.floatatomics}, {"scalar", enabled_.scalar},
      {"variablepointers", enabled_.variable_pointers}};
  for (const std::string& f : entry.requires_features) {
    bool known = false;
    for (const auto& [name, on] : table) {
      if (f != name) continue;
      known = true;
      if (!on) return f;
    }
    if (!known) return f + " (unknown feature name)";
  }
  return "";
}

DeviceBuffer ExecDevice::CreateBuffer(VkDeviceSize size) {
  DeviceBuffer b;
  b.size = size;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
              VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
              VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkDevice dev = device();
  if (vkCreateBuffer(dev, &bci, nullptr, &b.buffer) != VK_SUCCESS) return {};
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b.buffer, &req);
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(harness_->physical_device(), &props);
  const VkMemoryPropertyFlags flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < props.memoryTypeCount && type == UINT32_MAX; ++i) {
    if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & flags) == flags) type = i;
  }
  VkMemoryAllocateFlagsInfo flags_info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &flags_info;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  if (type == UINT32_MAX || vkAllocateMemory(dev, &mai, nullptr, &b.memory) != VK_SUCCESS) {
    vkDestroyBuffer(dev, b.buffer, nullptr);
    return {};
  }
  vkBindBufferMemory(dev, b.buffer, b.memory, 0);
  vkMapMemory(dev, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
  VkBufferDeviceAddressInfo bdai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  bdai.buffer = b.buffer;
  b.address = vkGetBufferDeviceAddress(dev, &bdai);
  return b;
}

void ExecDevice::Destroy(DeviceBuffer& b) {
  if (b.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device(), b.buffer, nullptr);
  if (b.memory != VK_NULL_HANDLE) vkFreeMemory(device(), b.memory, nullptr);
  b = {};
}

std::string ExecDevice::TakeValidationProblems() {
  std::vector<test::Message> all = harness_->Messages();
  std::vector<test::Message> fresh;
  for (size_t i = seen_messages_; i < all.size(); ++i) {
    const test::Message& m = all[i];
    if (m.severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT || m.id == "Loader Message") continue;
    fresh.push_back(m);
  }
  seen_messages_ = all.size();
  return test::VkHarness::Format(fresh);
}

ExecDevice& SharedDevice(bool with_int64) {
  static std::unique_ptr<ExecDevice> with;
  static std::unique_ptr<ExecDevice> without;
  std::unique_ptr<ExecDevice>& slot = with_int64 ? with : without;
  if (!slot) slot = std::make_unique<ExecDevice>(with_int64);
  return *slot;
}

}  // namespace bindery::spirv_exec
