// vkGetDescriptorSetLayoutSupport(KHR) for layouts indirect bindings converts: the answer
// is the layer's (the native part's, with converted variable-count bindings at their
// declared maximum), not the driver's for the whole layout. Lavapipe 22.3 answers
// supported for every layout, so the tests ask over tests/extras_layer, which answers as
// a strict driver: 40 storage buffers in one stage (lavapipe's limit is 32) unsupported.
// Under off the answer is the driver's. Validation (synchronization validation on) below.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "extras_layer/extras_layer.h"
#include "integration/test_env.h"

namespace bindery::test {
namespace {

constexpr uint32_t kBuffers = 40;

struct Answer {
  VkBool32 supported = VK_FALSE;
  uint32_t max_variable = 0;
  VkBool32 supported_khr = VK_FALSE;
};

// `variable`: binding 1 holds the storage buffers with a variable count (binding 0 a
// sampled image); else binding 0 holds them.
Answer Ask(VkHarness& h, bool variable) {
  VkDescriptorSetLayoutBinding b[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBuffers, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBuffers, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  const VkDescriptorBindingFlags flags[2] = {0, VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT};
  VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
  VkDescriptorSetLayoutCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  info.pBindings = b;
  info.bindingCount = 1;
  if (variable) {
    b[0] = {0, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    info.bindingCount = 2;
    flags_info.bindingCount = 2;
    flags_info.pBindingFlags = flags;
    info.pNext = &flags_info;
  }
  VkDescriptorSetVariableDescriptorCountLayoutSupport var{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_LAYOUT_SUPPORT};
  VkDescriptorSetLayoutSupport support{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_SUPPORT, &var};
  vkGetDescriptorSetLayoutSupport(h.device(), &info, &support);
  Answer a;
  a.supported = support.supported;
  a.max_variable = var.maxVariableDescriptorCount;
  auto khr = reinterpret_cast<PFN_vkGetDescriptorSetLayoutSupportKHR>(
      vkGetDeviceProcAddr(h.device(), "vkGetDescriptorSetLayoutSupportKHR"));
  EXPECT_NE(khr, nullptr);
  if (khr != nullptr) {
    VkDescriptorSetLayoutSupport s2{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_SUPPORT};
    khr(h.device(), &info, &s2);
    a.supported_khr = s2.supported;
  }
  return a;
}

class LayoutSupportRig {
 public:
  LayoutSupportRig(const char* mode, bool variable_count, bool bindery = true)
      : mode_("BINDERY_INDIRECT_BINDINGS", mode) {
    v12_.descriptorBindingVariableDescriptorCount = VK_TRUE;
    HarnessOptions options;
    options.bindery = bindery;
    options.layers_between.push_back(kExtrasLayerName);
    options.device_extensions = {VK_KHR_MAINTENANCE_3_EXTENSION_NAME};
    if (variable_count) options.device_pnext = &v12_;
    h = std::make_unique<VkHarness>(options);
  }
  std::unique_ptr<VkHarness> h;

 private:
  ScopedEnv mode_;
  VkPhysicalDeviceVulkan12Features v12_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
};

// Variable-count bindings need descriptorBindingVariableDescriptorCount (lavapipe 22.3
// lacks it: those tests skip there).
bool DeviceHasVariableCount() {
  LayoutSupportRig rig("off", false, false);
  if (!rig.h->ok()) return false;
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
  vkGetPhysicalDeviceFeatures2(rig.h->physical_device(), &f2);
  return v12.descriptorBindingVariableDescriptorCount == VK_TRUE;
}

// Storage buffers of the last layout whose support reached the layer below Bindery.
uint32_t StorageBuffersSeenBelow() {
  void* lib = dlopen(BINDERY_EXTRAS_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return UINT32_MAX;
  auto fn = reinterpret_cast<BinderyExtrasLastLayoutStorageBuffersFn>(
      dlsym(lib, "bindery_extras_last_layout_storage_buffers"));
  const uint32_t n = fn != nullptr ? fn() : UINT32_MAX;
  dlclose(lib);
  return n;
}

Answer DriverAnswer(bool variable) {
  LayoutSupportRig rig("off", variable, /*bindery=*/false);
  EXPECT_TRUE(rig.h->ok()) << rig.h->error();
  return rig.h->ok() ? Ask(*rig.h, variable) : Answer{};
}

TEST(BindingsLayoutSupport, FortyStorageBuffersSupportedUnderForce) {
  LayoutSupportRig rig("force", false);
  ASSERT_TRUE(rig.h->ok()) << rig.h->error();
  const Answer plain = Ask(*rig.h, false);
  EXPECT_EQ(plain.supported, VK_TRUE);
  EXPECT_EQ(plain.supported_khr, VK_TRUE);
  EXPECT_EQ(StorageBuffersSeenBelow(), 0u);  // only the native part (no storage buffers) was asked about
  EXPECT_TRUE(rig.h->ValidationProblems().empty()) << VkHarness::Format(rig.h->ValidationProblems());
}

TEST(BindingsLayoutSupport, OffGivesTheDriversAnswer) {
  const Answer driver = DriverAnswer(false);
  LayoutSupportRig rig("off", false);
  ASSERT_TRUE(rig.h->ok()) << rig.h->error();
  const Answer plain = Ask(*rig.h, false);
  EXPECT_EQ(StorageBuffersSeenBelow(), kBuffers);
  EXPECT_EQ(plain.supported, driver.supported);
  EXPECT_EQ(plain.supported_khr, driver.supported_khr);
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(rig.h->physical_device(), &props);
  if (props.limits.maxPerStageDescriptorStorageBuffers < kBuffers) {
    EXPECT_EQ(plain.supported, VK_FALSE);  // the strict stand-in's answer reaches the application
  }
  EXPECT_TRUE(rig.h->ValidationProblems().empty()) << VkHarness::Format(rig.h->ValidationProblems());
}

TEST(BindingsLayoutSupport, ConvertedVariableCountBindingAtItsMaximumUnderForce) {
  if (!DeviceHasVariableCount()) GTEST_SKIP() << "the device lacks descriptorBindingVariableDescriptorCount";
  const Answer driver = DriverAnswer(true);
  LayoutSupportRig rig("force", true);
  ASSERT_TRUE(rig.h->ok()) << rig.h->error();
  const Answer variable = Ask(*rig.h, true);
  EXPECT_EQ(variable.supported, VK_TRUE);
  EXPECT_EQ(variable.supported_khr, VK_TRUE);
  EXPECT_EQ(variable.max_variable, kBuffers);  // the converted binding's declared maximum
  EXPECT_TRUE(rig.h->ValidationProblems().empty()) << VkHarness::Format(rig.h->ValidationProblems());
  LayoutSupportRig off("off", true);
  ASSERT_TRUE(off.h->ok()) << off.h->error();
  const Answer native = Ask(*off.h, true);
  EXPECT_EQ(native.supported, driver.supported);
  EXPECT_EQ(native.max_variable, driver.max_variable);
}

}  // namespace
}  // namespace bindery::test
