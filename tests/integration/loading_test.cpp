// Is the layer in the chain when the environment (not the application) asks for it?
// CTest runs these tests under different environments (tests/integration/CMakeLists.txt):
// VK_INSTANCE_LAYERS, the implicit manifest with ENABLE_BINDERY / DISABLE_BINDERY, and the
// installed manifests. The application here names no layer but validation.
#include "integration/test_env.h"

namespace bindery::test {
namespace {

bool LayerAnnouncedItself(const VkHarness& h) { return HasMessage(h.BinderyMessages(), "BINDERY-instance"); }

TEST(EnvironmentLoading, LayerIsActive) {
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  VkHarness h({.bindery = false});
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_TRUE(LayerAnnouncedItself(h)) << "messages:\n" << VkHarness::Format(h.Messages());
  EXPECT_VALIDATION_SILENT(h);
}

TEST(EnvironmentLoading, LayerIsInactive) {
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  VkHarness h({.bindery = false});
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_FALSE(LayerAnnouncedItself(h)) << "messages:\n" << VkHarness::Format(h.BinderyMessages());
  EXPECT_VALIDATION_SILENT(h);
}

TEST(ApplicationLoading, EnabledByName) {
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  VkHarness h({.bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_TRUE(LayerAnnouncedItself(h));
  EXPECT_VALIDATION_SILENT(h);
}

}  // namespace
}  // namespace bindery::test
