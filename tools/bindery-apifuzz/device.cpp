#include "device.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace bindery::apifuzz {
namespace {

int open_devices = 0;

bool HasExtension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> props(n);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, props.data());
  for (const auto& p : props) {
    if (std::strcmp(p.extensionName, name) == 0) return true;
  }
  return false;
}

// The buffers' usage in the interpreter (Interpreter::Setup).
constexpr VkBufferUsageFlags kProgramBufferUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// OPAQUE_FD external memory the programs' buffers can be made on, exported and imported
// again (vkGetMemoryFdKHR), without a dedicated allocation.
bool ExternalMemoryUsable(VkPhysicalDevice pd) {
  if (!HasExtension(pd, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) return false;
  VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  info.usage = kProgramBufferUsage;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(pd, &info, &props);
  const VkExternalMemoryFeatureFlags f = props.externalMemoryProperties.externalMemoryFeatures;
  constexpr VkExternalMemoryFeatureFlags kBoth =
      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
  return (f & kBoth) == kBoth && (f & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) == 0;
}

}  // namespace

bool DescriptorIndexingStandIn() {
  const char* v = std::getenv("BINDERY_APIFUZZ_DESCRIPTOR_INDEXING_STANDIN");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

bool InheritedQueriesStandIn() {
  const char* v = std::getenv("BINDERY_APIFUZZ_INHERITED_QUERIES_STANDIN");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

bool PackedCopiesShape() {
  const char* v = std::getenv("BINDERY_APIFUZZ_PACKED_COPIES");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

bool ManySetsShape() {
  const char* v = std::getenv("BINDERY_APIFUZZ_MANY_SETS");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

bool PushImagesShape() {
  const char* v = std::getenv("BINDERY_APIFUZZ_PUSH_IMAGES");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

uint32_t SharedQueues() {
  const char* v = std::getenv("BINDERY_APIFUZZ_SHARED_QUEUES");
  return v == nullptr ? 0 : static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
}

namespace {

// The test layers below the validation layer this process uses, in order (stand-ins for
// driver features lavapipe lacks), and their environment.
// The queue-sharing layer serves one device at a time (a second device of the process
// would take its queues over), so the device with nullDescriptor goes without it: programs
// with nullable bindings use one queue there (the generator knows).
std::vector<const char*> StandInLayers(bool shared_queues = true) {
  std::vector<const char*> layers;
  if (DescriptorIndexingStandIn()) layers.push_back(kDescriptorIndexingStandInLayer);
  if (InheritedQueriesStandIn()) layers.push_back(kInheritedQueriesStandInLayer);
  if (shared_queues && SharedQueues() > 1) {
    ::setenv("BINDERY_TEST_SHARED_QUEUES", std::to_string(SharedQueues()).c_str(), 1);
    ::setenv("BINDERY_TEST_KEEP_TIMELINES", "1", 1);  // share queues only, hide nothing
    layers.push_back(kSharedQueuesLayer);
  }
  return layers;
}

// Queues of the first family with graphics and compute (the one the harness opens).
uint32_t QueueCount(VkPhysicalDevice pd) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  for (const VkQueueFamilyProperties& f : families) {
    const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    if ((f.queueFlags & want) == want) return f.queueCount;
  }
  return 1;
}

}  // namespace

bool QueryFeatures(Features* out, std::string* error) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  // Without layers, but for the stand-in drivers where they are asked for.
  const std::vector<const char*> standins = StandInLayers();
  ici.enabledLayerCount = static_cast<uint32_t>(standins.size());
  ici.ppEnabledLayerNames = standins.data();
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) {
    *error = "vkCreateInstance without layers failed";
    return false;
  }
  uint32_t count = 1;
  VkPhysicalDevice pd = VK_NULL_HANDLE;
  vkEnumeratePhysicalDevices(instance, &count, &pd);
  bool ok = pd != VK_NULL_HANDLE;
  if (ok) {
    Features f;
    VkPhysicalDeviceMultiDrawFeaturesEXT multi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    const bool has_multi = HasExtension(pd, VK_EXT_MULTI_DRAW_EXTENSION_NAME);
    const bool has_robustness2 = HasExtension(pd, VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
    VkPhysicalDeviceRobustness2FeaturesEXT robustness2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
    const bool has_gpl = HasExtension(pd, VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME) &&
                         HasExtension(pd, VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME);
    VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT gpl{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT};
    gpl.pNext = &v12;
    f2.pNext = has_gpl ? static_cast<void*>(&gpl) : &v12;
    v12.pNext = &v13;
    v13.pNext = has_multi ? &multi : nullptr;
    multi.pNext = has_robustness2 ? &robustness2 : nullptr;
    if (!has_multi) v13.pNext = multi.pNext;
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    f.push_descriptor = HasExtension(pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    f.multi_draw = has_multi && multi.multiDraw;
    f.pipeline_library = has_gpl && gpl.graphicsPipelineLibrary;
    f.multi_entry_modules = true;
    f.null_descriptor = has_robustness2 && robustness2.nullDescriptor;
    VkFormatProperties fp;
    vkGetPhysicalDeviceFormatProperties(pd, VK_FORMAT_R32_UINT, &fp);
    const VkFormatFeatureFlags image_needs = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT |
                                             VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    f.images = (fp.optimalTilingFeatures & image_needs) == image_needs;
    f.push_images = f.push_descriptor && f.images && PushImagesShape();
    {
      VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
      VkPhysicalDeviceVulkan12Features v12b{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, &v11};
      VkPhysicalDeviceFeatures2 q{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12b};
      vkGetPhysicalDeviceFeatures2(pd, &q);
      f.packed_copies = v11.storageBuffer16BitAccess && v12b.storageBuffer8BitAccess && PackedCopiesShape();
    }
    f.draw_indirect_count = v12.drawIndirectCount;
    f.array_dynamic_indexing = f2.features.shaderStorageBufferArrayDynamicIndexing &&
                               f2.features.shaderUniformBufferArrayDynamicIndexing;
    f.storage_alignment = static_cast<uint32_t>(std::max<VkDeviceSize>(props.limits.minStorageBufferOffsetAlignment, 4));
    f.uniform_alignment = static_cast<uint32_t>(std::max<VkDeviceSize>(props.limits.minUniformBufferOffsetAlignment, 4));
    f.max_push_constants = std::min(props.limits.maxPushConstantsSize, 128u);
    f.max_storage_images = props.limits.maxPerStageDescriptorStorageImages;
    f.max_bound_sets = props.limits.maxBoundDescriptorSets;
    f.many_sets = ManySetsShape();
    f.max_sampled_images = std::min(props.limits.maxPerStageDescriptorSampledImages,
                                    props.limits.maxPerStageDescriptorSamplers);
    f.partially_bound = v12.descriptorBindingPartiallyBound;
    f.variable_count = v12.descriptorBindingVariableDescriptorCount;
    f.unwritten_images = (f.partially_bound || f.variable_count) && !DescriptorIndexingStandIn();
    f.uab_storage = v12.descriptorBindingStorageBufferUpdateAfterBind;
    f.uab_uniform = v12.descriptorBindingUniformBufferUpdateAfterBind;
    f.uab_sampled = v12.descriptorBindingSampledImageUpdateAfterBind;
    f.uab_storage_image = v12.descriptorBindingStorageImageUpdateAfterBind;
    f.nonuniform_storage = v12.shaderStorageBufferArrayNonUniformIndexing;
    f.nonuniform_uniform = v12.shaderUniformBufferArrayNonUniformIndexing;
    f.nonuniform_sampled = v12.shaderSampledImageArrayNonUniformIndexing;
    f.nonuniform_storage_image = v12.shaderStorageImageArrayNonUniformIndexing;
    f.queues = std::min(QueueCount(pd), 3u);
    f.shared_queues = SharedQueues() > 1;
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props2.pNext = &driver;
    vkGetPhysicalDeviceProperties2(pd, &props2);
    f.dynamic_all_stages = driver.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY;
    f.fragment_library_crashes = f.pipeline_library && driver.driverID == VK_DRIVER_ID_NVIDIA_PROPRIETARY;
    f.compute_push_reaches_graphics_sets = driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
    f.external_memory = ExternalMemoryUsable(pd);
    f.pipeline_statistics = f2.features.pipelineStatisticsQuery;
    f.inherited_queries = f.pipeline_statistics && f2.features.inheritedQueries;
    f.query_begins_first = driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
    // Image transfers only where asked for (BINDERY_APIFUZZ_IMAGE_TRANSFERS=1) and every
    // format of the list is an optimal transfer source, destination and sampled image (blit
    // formats: blit source and destination, linear filtering too).
    const char* transfers = std::getenv("BINDERY_APIFUZZ_IMAGE_TRANSFERS");
    f.image_transfers = transfers != nullptr && std::strcmp(transfers, "1") == 0;
    for (const TransferFormat& tf : kTransferFormats) {
      VkFormatProperties tp;
      vkGetPhysicalDeviceFormatProperties(pd, static_cast<VkFormat>(tf.format), &tp);
      VkFormatFeatureFlags need = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT |
                                  VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
      if (tf.blit) {
        need |= VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT |
                VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
      }
      f.image_transfers = f.image_transfers && (tp.optimalTilingFeatures & need) == need;
    }
    ok = v12.timelineSemaphore && f2.features.vertexPipelineStoresAndAtomics &&
         f2.features.multiDrawIndirect && f2.features.drawIndirectFirstInstance;
    if (!ok) *error = "the device lacks timelineSemaphore, vertexPipelineStoresAndAtomics, "
                      "multiDrawIndirect or drawIndirectFirstInstance";
    *out = f;
  } else {
    *error = "no physical device";
  }
  vkDestroyInstance(instance, nullptr);
  return ok;
}

bool UsesNullDescriptors(const Program& p) {
  for (const SetLayout& l : p.set_layouts) {
    for (const Binding& b : l.bindings) {
      if (b.nullable) return true;
    }
  }
  return false;
}

void OpenSession(bool bindery, Session* s, bool null_descriptor) {
  Features f;
  if (!QueryFeatures(&f, &s->error)) return;
  const bool enable_null = null_descriptor && f.null_descriptor;
  VkPhysicalDeviceFeatures features{};
  features.vertexPipelineStoresAndAtomics = VK_TRUE;
  features.multiDrawIndirect = VK_TRUE;
  features.drawIndirectFirstInstance = VK_TRUE;
  features.shaderStorageBufferArrayDynamicIndexing = f.array_dynamic_indexing;
  features.shaderUniformBufferArrayDynamicIndexing = f.array_dynamic_indexing;
  features.pipelineStatisticsQuery = f.pipeline_statistics;
  features.inheritedQueries = f.inherited_queries;
  static VkPhysicalDeviceMultiDrawFeaturesEXT multi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT};
  // nullDescriptor alone (not robustBufferAccess2): null descriptors become valid, other
  // accesses behave as before.
  static VkPhysicalDeviceRobustness2FeaturesEXT robustness2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
  robustness2.nullDescriptor = VK_TRUE;
  static VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  static VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  static VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  multi.multiDraw = VK_TRUE;
  multi.pNext = enable_null ? &robustness2 : nullptr;
  v13.pNext = f.multi_draw ? static_cast<void*>(&multi) : multi.pNext;
  v12.timelineSemaphore = VK_TRUE;
  v12.drawIndirectCount = f.draw_indirect_count;
  // The descriptor-indexing features the generator may use: every program's device has them
  // (the generator picks per seed which ones a program uses).
  v12.descriptorBindingPartiallyBound = f.partially_bound;
  v12.descriptorBindingVariableDescriptorCount = f.variable_count;
  v12.descriptorBindingStorageBufferUpdateAfterBind = f.uab_storage;
  v12.descriptorBindingUniformBufferUpdateAfterBind = f.uab_uniform;
  v12.descriptorBindingSampledImageUpdateAfterBind = f.uab_sampled;
  v12.descriptorBindingStorageImageUpdateAfterBind = f.uab_storage_image;
  v12.shaderStorageBufferArrayNonUniformIndexing = f.nonuniform_storage;
  v12.shaderUniformBufferArrayNonUniformIndexing = f.nonuniform_uniform;
  v12.shaderSampledImageArrayNonUniformIndexing = f.nonuniform_sampled;
  v12.shaderStorageImageArrayNonUniformIndexing = f.nonuniform_storage_image;
  v12.pNext = &v13;
  // Packed copies (16/8-bit views of storage buffers): only where the shape is on, so every
  // other program's device is the one it always was.
  v12.storageBuffer8BitAccess = f.packed_copies;
  v11.storageBuffer16BitAccess = f.packed_copies;
  v11.pNext = &v12;
  void* chain = f.packed_copies ? static_cast<void*>(&v11) : &v12;
  static VkPhysicalDeviceGraphicsPipelineLibraryFeaturesEXT gpl{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GRAPHICS_PIPELINE_LIBRARY_FEATURES_EXT};
  gpl.graphicsPipelineLibrary = VK_TRUE;
  gpl.pNext = chain;
  if (f.pipeline_library) chain = &gpl;
  test::HarnessOptions o;
  o.bindery = bindery;
  o.queue_flags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  o.enabled_features = &features;
  o.device_pnext = chain;
  for (const char* layer : StandInLayers(!null_descriptor)) o.layers_below.push_back(layer);
  o.queue_count = null_descriptor && f.shared_queues ? 1 : f.queues;
  if (f.push_descriptor) o.device_extensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
  if (f.multi_draw) o.device_extensions.push_back(VK_EXT_MULTI_DRAW_EXTENSION_NAME);
  if (enable_null) o.device_extensions.push_back(VK_EXT_ROBUSTNESS_2_EXTENSION_NAME);
  if (f.external_memory) o.device_extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  if (f.pipeline_library) {
    o.device_extensions.push_back(VK_KHR_PIPELINE_LIBRARY_EXTENSION_NAME);
    o.device_extensions.push_back(VK_EXT_GRAPHICS_PIPELINE_LIBRARY_EXTENSION_NAME);
  }
  s->harness = std::make_unique<test::VkHarness>(o);
  ++open_devices;  // counted until the harness goes, whether or not its device opened
  if (!s->harness->ok()) {
    s->error = s->harness->error();
    return;
  }
  s->device = {s->harness->instance(), s->harness->physical_device(), s->harness->device(), s->harness->queue(),
               s->harness->command_pool(), {}, f, enable_null};
  // The queues of the first queue's family (one command pool serves them all).
  for (uint32_t i = 0; i < s->harness->queue_count(); ++i) {
    if (s->harness->queue_family_at(i) == s->harness->queue_family()) s->device.queues.push_back(s->harness->queue_at(i));
  }
}

}  // namespace bindery::apifuzz

namespace bindery::apifuzz {

void CloseSession(Session* s) {
  s->null_descriptor.reset();
  if (s->harness) --open_devices;
  s->harness.reset();
  s->device = {};
  s->error.clear();
}

Session::~Session() { CloseSession(this); }

int OpenDevices() { return open_devices; }

}  // namespace bindery::apifuzz
