// A compute dispatch gives the same bytes with and without the layer, validation silent.
#include <cstring>
#include <vector>

#include "integration/test_env.h"
#include "integration/scale_add_kernel.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kCount = 4096 + 17;  // not a multiple of the workgroup size

std::vector<uint32_t> RunScaleAdd(bool with_layer, std::vector<Message>* problems) {
  VkHarness h({.bindery = with_layer});
  EXPECT_TRUE(h.ok()) << h.error();
  if (!h.ok()) return {};
  const VkDeviceSize bytes = kCount * sizeof(uint32_t);
  HostBuffer in = h.CreateHostBuffer(bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer out = h.CreateHostBuffer(bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  auto* src = static_cast<uint32_t*>(in.mapped);
  for (uint32_t i = 0; i < kCount; ++i) src[i] = i * 2654435761u;
  std::memset(out.mapped, 0xAB, bytes);

  ScaleAddKernel k = CreateScaleAdd(h, in.buffer, out.buffer);
  EXPECT_NE(k.set, VK_NULL_HANDLE);

  VkCommandBuffer cb = h.BeginCommands();
  const uint32_t params[3] = {3, 0x5a5a, kCount};
  BindScaleAdd(cb, k, params);
  vkCmdDispatch(cb, (kCount + 63) / 64, 1, 1);
  BarrierToHost(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
  EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);

  std::vector<uint32_t> result(kCount);
  std::memcpy(result.data(), out.mapped, bytes);
  h.Destroy(k.kernel);
  h.Destroy(in);
  h.Destroy(out);
  *problems = h.ValidationProblems();
  return result;
}

TEST(PassThrough, ComputeDispatchIsByteIdenticalWithAndWithoutLayer) {
  std::vector<Message> problems_on, problems_off;
  const std::vector<uint32_t> with_layer = RunScaleAdd(true, &problems_on);
  const std::vector<uint32_t> without_layer = RunScaleAdd(false, &problems_off);
  ASSERT_EQ(with_layer.size(), kCount);
  ASSERT_EQ(without_layer.size(), kCount);
  EXPECT_EQ(std::memcmp(with_layer.data(), without_layer.data(), kCount * 4), 0);
  for (uint32_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(with_layer[i], (i * 2654435761u) * 3 + (i ^ 0x5a5au)) << "element " << i;
  }
  EXPECT_TRUE(problems_on.empty()) << VkHarness::Format(problems_on);
  EXPECT_TRUE(problems_off.empty()) << VkHarness::Format(problems_off);
}

}  // namespace
}  // namespace bindery::test
