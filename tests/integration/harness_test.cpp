// The harness's own guarantees: validation really sits below the layer with
// synchronization validation on, so EXPECT_VALIDATION_SILENT can fail.
#include <cstring>

#include "integration/test_env.h"

namespace bindery::test {
namespace {

TEST(Harness, ValidationErrorsBelowTheLayerAreCaught) {
  VkHarness h({.bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = 0;  // invalid: VUID-VkBufferCreateInfo-size-00912
  bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  vkCreateBuffer(h.device(), &bci, nullptr, &buffer);
  if (buffer != VK_NULL_HANDLE) vkDestroyBuffer(h.device(), buffer, nullptr);
  EXPECT_NE(VkHarness::Format(h.ValidationProblems()).find("VUID-VkBufferCreateInfo-size-00912"), std::string::npos)
      << VkHarness::Format(h.Messages());
}

TEST(Harness, SynchronizationValidationIsOn) {
  VkHarness h({.bindery = true});
  ASSERT_TRUE(h.ok()) << h.error();
  HostBuffer b = h.CreateHostBuffer(256, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdFillBuffer(cb, b.buffer, 0, 256, 1);
  vkCmdFillBuffer(cb, b.buffer, 0, 256, 2);  // write-after-write with no barrier
  EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  h.Destroy(b);
  EXPECT_NE(VkHarness::Format(h.ValidationProblems()).find("SYNC-HAZARD-WRITE-AFTER-WRITE"), std::string::npos)
      << VkHarness::Format(h.Messages());
}

}  // namespace
}  // namespace bindery::test
