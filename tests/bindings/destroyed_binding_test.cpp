// A set keeps a binding whose buffer the application destroyed (as inference runtimes do:
// valid while no bound pipeline statically uses that binding). A pipeline that runs
// natively (a fallback here; a native twin in unaddressable_test.cpp) has the set
// materialised as a full native set: only the bindings it uses are written there, so the
// driver never receives the freed handle. Under auto, a layout beyond the driver's limits
// converts and the rewritten pipeline never looks at the dead binding. Results as without
// the layer, validation below it silent.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dead_binding_refused_comp.h"
#include "integration/test_env.h"
#include "many_buffers_comp.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;

struct FallbackRun : ModeRunResult {
  std::vector<uint32_t> out;
};

// Set 0: src, dst, and a third storage buffer written and then destroyed; the shader (one
// the rewrite refuses) names only the first two.
FallbackRun RunFallback(const char* mode) {
  return RunWithBindings<FallbackRun>(mode, HarnessOptions{}, [&](VkHarness& h, FallbackRun& run) {
    ComputeKernel k = h.CreateKernel(dead_binding_refused_comp, sizeof(dead_binding_refused_comp), 3);
    HostBuffer src = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dst = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dead = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(src.mapped)[i] = 7 * i + 3;
    std::memset(dst.mapped, 0, kBytes);
    VkDescriptorSet set = h.AllocateStorageSet(k, {src.buffer, dst.buffer, dead.buffer});
    h.Destroy(dead);
    if (k.pipeline == VK_NULL_HANDLE || set == VK_NULL_HANDLE) run.error = "pipeline or set not created";
    if (run.error.empty()) {
      VkCommandBuffer cb = h.BeginCommands();
      RecordDispatch(cb, k.pipeline, k.layout, {set}, kWords / 64);
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) run.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(dst.mapped);
      run.out.assign(p, p + kWords);
    }
    h.Destroy(src);
    h.Destroy(dst);
    h.Destroy(k);
  });
}

TEST(BindingsDestroyedBinding, AFallbackPipelineNeverGetsTheDestroyedBuffer) {
  const FallbackRun native = RunFallback("off");
  const FallbackRun forced = RunFallback("force");
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_NE(forced.summary.find("fallen back 1"), std::string::npos) << forced.summary;
  ASSERT_EQ(native.out.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(native.out[i], (7 * i + 3) * 2 + 1) << i;
  EXPECT_EQ(native.out, forced.out);
}

// 40 storage buffers in binding 0 (beyond lavapipe's 32 per stage: the layout converts
// under auto), the output in binding 1, and binding 2 written then destroyed.
uint32_t RunOverLimit(VkHarness& h, bool* ok) {
  VkDevice d = h.device();
  *ok = false;
  std::vector<HostBuffer> buffers;
  std::vector<VkDescriptorBufferInfo> infos;
  for (uint32_t i = 0; i < 40; ++i) {
    buffers.push_back(h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
    static_cast<uint32_t*>(buffers.back().mapped)[0] = 3 * i + 1;
    infos.push_back({buffers.back().buffer, 0, VK_WHOLE_SIZE});
  }
  HostBuffer out = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::memset(out.mapped, 0, 16);
  HostBuffer dead = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  infos.push_back({out.buffer, 0, VK_WHOLE_SIZE});
  infos.push_back({dead.buffer, 0, VK_WHOLE_SIZE});

  ObjectBag bag(d);
  const VkDescriptorSetLayout set_layout =
      bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 40, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                   {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                   {2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
  const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
  const VkPipeline pipeline = bag.Keep(CreateComputePipeline(d, layout, many_buffers_comp, sizeof(many_buffers_comp)));
  const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 42}}));
  const VkDescriptorSet set = AllocateSet(d, pool, set_layout);
  const VkWriteDescriptorSet w[3] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[0], 40),
                                     BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[40]),
                                     BufferWrite(set, 2, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[41])};
  vkUpdateDescriptorSets(d, 3, w, 0, nullptr);
  h.Destroy(dead);
  if (pipeline != VK_NULL_HANDLE) {
    VkCommandBuffer cb = h.BeginCommands();
    RecordDispatch(cb, pipeline, layout, {set});
    BarrierToHost(cb);
    *ok = h.SubmitAndWait(cb) == VK_SUCCESS;
  }
  const uint32_t got = static_cast<const uint32_t*>(out.mapped)[0];
  bag.DestroyAll();
  for (HostBuffer& x : buffers) h.Destroy(x);
  h.Destroy(out);
  return got;
}

class DestroyedBindingOverLimit : public testing::TestWithParam<const char*> {};

TEST_P(DestroyedBindingOverLimit, TheRewrittenPipelineIgnoresTheDeadBinding) {
  if (std::string(GetParam()) == "auto") {
    const uint32_t limit = DriverLimits().maxPerStageDescriptorStorageBuffers;
    ASSERT_NE(limit, 0u) << "no device to read the driver's limits from";
    if (limit >= 42) GTEST_SKIP() << "the driver allows " << limit << " storage buffers per stage: 42 is within its limits";
  }
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", GetParam());
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  uint32_t expected = 0;
  for (uint32_t i = 0; i < 40; ++i) expected += (3 * i + 1) * (i + 1);
  bool ok = false;
  EXPECT_EQ(RunOverLimit(h, &ok), expected);
  EXPECT_TRUE(ok);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  EXPECT_NE(h.BinderySummary().find("pipelines rewritten 1, fallen back 0"), std::string::npos) << h.BinderySummary();
}

INSTANTIATE_TEST_SUITE_P(Modes, DestroyedBindingOverLimit, testing::Values("force", "auto"),
                         [](const testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace bindery::test
