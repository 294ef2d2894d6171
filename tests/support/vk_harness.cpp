#include "support/vk_harness.h"

#include "support/vk_objects.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

namespace bindery::test {

VKAPI_ATTR VkBool32 VKAPI_CALL VkHarness::Callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* self = static_cast<VkHarness*>(user);
  std::lock_guard<std::mutex> lock(self->messages_mutex_);
  self->messages_.push_back({severity, data->pMessageIdName ? data->pMessageIdName : "",
                             data->pMessage ? data->pMessage : ""});
  return VK_FALSE;
}

VkHarness::VkHarness(const HarnessOptions& options) {
  std::vector<const char*> layers;
  for (const std::string& l : options.layers_above) layers.push_back(l.c_str());
  if (options.bindery) layers.push_back("VK_LAYER_bindery");
  for (const std::string& l : options.layers_between) layers.push_back(l.c_str());
  if (options.validation) layers.push_back("VK_LAYER_KHRONOS_validation");
  for (const std::string& l : options.layers_below) layers.push_back(l.c_str());
  // A diagnostic for crashes seen on another driver (e.g. the GPU machine): whether a test's
  // program crashes without one of its layers. BINDERY_TEST_DROP_LAYERS=VK_LAYER_bindery,...
  // (the test then fails where it expects that layer's work; only the crash is in question).
  if (const char* drop = std::getenv("BINDERY_TEST_DROP_LAYERS")) {
    const std::string dropped = std::string(",") + drop + ",";
    layers.erase(std::remove_if(layers.begin(), layers.end(),
                                [&](const char* l) { return dropped.find(std::string(",") + l + ",") != std::string::npos; }),
                 layers.end());
  }

  const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.pNext = options.instance_pnext;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;

  VkDebugUtilsMessengerCreateInfoEXT messenger_info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.pNext = options.validation ? static_cast<const void*>(&features) : options.instance_pnext;
  messenger_info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &VkHarness::Callback;
  messenger_info.pUserData = this;

  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "bindery-test";
  app.apiVersion = options.api_version;
  std::vector<const char*> instance_exts = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  instance_exts.insert(instance_exts.end(), options.instance_extensions.begin(), options.instance_extensions.end());
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pNext = &messenger_info;
  ici.pApplicationInfo = &app;
  ici.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ici.ppEnabledLayerNames = layers.data();
  ici.enabledExtensionCount = static_cast<uint32_t>(instance_exts.size());
  ici.ppEnabledExtensionNames = instance_exts.data();
  VkResult r = vkCreateInstance(&ici, nullptr, &instance_);
  if (r != VK_SUCCESS) {
    error_ = "vkCreateInstance failed: " + std::to_string(r) +
             " (is VK_ADD_LAYER_PATH pointing at the build tree's manifest/explicit?)";
    instance_ = VK_NULL_HANDLE;
    return;
  }
  auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
  messenger_info.pNext = nullptr;
  create_messenger(instance_, &messenger_info, nullptr, &messenger_);

  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  if (count == 0) {
    error_ = "no physical device";
    return;
  }
  std::vector<VkPhysicalDevice> devices(count);
  vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  physical_ = devices[0];

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &family_count, families.data());
  queue_family_ = UINT32_MAX;
  if (options.queue_family != UINT32_MAX) {
    if (options.queue_family >= family_count) {
      error_ = "no queue family " + std::to_string(options.queue_family);
      return;
    }
    queue_family_ = options.queue_family;
  }
  auto fits = [&](uint32_t i) { return (families[i].queueFlags & options.queue_flags) == options.queue_flags; };
  for (uint32_t i = 0; i < family_count && queue_family_ == UINT32_MAX; ++i) {
    if (fits(i)) {
      queue_family_ = i;
      break;
    }
  }
  if (queue_family_ == UINT32_MAX) {
    error_ = "no queue family with flags " + std::to_string(options.queue_flags);
    return;
  }
  // Queues per family: the chosen family first, as many as it has; then the others.
  const uint32_t wanted = options.queue_count == 0 ? 1 : options.queue_count;
  std::vector<std::pair<uint32_t, uint32_t>> plan;  // family, queue count
  plan.emplace_back(queue_family_, std::min(wanted, families[queue_family_].queueCount));
  uint32_t planned = plan[0].second;
  for (uint32_t i = 0; i < family_count && planned < wanted; ++i) {
    if (i == queue_family_ || !fits(i)) continue;
    plan.emplace_back(i, 1u);
    ++planned;
  }
  const std::vector<float> priorities(wanted, 1.0f);
  std::vector<VkDeviceQueueCreateInfo> qcis;
  for (const auto& [family, n] : plan) {
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = family;
    qci.queueCount = n;
    qci.pQueuePriorities = priorities.data();
    qcis.push_back(qci);
  }
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = options.device_pnext;
  VkDeviceGroupDeviceCreateInfo group{VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO};
  if (options.device_group) {
    group.pNext = options.device_pnext;
    group.physicalDeviceCount = 1;
    group.pPhysicalDevices = &physical_;
    dci.pNext = &group;
  }
  dci.queueCreateInfoCount = static_cast<uint32_t>(qcis.size());
  dci.pQueueCreateInfos = qcis.data();
  std::vector<const char*> extensions = options.device_extensions;
  if (!options.optional_device_extensions.empty()) {
    uint32_t offered_count = 0;
    vkEnumerateDeviceExtensionProperties(physical_, nullptr, &offered_count, nullptr);
    std::vector<VkExtensionProperties> offered(offered_count);
    vkEnumerateDeviceExtensionProperties(physical_, nullptr, &offered_count, offered.data());
    for (const char* name : options.optional_device_extensions) {
      for (const VkExtensionProperties& e : offered) {
        if (std::strcmp(e.extensionName, name) == 0) {
          extensions.push_back(name);
          break;
        }
      }
    }
  }
  device_extensions_.assign(extensions.begin(), extensions.end());
  dci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  dci.ppEnabledExtensionNames = extensions.data();
  dci.pEnabledFeatures = options.enabled_features;
  r = vkCreateDevice(physical_, &dci, nullptr, &device_);
  if (r != VK_SUCCESS) {
    error_ = "vkCreateDevice failed: " + std::to_string(r);
    device_ = VK_NULL_HANDLE;
    return;
  }
  for (const auto& [family, n] : plan) {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = family;
    VkCommandPool pool = VK_NULL_HANDLE;
    vkCreateCommandPool(device_, &pci, nullptr, &pool);
    families_.push_back(family);
    for (uint32_t i = 0; i < n; ++i) {
      VkQueue q = VK_NULL_HANDLE;
      vkGetDeviceQueue(device_, family, i, &q);
      queues_.push_back({q, family, pool});
    }
  }
  queue_ = queues_[0].queue;
  pool_ = queues_[0].pool;
}

