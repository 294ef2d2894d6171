// Where indirect bindings converts every layout, extensions whose commands would hand the
// driver converted objects (smaller native layouts, layer-owned sets, pipeline layouts
// with a root) are not offered: VK_KHR_maintenance6, VK_EXT_descriptor_buffer,
// VK_EXT_shader_object, VK_VALVE_descriptor_set_host_mapping; nor are ray-tracing and
// mesh/task-shader extensions (stages the rewrite and the root do not reach: a pipeline
// of theirs would be half converted). Lavapipe 22.3 offers none of them, so a stand-in layer below Bindery (tests/extras_layer) plays a driver that
// does. Validation (synchronization validation on) sits below both.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "extras_layer/extras_layer.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

// The feature structs newer than the headers (VK_KHR_maintenance6, VK_EXT_shader_object).
struct OneFeature {
  VkStructureType sType;
  void* pNext;
  VkBool32 feature;
};

std::set<std::string> DeviceExtensions(VkPhysicalDevice pd) {
  std::vector<std::string> names;
  EXPECT_EQ(DeviceExtensionNames(pd, nullptr, &names), VK_SUCCESS);
  return {names.begin(), names.end()};
}

struct Features {
  VkPhysicalDeviceDescriptorBufferFeaturesEXT db{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT};
  OneFeature shader_object{static_cast<VkStructureType>(1000482000), nullptr, VK_FALSE};
  OneFeature maintenance6{static_cast<VkStructureType>(1000545000), nullptr, VK_FALSE};
  VkPhysicalDeviceDescriptorSetHostMappingFeaturesVALVE host_mapping{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_SET_HOST_MAPPING_FEATURES_VALVE};
  VkPhysicalDeviceRayTracingPipelineFeaturesKHR ray_tracing{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
  VkPhysicalDeviceMeshShaderFeaturesEXT mesh{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT};
  VkPhysicalDeviceMeshShaderFeaturesNV mesh_nv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_NV};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  explicit Features(VkPhysicalDevice pd) {
    db.pNext = &shader_object;
    shader_object.pNext = &maintenance6;
    maintenance6.pNext = &host_mapping;
    host_mapping.pNext = &ray_tracing;
    ray_tracing.pNext = &mesh;
    mesh.pNext = &mesh_nv;
    mesh_nv.pNext = &v12;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &db};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
  }
  // Every feature of the four extensions.
  std::vector<VkBool32> All() const {
    return {db.descriptorBuffer, db.descriptorBufferCaptureReplay, db.descriptorBufferImageLayoutIgnored,
            db.descriptorBufferPushDescriptors, shader_object.feature, maintenance6.feature,
            host_mapping.descriptorSetHostMapping, ray_tracing.rayTracingPipeline,
            ray_tracing.rayTraversalPrimitiveCulling, mesh.meshShader, mesh.taskShader, mesh_nv.meshShader,
            mesh_nv.taskShader};
  }
};

uint32_t StandInCreatedWith() {
  void* lib = dlopen(BINDERY_EXTRAS_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return UINT32_MAX;
  auto fn = reinterpret_cast<BinderyExtrasCreatedWithFn>(dlsym(lib, "bindery_extras_created_with"));
  const uint32_t n = fn != nullptr ? fn() : UINT32_MAX;
  dlclose(lib);
  return n;
}

// A second device on the harness's physical device, with `extension` (and `pnext`).
VkResult CreateDeviceWith(VkHarness& h, const char* extension, const void* pnext = nullptr) {
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = h.queue_family();
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, pnext};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.enabledExtensionCount = extension != nullptr ? 1 : 0;
  info.ppEnabledExtensionNames = &extension;
  VkDevice device = VK_NULL_HANDLE;
  const VkResult r = vkCreateDevice(h.physical_device(), &info, nullptr, &device);
  if (r == VK_SUCCESS) vkDestroyDevice(device, nullptr);
  return r;
}

std::unique_ptr<VkHarness> OverStandIn() {
  HarnessOptions options;
  options.layers_between.push_back(kExtrasLayerName);
  return std::make_unique<VkHarness>(options);
}

