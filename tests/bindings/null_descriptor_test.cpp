// robustness2.nullDescriptor without robustBufferAccess2: a null storage-buffer descriptor
// reads 0 (its length too) and drops writes, as natively. The rewritten shader would
// otherwise follow address 0. Forced vs off: identical results, validation silent.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "integration/test_env.h"
#include "robust_probe_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

struct Output : ModeRunResult {
  std::vector<uint32_t> res;
};

// robust_probe.comp with its input and output descriptors null: res = {len_in, len_out,
// reads[64]}.
Output RunNull(const char* mode) {
  VkPhysicalDeviceRobustness2FeaturesEXT robustness2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT};
  robustness2.nullDescriptor = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &robustness2;
  options.device_extensions = {VK_EXT_ROBUSTNESS_2_EXTENSION_NAME};
  return RunWithBindings<Output>(mode, options, [&](VkHarness& h, Output& o) {
    ComputeKernel k = h.CreateKernel(robust_probe_comp, sizeof(robust_probe_comp), 3);
    HostBuffer res = h.CreateHostBuffer((2 + 64) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(res.mapped, 0xff, (2 + 64) * 4);
    VkDescriptorSet set = h.AllocateStorageSet(k, {VK_NULL_HANDLE, VK_NULL_HANDLE, res.buffer});
    if (k.pipeline == VK_NULL_HANDLE || set == VK_NULL_HANDLE) o.error = "kernel or set not created";
    if (o.error.empty()) {
      VkCommandBuffer cb = h.BeginCommands();
      RecordDispatch(cb, k.pipeline, k.layout, {set});
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(res.mapped);
      o.res.assign(p, p + 2 + 64);
    }
    h.Destroy(res);
    h.Destroy(k);
  });
}

TEST(BindingsNullDescriptor, ANullStorageBufferReadsZeroAndDropsWrites) {
  const Output native = RunNull("off");
  if (native.error.find("vkCreateDevice") != std::string::npos) {
    GTEST_SKIP() << "no VK_EXT_robustness2 nullDescriptor: " << native.error;
  }
  const Output forced = RunNull("force");
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_NE(forced.summary.find("pipelines rewritten 1"), std::string::npos) << forced.summary;
  ASSERT_EQ(native.res.size(), 66u);
  for (uint32_t i = 0; i < 66; ++i) EXPECT_EQ(native.res[i], 0u) << "word " << i;
  EXPECT_EQ(forced.res, native.res);
}

}  // namespace
}  // namespace bindery::test
