// Settings reach the layer from the environment and from vk_layer_settings.txt, and
// unknown keys are reported through the application's messenger.
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