TEST(BindingsHiddenExtensions, ForceHidesThemOverADriverThatHasThem) {
  ScopedEnv mode("BINDERY_INDIRECT_BINDINGS", "force");
  auto h = OverStandIn();
  ASSERT_TRUE(h->ok()) << h->error();
  const std::set<std::string> seen = DeviceExtensions(h->physical_device());
  for (const char* name : kExtrasOffered) EXPECT_EQ(seen.count(name), 0u) << name << " offered under force";
  EXPECT_EQ(seen.count(VK_KHR_MAINTENANCE_3_EXTENSION_NAME), 1u);  // the rest of the list is kept
  for (VkBool32 f : Features(h->physical_device()).All()) EXPECT_EQ(f, VK_FALSE);

  // Asked for anyway: refused by Bindery, never reaching the layer below.
  for (const char* name : kExtrasOffered) {
    EXPECT_EQ(CreateDeviceWith(*h, name), VK_ERROR_EXTENSION_NOT_PRESENT) << name;
  }
  EXPECT_EQ(StandInCreatedWith(), 0u);
  EXPECT_TRUE(HasMessage(h->BinderyMessages(), "BINDERY-hidden-extension", "VK_EXT_descriptor_buffer"));
  // A hidden feature asked for without its extension: refused too.
  VkPhysicalDeviceDescriptorBufferFeaturesEXT db{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT};
  db.descriptorBuffer = VK_TRUE;
  EXPECT_EQ(CreateDeviceWith(*h, nullptr, &db), VK_ERROR_FEATURE_NOT_PRESENT);
  EXPECT_TRUE(h->ValidationProblems().empty()) << VkHarness::Format(h->ValidationProblems());
}

TEST(BindingsHiddenExtensions, OffKeepsTheDriversList) {
  ScopedEnv mode("BINDERY_INDIRECT_BINDINGS", "off");
  auto h = OverStandIn();
  ASSERT_TRUE(h->ok()) << h->error();
  const std::set<std::string> seen = DeviceExtensions(h->physical_device());
  for (const char* name : kExtrasOffered) EXPECT_EQ(seen.count(name), 1u) << name << " missing under off";
  for (VkBool32 f : Features(h->physical_device()).All()) EXPECT_EQ(f, VK_TRUE);
  // The stand-in gets the extension (and drops it: it implements nothing).
  EXPECT_EQ(CreateDeviceWith(*h, "VK_EXT_descriptor_buffer"), VK_SUCCESS);
  EXPECT_EQ(StandInCreatedWith(), 1u);
  EXPECT_TRUE(h->ValidationProblems().empty()) << VkHarness::Format(h->ValidationProblems());
}

// Under auto on a driver the policy does not list as paying (lavapipe; every driver
// measured so far), only layouts beyond the driver's limits convert: nothing is hidden.
TEST(BindingsHiddenExtensions, AutoWhereConversionDoesNotPayKeepsTheDriversList) {
  ScopedEnv mode("BINDERY_INDIRECT_BINDINGS", "auto");
  auto h = OverStandIn();
  ASSERT_TRUE(h->ok()) << h->error();
  const std::set<std::string> seen = DeviceExtensions(h->physical_device());
  for (const char* name : kExtrasOffered) EXPECT_EQ(seen.count(name), 1u) << name << " missing under auto";
  for (VkBool32 f : Features(h->physical_device()).All()) EXPECT_EQ(f, VK_TRUE);
  EXPECT_TRUE(h->ValidationProblems().empty()) << VkHarness::Format(h->ValidationProblems());
}

// The driver alone (no stand-in): forcing changes its list by nothing it has.
TEST(BindingsHiddenExtensions, ForceOnTheDriverAloneRemovesOnlyHiddenNames) {
  std::set<std::string> off, forced;
  {
    ScopedEnv mode("BINDERY_INDIRECT_BINDINGS", "off");
    VkHarness h;
    ASSERT_TRUE(h.ok()) << h.error();
    off = DeviceExtensions(h.physical_device());
  }
  {
    ScopedEnv mode("BINDERY_INDIRECT_BINDINGS", "force");
    VkHarness h;
    ASSERT_TRUE(h.ok()) << h.error();
    forced = DeviceExtensions(h.physical_device());
  }
  // What force hides besides the stand-in's extensions: commands that draw or dispatch
  // without the pre-draw step (the NVIDIA driver offers VK_EXT_device_generated_commands).
  constexpr const char* kAlsoHidden[] = {"VK_NV_device_generated_commands", "VK_EXT_device_generated_commands",
                                         "VK_AMDX_shader_enqueue", "VK_HUAWEI_subpass_shading"};
  for (const char* name : kExtrasOffered) off.erase(name);
  for (const char* name : kAlsoHidden) off.erase(name);
  EXPECT_EQ(forced, off);
}

}  // namespace
}  // namespace bindery::test
