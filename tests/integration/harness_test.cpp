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

// The same unaligned fill is an error the validation layer reports when the
// application sends it straight to the driver, and silence when Bindery sits above
// validation and hands it only aligned calls: so validation is really below the layer
// (the loader orders layers by manifest discovery, not only by the names given).
TEST(Harness, ValidationSitsBelowTheLayer) {
  for (bool bindery : {false, true}) {
    VkHarness h({.bindery = bindery});
    ASSERT_TRUE(h.ok()) << h.error();
    HostBuffer b = h.CreateHostBuffer(64, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdFillBuffer(cb, b.buffer, 1, 6, 0x01020304);
    if (bindery) EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
    else vkFreeCommandBuffers(h.device(), h.command_pool(), 1, &cb);  // never submitted
    h.Destroy(b);
    const std::string problems = VkHarness::Format(h.ValidationProblems());
    if (bindery) {
      EXPECT_TRUE(problems.empty()) << problems;
    } else {
      EXPECT_NE(problems.find("VUID-vkCmdFillBuffer-dstOffset-00025"), std::string::npos) << problems;
    }
  }
}

}  // namespace
}  // namespace bindery::test
