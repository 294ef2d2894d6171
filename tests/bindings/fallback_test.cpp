// Native fallback (docs/indirect-bindings.md, "When it falls back"): a pipeline the rewrite refuses (a descriptor array sized by a
// specialization constant) runs natively, its sets materialised from the shadow, and the
// program gives the right result — also when converted pipelines use the same bound sets
// before and after it in one command buffer. Forced vs off: byte-identical, validation
// silent, and the summary counts one fallback and the rewritten pipelines.
#include <gtest/gtest.h>

#include <cstring>

#include "fallback_partner_comp.h"
#include "fallback_refused_comp.h"
#include "bindings/fallback_partner_set.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;

struct Output : ModeRunResult {
  std::vector<uint32_t> out;
};

Output RunInMode(const char* mode, bool validate = false) {
  ScopedEnv validation("BINDERY_BINDINGS_VALIDATE", validate ? "on" : "off");
  return RunWithBindings<Output>(mode, HarnessOptions{}, [&](VkHarness& h, Output& o) {
    VkDevice d = h.device();
    HostBuffer in0 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer in1 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out = h.CreateHostBuffer(3 * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) {
      static_cast<uint32_t*>(in0.mapped)[i] = i + 1;
      static_cast<uint32_t*>(in1.mapped)[i] = 1000 + 3 * i;
    }
    std::memset(out.mapped, 0, 3 * kWords * 4);

    {
      ObjectBag bag(d);
      const VkDescriptorSetLayout set_layout =
          bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                       {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
      const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
      const VkPipeline refused =
          bag.Keep(CreateComputePipeline(d, layout, fallback_refused_comp, sizeof(fallback_refused_comp)));
      const VkPipeline before =
          bag.Keep(CreateComputePipeline(d, layout, fallback_partner_comp, sizeof(fallback_partner_comp), {{1, kWords}}));
      const VkPipeline after =
          bag.Keep(CreateComputePipeline(d, layout, fallback_partner_comp, sizeof(fallback_partner_comp),
                                         {{1, 2 * kWords}}));
      if (!refused || !before || !after) o.error = "pipeline creation failed";
      const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}}));
      const VkDescriptorSet set = WriteFallbackPartnerSet(d, pool, set_layout, in0, in1, out);

      if (o.error.empty()) {
        // Converted, fallback, converted: all from the one bind.
        VkCommandBuffer cb = h.BeginCommands();
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, before);
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
        vkCmdDispatch(cb, kWords / 64, 1, 1);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
        vkCmdDispatch(cb, kWords / 64, 1, 1);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, after);
        vkCmdDispatch(cb, kWords / 64, 1, 1);
        BarrierToHost(cb);
        if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
        const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
        o.out.assign(p, p + 3 * kWords);
      }
    }
    for (HostBuffer* x : {&in0, &in1, &out}) h.Destroy(*x);
  });
}

TEST(BindingsFallback, RefusedShaderRunsNativelyBetweenConvertedOnes) {
  const Output native = RunInMode("off");
  const Output forced = RunInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  // "layer-owned": materialised from a layer-owned set.
  ExpectSummaryCounters(forced.summary, {{"fallen back", 1}, {"pipelines rewritten", 2}, {"layer-owned", 1}});
  ASSERT_EQ(native.out.size(), 3 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t a = i + 1, b = 1000 + 3 * i;
    ASSERT_EQ(native.out[i], a + 2 * b) << i;
    ASSERT_EQ(native.out[kWords + i], 3 * a + b) << i;
    ASSERT_EQ(native.out[2 * kWords + i], 3 * a + b) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

// The summary names why the pipeline fell back, counted; and with bindings_validate on,
// every rewritten module (the partner specialized two ways) passes spirv-val, so the same
// pipelines are rewritten and the results are the same.
TEST(BindingsFallback, ReasonsAreCountedAndValidatedRewritesStand) {
  const Output forced = RunInMode("force");
  const Output validated = RunInMode("force", true);
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  ASSERT_TRUE(validated.error.empty()) << validated.error;
  EXPECT_TRUE(validated.validation.empty()) << validated.validation;
  EXPECT_NE(forced.summary.find("fallen back 1: {not converted: descriptor array sized by a specialization constant \u00d7 1}"),
            std::string::npos)
      << forced.summary;
  EXPECT_EQ(SummaryCounter(validated.summary, "fallen back"), 1u) << validated.summary;
  EXPECT_EQ(SummaryCounter(validated.summary, "pipelines rewritten"), 2u) << validated.summary;
  EXPECT_EQ(validated.out, forced.out);
}

}  // namespace
}  // namespace bindery::test
