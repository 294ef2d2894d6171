// Settings reach the layer from the environment and from vk_layer_settings.txt, and
// unknown keys are reported through the application's messenger.
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "integration/test_env.h"

namespace bindery::test {
namespace {

TEST(LayerSettings, FromEnvironment) {
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  ScopedEnv timeline("BINDERY_TIMELINE", "force");
  ScopedEnv bogus("BINDERY_NOT_A_SETTING", "1");
  VkHarness h({.bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  const auto messages = h.BinderyMessages();
  EXPECT_TRUE(HasMessage(messages, "BINDERY-instance", "timeline=force")) << VkHarness::Format(messages);
  EXPECT_TRUE(HasMessage(messages, "BINDERY-settings", "BINDERY_NOT_A_SETTING")) << VkHarness::Format(messages);
  EXPECT_VALIDATION_SILENT(h);
}

// Every capability off: the layer only passes calls on, feature queries included. The
// shell's vkGetPhysicalDeviceFeatures2 once asked the next layer's vkGetInstanceProcAddr at
// call time; directly above the loader (no validation layer between) that answered with the
// loader's trampoline, i.e. the shell's own hook, and every application (vulkaninfo, ggml on
// the H100) crashed in an endless recursion. So the stack is checked both without and with
// the validation layer below.
TEST(LayerSettings, EveryCapabilityOffAnswersFeatureQueriesAsTheDriver) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "off");
  ScopedEnv transfers("BINDERY_TRANSFERS", "off");
  ScopedEnv timeline("BINDERY_TIMELINE", "off");
  VkHarness without({.bindery = false, .validation = false});
  ASSERT_TRUE(without.ok()) << without.error();
  VkPhysicalDeviceVulkan12Features expected{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceFeatures2 expected2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &expected};
  vkGetPhysicalDeviceFeatures2(without.physical_device(), &expected2);
  for (bool validation : {false, true}) {
    SCOPED_TRACE(validation ? "validation below" : "the loader directly below");
    VkHarness h({.bindery = true, .validation = validation});
    ASSERT_TRUE(h.ok()) << h.error();
    for (const char* name : {"vkGetPhysicalDeviceFeatures2", "vkGetPhysicalDeviceFeatures2KHR"}) {
      auto features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(vkGetInstanceProcAddr(h.instance(), name));
      if (features2 == nullptr) continue;  // the KHR name where the instance did not enable the extension
      VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
      VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v12};
      features2(h.physical_device(), &f2);
      EXPECT_EQ(std::memcmp(&f2.features, &expected2.features, sizeof(f2.features)), 0) << name;
      EXPECT_EQ(v12.timelineSemaphore, expected.timelineSemaphore) << name;
      EXPECT_EQ(v12.bufferDeviceAddress, expected.bufferDeviceAddress) << name;
      EXPECT_EQ(v12.descriptorIndexing, expected.descriptorIndexing) << name;
    }
    if (validation) {
      EXPECT_VALIDATION_SILENT(h);
    }
  }
}

TEST(LayerSettings, FromSettingsFileWithEnvironmentWinning) {
  const std::string path = ::testing::TempDir() + "bindery_it_vk_layer_settings" + "_" + std::to_string(getpid()) + ".txt";
  std::ofstream(path) << "# written by the test\n"
                         "bindery.log_level = info\n"
                         "bindery.transfers = off\n"
                         "bindery.indirect_bindings = force\n"
                         "bindery.mystery_key = 2\n";
  ScopedEnv file("VK_LAYER_SETTINGS_PATH", path);
  ScopedEnv env_override("BINDERY_INDIRECT_BINDINGS", "off");
  VkHarness h({.bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  const auto messages = h.BinderyMessages();
  EXPECT_TRUE(HasMessage(messages, "BINDERY-instance", "transfers=off")) << VkHarness::Format(messages);
  EXPECT_TRUE(HasMessage(messages, "BINDERY-instance", "indirect_bindings=off")) << VkHarness::Format(messages);
  EXPECT_TRUE(HasMessage(messages, "BINDERY-instance", "settings_file=" + path)) << VkHarness::Format(messages);
  EXPECT_TRUE(HasMessage(messages, "BINDERY-settings", "bindery.mystery_key")) << VkHarness::Format(messages);
  EXPECT_VALIDATION_SILENT(h);
}

TEST(LayerSettings, LogFileGetsTheSummary) {
  const std::string log = ::testing::TempDir() + "bindery_it" + "_" + std::to_string(getpid()) + ".log";
  std::remove(log.c_str());
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  ScopedEnv file("BINDERY_LOG_FILE", log);
  {
    VkHarness h({.bindery = true});
    ASSERT_TRUE(h.ok()) << h.error();
    EXPECT_VALIDATION_SILENT(h);
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("BINDERY-instance: layer active"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("BINDERY-summary: device summary"), std::string::npos) << text.str();
}

}  // namespace
}  // namespace bindery::test
