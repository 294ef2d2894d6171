// Memory (docs/measured.md): the summary counts the argument-block memory the layer allocates
// for descriptor pools ("argument-block bytes"), which bindery_bench reads to report bytes
// per descriptor. A pool of N storage-buffer descriptors costs at least 16 N bytes (one
// {address, size} record each) and, allocated in one block, not much more; a pool with no
// converted descriptor costs nothing.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "compute_run.h"
#include "integration/test_env.h"

namespace bindery::test {
namespace {

constexpr uint32_t kDescriptors = 256;

uint64_t CountedBytes(const VkHarness& h) {
  std::string summary;
  for (const Message& m : h.BinderyMessages()) {
    if (m.id == "BINDERY-summary") summary = m.text;
  }
  std::smatch match;
  if (!std::regex_search(summary, match, std::regex("argument-block bytes ([0-9]+)"))) {
    ADD_FAILURE() << "no argument-block bytes in the summary: " << summary;
    return 0;
  }
  return std::stoull(match[1].str());
}

VkDescriptorPool MakePool(VkDevice device, VkDescriptorType type) {
  VkDescriptorPoolSize size{type, kDescriptors};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.maxSets = kDescriptors / 4;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateDescriptorPool(device, &info, nullptr, &pool), VK_SUCCESS);
  return pool;
}

TEST(BindingsBlockMemory, SummaryCountsTheArgumentBlockOfEachPool) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv ubo("BINDERY_BINDINGS_UBO", "off");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");  // the summary is an info line
  VkHarness h;
  ASSERT_TRUE(h.ok()) << h.error();
  vkDestroyDescriptorPool(h.device(), MakePool(h.device(), VK_DESCRIPTOR_TYPE_STORAGE_BUFFER), nullptr);
  // Uniform buffers stay native with bindings_ubo off: no block.
  vkDestroyDescriptorPool(h.device(), MakePool(h.device(), VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER), nullptr);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  const uint64_t bytes = CountedBytes(h);
  EXPECT_GE(bytes, 16u * kDescriptors);
  EXPECT_LE(bytes, 16u * kDescriptors + 65536u) << "more than one block's alignment over the records";
}

}  // namespace
}  // namespace bindery::test