void VkHarness::DestroyDevice() {
  if (device_ == VK_NULL_HANDLE) return;
  vkDeviceWaitIdle(device_);
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    if (i == 0 || queues_[i].pool != queues_[i - 1].pool) vkDestroyCommandPool(device_, queues_[i].pool, nullptr);
  }
  queues_.clear();
  if (descriptor_pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
  vkDestroyDevice(device_, nullptr);
  device_ = VK_NULL_HANDLE;
  pool_ = VK_NULL_HANDLE;
  descriptor_pool_ = VK_NULL_HANDLE;
}

VkHarness::~VkHarness() {
  DestroyDevice();
  if (instance_ != VK_NULL_HANDLE) {
    if (messenger_ != VK_NULL_HANDLE) {
      auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
      destroy(instance_, messenger_, nullptr);
    }
    vkDestroyInstance(instance_, nullptr);
  }
}

std::vector<Message> VkHarness::Messages() const {
  std::lock_guard<std::mutex> lock(messages_mutex_);
  return messages_;
}

std::vector<Message> VkHarness::ValidationProblems() const {
  std::vector<Message> out;
  for (const Message& m : Messages()) {
    if (m.severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) continue;
    if (m.id.rfind("BINDERY-", 0) == 0 || m.id == "Loader Message") continue;
    out.push_back(m);
  }
  return out;
}

std::vector<Message> VkHarness::BinderyMessages() const {
  std::vector<Message> out;
  for (const Message& m : Messages()) {
    if (m.id.rfind("BINDERY-", 0) == 0) out.push_back(m);
  }
  return out;
}

std::string VkHarness::Format(const std::vector<Message>& messages) {
  std::ostringstream out;
  for (const Message& m : messages) out << "  [" << m.id << "] " << m.text << "\n";
  return out.str();
}

uint32_t VkHarness::FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags flags) const {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical_, &props);
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & flags) == flags) return i;
  }
  return UINT32_MAX;
}

