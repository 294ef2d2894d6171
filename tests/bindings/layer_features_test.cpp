// Features the layer enables below the application (issue 30 part 7): where the device has
// them, indirect bindings enables shaderInt64 (64-bit offsets: buffers beyond 4 GiB),
// shaderInt16, shaderFloat16 and shaderInt8 (8/16-bit values merged as they are) at device
// creation, whether or not the application did. What the application sees must not change:
// its create info is never written (the layer edits a copy), its features query stays the
// driver's, and validation below the layer (which sees the features enabled) stays silent
// about the rewritten modules that use them.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "far_words_comp.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

VkPhysicalDeviceFeatures DriverFeatures() {
  HarnessOptions options;
  options.bindery = false;
  VkHarness h(options);
  VkPhysicalDeviceFeatures f{};
  if (h.ok()) vkGetPhysicalDeviceFeatures(h.physical_device(), &f);
  return f;
}

// The application's features in each form it may give them: pEnabledFeatures, or a
// VkPhysicalDeviceFeatures2 in the chain. Neither names shaderInt64.
class LayerFeatures : public testing::TestWithParam<bool> {};

TEST_P(LayerFeatures, ShaderInt64EnabledBelowTheApplicationOnly) {
  const VkPhysicalDeviceFeatures driver = DriverFeatures();
  if (!driver.shaderInt64) GTEST_SKIP() << "the device has no shaderInt64: nothing for the layer to enable";
  const bool features2 = GetParam();
  const std::string log_path = ::testing::TempDir() + "bindery_layer_features" + "_" + std::to_string(getpid()) + ".log";
  std::remove(log_path.c_str());
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv log_file("BINDERY_LOG_FILE", log_path);
  ScopedEnv log_level("BINDERY_LOG_LEVEL", "info");
  // const data: the layer must copy, never write (a write would fault or show below).
  static const VkPhysicalDeviceFeatures kNone{};
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.bufferDeviceAddress = VK_TRUE;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
  HarnessOptions options;
  options.device_pnext = features2 ? static_cast<const void*>(&f2) : &v12;
  options.enabled_features = features2 ? nullptr : &kNone;
  {
    VkHarness h(options);
    ASSERT_TRUE(h.ok()) << h.error();
    // The application's structs are as it made them.
    EXPECT_EQ(f2.features.shaderInt64, VK_FALSE);
    const VkPhysicalDeviceFeatures none{};
    EXPECT_EQ(std::memcmp(&kNone, &none, sizeof(kNone)), 0);
    EXPECT_EQ(v12.shaderFloat16, VK_FALSE);
    // Its features query is the driver's.
    VkPhysicalDeviceFeatures seen{};
    vkGetPhysicalDeviceFeatures(h.physical_device(), &seen);
    EXPECT_EQ(std::memcmp(&seen, &driver, sizeof(seen)), 0);
    // A converted kernel runs (its rewrite uses 64-bit addresses), validation silent.
    // far_words.comp: reads and writes three words of binding 0 at the indices binding 1 holds.
    ComputeKernel k = h.CreateKernel(far_words_comp, sizeof(far_words_comp), 2);
    HostBuffer a = h.CreateHostBuffer(256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer b = h.CreateHostBuffer(7 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(a.mapped, 0, 256);
    const uint32_t io[7] = {1, 20, 63, 0, 0, 0, 0};
    std::memcpy(b.mapped, io, sizeof(io));
    VkDescriptorSet set = h.AllocateStorageSet(k, {a.buffer, b.buffer});
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    BarrierToHost(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
    EXPECT_EQ(static_cast<const uint32_t*>(a.mapped)[63], 0xA002u);
    EXPECT_EQ(static_cast<const uint32_t*>(b.mapped)[6], 64u);  // the array's length
    h.Destroy(a);
    h.Destroy(b);
    h.Destroy(k);
    h.DestroyDevice();
    EXPECT_TRUE(h.ValidationProblems().empty()) << VkHarness::Format(h.ValidationProblems());
    EXPECT_EQ(SummaryCounter(h.BinderySummary(), "pipelines rewritten"), 1u);
    EXPECT_EQ(SummaryCounter(h.BinderySummary(), "fallen back"), 0u);
  }
  const std::string log = ReadAll(log_path);
  EXPECT_NE(log.find("addresses as uint64"), std::string::npos) << log;
}

INSTANTIATE_TEST_SUITE_P(Forms, LayerFeatures, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& i) {
                           return i.param ? "Features2InTheChain" : "EnabledFeatures";
                         });

}  // namespace
}  // namespace bindery::test