HostBuffer VkHarness::CreateHostBuffer(VkDeviceSize size, VkBufferUsageFlags usage,
                                       VkExternalMemoryHandleTypeFlags export_handles) {
  HostBuffer b;
  b.size = size;
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = export_handles;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, export_handles != 0 ? &external : nullptr};
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (families_.size() > 1) {  // queues of several families use it: no ownership transfers needed
    bci.sharingMode = VK_SHARING_MODE_CONCURRENT;
    bci.queueFamilyIndexCount = static_cast<uint32_t>(families_.size());
    bci.pQueueFamilyIndices = families_.data();
  }
  if (vkCreateBuffer(device_, &bci, nullptr, &b.buffer) != VK_SUCCESS) return {};
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.handleTypes = export_handles;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, export_handles != 0 ? &export_info : nullptr};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex =
      FindMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (mai.memoryTypeIndex == UINT32_MAX || vkAllocateMemory(device_, &mai, nullptr, &b.memory) != VK_SUCCESS) {
    vkDestroyBuffer(device_, b.buffer, nullptr);
    return {};
  }
  vkBindBufferMemory(device_, b.buffer, b.memory, 0);
  vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
  return b;
}

void VkHarness::Destroy(HostBuffer& b) {
  if (b.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device_, b.buffer, nullptr);
  if (b.memory != VK_NULL_HANDLE) vkFreeMemory(device_, b.memory, nullptr);
  b = {};
}

ComputeKernel VkHarness::CreateKernel(const uint32_t* spirv, size_t spirv_bytes, uint32_t set_bindings,
                                      uint32_t push_constant_bytes) {
  ComputeKernel k;
  k.module = CreateShaderModule(device_, spirv, spirv_bytes);
  std::vector<VkDescriptorSetLayoutBinding> bindings(set_bindings);
  for (uint32_t i = 0; i < set_bindings; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  k.set_layout = CreateSetLayout(device_, bindings);
  k.layout = CreatePipelineLayout(device_, {k.set_layout}, push_constant_bytes);
  CreateComputePipeline(device_, k.layout, k.module, "main", {}, &k.pipeline);
  return k;
}

void VkHarness::Destroy(ComputeKernel& k) {
  vkDestroyPipeline(device_, k.pipeline, nullptr);
  vkDestroyPipelineLayout(device_, k.layout, nullptr);
  vkDestroyDescriptorSetLayout(device_, k.set_layout, nullptr);
  vkDestroyShaderModule(device_, k.module, nullptr);
  k = {};
}

std::string VkHarness::BinderySummary() const {
  std::string summary;
  for (const Message& m : BinderyMessages()) {
    if (m.id == "BINDERY-summary") summary = m.text;
  }
  return summary;
}

bool VkHarness::device_extension_enabled(const char* name) const {
  return std::find(device_extensions_.begin(), device_extensions_.end(), name) != device_extensions_.end();
}

uint64_t SummaryCounter(const std::string& summary, const std::string& name) {
  std::smatch m;
  const std::regex re(name + " (\\d+)");
  return std::regex_search(summary, m, re) ? std::stoull(m[1]) : ~0ull;
}

VkDescriptorSet VkHarness::AllocateStorageSet(const ComputeKernel& kernel, const std::vector<VkBuffer>& buffers) {
  if (descriptor_pool_ == VK_NULL_HANDLE) {
    descriptor_pool_ = CreateDescriptorPool(device_, 16, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 64}});
    if (descriptor_pool_ == VK_NULL_HANDLE) return VK_NULL_HANDLE;
  }
  const VkDescriptorSet set = AllocateSet(device_, descriptor_pool_, kernel.set_layout);
  if (set == VK_NULL_HANDLE) return VK_NULL_HANDLE;
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    infos[i] = {buffers[i], 0, VK_WHOLE_SIZE};
    writes[i] = BufferWrite(set, static_cast<uint32_t>(i), 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[i]);
  }
  vkUpdateDescriptorSets(device_, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return set;
}

VkCommandBuffer VkHarness::BeginCommands(uint32_t queue_index) {
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = queues_.at(queue_index).pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  vkAllocateCommandBuffers(device_, &cbai, &cb);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cb, &begin);
  return cb;
}

VkResult VkHarness::SubmitAndWait(VkCommandBuffer cb) { return SubmitAndWait(cb, 0); }

VkResult VkHarness::SubmitAndWait(VkCommandBuffer cb, uint32_t queue_index) {
  const QueueSlot& slot = queues_.at(queue_index);
  vkEndCommandBuffer(cb);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  VkResult r = vkQueueSubmit(slot.queue, 1, &si, VK_NULL_HANDLE);
  if (r == VK_SUCCESS) r = vkQueueWaitIdle(slot.queue);
  vkFreeCommandBuffers(device_, slot.pool, 1, &cb);
  return r;
}

}  // namespace bindery::test
