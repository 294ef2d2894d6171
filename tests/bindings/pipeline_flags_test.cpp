// Pipeline-creation flags through the rewrite.
//
// VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT: the layer passes the flag down
// unchanged with the rewritten stages and returns what the driver returns (the rewrite is
// not a compile in the spec's sense). Forced vs off, the same sequence of results for
// creations with the flag and an empty cache, without it, and with it again over the
// now-filled cache, for a converted and a fallback pipeline; a pipeline that was not
// created is VK_NULL_HANDLE, and the summary counts only the pipelines created.
//
// Derivatives: a converted base with a fallback derivative (by handle) and a fallback
// base with a converted derivative (by index, in one batch) are created and run, forced vs
// off byte-identical, validation silent.
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

// One device with a compute layout (set 0: binding 0 two inputs, binding 1 the output)
// shared by fallback_refused.comp (refused by the rewrite) and fallback_partner.comp.
struct Rig {
  VkHarness& h;
  VkDevice d = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkShaderModule refused = VK_NULL_HANDLE, partner = VK_NULL_HANDLE;
  uint32_t base = kWords;  // where fallback_partner.comp writes
  VkSpecializationMapEntry entry{1, 0, 4};
  VkSpecializationInfo spec{1, &entry, 4, &base};

  explicit Rig(VkHarness& harness) : h(harness) {
    d = h.device();
    VkDescriptorSetLayoutBinding b[2] = {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                         {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = 2;
    dslci.pBindings = b;
    vkCreateDescriptorSetLayout(d, &dslci, nullptr, &set_layout);
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &set_layout;
    vkCreatePipelineLayout(d, &plci, nullptr, &layout);
    refused = CreateShaderModule(d, fallback_refused_comp, sizeof(fallback_refused_comp));
    partner = CreateShaderModule(d, fallback_partner_comp, sizeof(fallback_partner_comp));
  }
  ~Rig() { Release(); }
  void Release() {
    if (d == VK_NULL_HANDLE) return;
    vkDestroyShaderModule(d, refused, nullptr);
    vkDestroyShaderModule(d, partner, nullptr);
    vkDestroyPipelineLayout(d, layout, nullptr);
    vkDestroyDescriptorSetLayout(d, set_layout, nullptr);
    d = VK_NULL_HANDLE;
  }
  VkComputePipelineCreateInfo Info(VkShaderModule module, VkPipelineCreateFlags flags) const {
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.flags = flags;
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = module;
    cpci.stage.pName = "main";
    cpci.stage.pSpecializationInfo = module == partner ? &spec : nullptr;
    cpci.layout = layout;
    cpci.basePipelineIndex = -1;
    return cpci;
  }
};

struct CacheOutput : ModeRunResult {
  std::vector<VkResult> results;
  std::vector<bool> created;
};

CacheOutput RunCacheControl(const char* mode) {
  VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  features13.pipelineCreationCacheControl = VK_TRUE;
  HarnessOptions options;
  options.device_pnext = &features13;
  return RunWithBindings<CacheOutput>(mode, options, [&](VkHarness& h, CacheOutput& o) {
    Rig rig(h);
    VkPipelineCacheCreateInfo pcci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VkPipelineCache cache = VK_NULL_HANDLE;
    vkCreatePipelineCache(rig.d, &pcci, nullptr, &cache);
    const VkPipelineCreateFlags fail = VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT;
    for (VkPipelineCreateFlags flags : {fail, VkPipelineCreateFlags{0}, fail}) {
      for (VkShaderModule m : {rig.partner, rig.refused}) {
        const VkComputePipelineCreateInfo info = rig.Info(m, flags);
        VkPipeline p = reinterpret_cast<VkPipeline>(uintptr_t{0x1234});  // must be overwritten
        o.results.push_back(vkCreateComputePipelines(rig.d, cache, 1, &info, nullptr, &p));
        if (p == reinterpret_cast<VkPipeline>(uintptr_t{0x1234})) o.error = "the pipeline handle was not written";
        o.created.push_back(p != VK_NULL_HANDLE);
        if (o.results.back() == VK_PIPELINE_COMPILE_REQUIRED && p != VK_NULL_HANDLE) {
          o.error = "VK_PIPELINE_COMPILE_REQUIRED with a pipeline handle";
        }
        if (p != VK_NULL_HANDLE && p != reinterpret_cast<VkPipeline>(uintptr_t{0x1234})) {
          vkDestroyPipeline(rig.d, p, nullptr);
        }
      }
    }
    vkDestroyPipelineCache(rig.d, cache, nullptr);
  });
}

TEST(BindingsPipelineFlags, FailOnCompileRequiredAnswersAsTheDriverDoes) {
  const CacheOutput native = RunCacheControl("off");
  const CacheOutput forced = RunCacheControl("force");
  if (native.error.find("FEATURE_NOT_PRESENT") != std::string::npos) {
    GTEST_SKIP() << "no pipelineCreationCacheControl: " << native.error;
  }
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.results.size(), 6u);
  EXPECT_EQ(native.results, forced.results);
  EXPECT_EQ(native.created, forced.created);
  // Without the flag both pipelines are created (the converted one rewritten).
  EXPECT_EQ(native.results[2], VK_SUCCESS);
  EXPECT_EQ(native.results[3], VK_SUCCESS);
  // The summary counts pipelines that exist, not creation attempts.
  uint64_t created_partner = 0, created_refused = 0;
  for (size_t i = 0; i < forced.created.size(); ++i) (i % 2 == 0 ? created_partner : created_refused) += forced.created[i];
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), created_partner) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), created_refused) << forced.summary;
}

struct DerivativeOutput : ModeRunResult {
  std::vector<uint32_t> out;
};

// Four pipelines, two derivative pairs: converted base -> fallback derivative (handle),
// fallback base -> converted derivative (index). Each writes its own quarter of `out`
// (the partner at its BASE, the refused one at 0, so the refused pair's dispatches are
// separated by a copy of that quarter).
DerivativeOutput RunDerivatives(const char* mode) {
  return RunWithBindings<DerivativeOutput>(mode, HarnessOptions{}, [&](VkHarness& h, DerivativeOutput& o) {
    Rig rig(h);
    VkDevice d = rig.d;
    const VkPipelineCreateFlags allow = VK_PIPELINE_CREATE_ALLOW_DERIVATIVES_BIT;
    const VkPipelineCreateFlags derive = VK_PIPELINE_CREATE_DERIVATIVE_BIT;
    VkPipeline converted_base = VK_NULL_HANDLE, fallback_derivative = VK_NULL_HANDLE;
    VkComputePipelineCreateInfo info = rig.Info(rig.partner, allow);
    rig.base = kWords;
    if (vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &info, nullptr, &converted_base) != VK_SUCCESS) o.error = "base";
    info = rig.Info(rig.refused, derive);
    info.basePipelineHandle = converted_base;
    if (vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &info, nullptr, &fallback_derivative) != VK_SUCCESS) {
      o.error = "derivative by handle";
    }
    // One batch: a fallback base at 0 and a converted derivative of it at index 1 (BASE 2N:
    // the specialization data is read at creation).
    uint32_t second_base = 2 * kWords;
    VkSpecializationInfo spec2{1, &rig.entry, 4, &second_base};
    VkComputePipelineCreateInfo batch[2] = {rig.Info(rig.refused, allow), rig.Info(rig.partner, derive)};
    batch[1].stage.pSpecializationInfo = &spec2;
    batch[1].basePipelineIndex = 0;
    VkPipeline pair[2] = {};
    if (vkCreateComputePipelines(d, VK_NULL_HANDLE, 2, batch, nullptr, pair) != VK_SUCCESS) o.error = "batch";

    HostBuffer in0 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer in1 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out = h.CreateHostBuffer(4 * kWords * 4,
                                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    for (uint32_t i = 0; i < kWords; ++i) {
      static_cast<uint32_t*>(in0.mapped)[i] = 2 * i + 1;
      static_cast<uint32_t*>(in1.mapped)[i] = 700 + i;
    }
    std::memset(out.mapped, 0, 4 * kWords * 4);
    const VkDescriptorPool pool = CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}});
    const VkDescriptorSet set = WriteFallbackPartnerSet(d, pool, rig.set_layout, in0, in1, out);

    if (o.error.empty()) {
      VkCommandBuffer cb = h.BeginCommands();
      auto barrier = [&](VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                         VkAccessFlags dst_access) {
        RecordMemoryBarrier(cb, src, src_access, dst, dst_access);
      };
      const VkPipelineStageFlags cs = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, xfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, rig.layout, 0, 1, &set, 0, nullptr);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, converted_base);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[N, 2N)
      barrier(cs, VK_ACCESS_SHADER_WRITE_BIT, cs, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, fallback_derivative);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[0, N)
      barrier(cs, VK_ACCESS_SHADER_WRITE_BIT, xfer, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
      const VkBufferCopy copy{0, 3 * kWords * 4, kWords * 4};
      vkCmdCopyBuffer(cb, out.buffer, out.buffer, 1, &copy);  // out[3N, 4N) = the derivative's result
      barrier(xfer, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, cs,
              VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pair[0]);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[0, N) again (same values)
      barrier(cs, VK_ACCESS_SHADER_WRITE_BIT, cs, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pair[1]);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[2N, 3N)
      barrier(cs, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 4 * kWords);
    }
    for (VkPipeline p : {converted_base, fallback_derivative, pair[0], pair[1]}) vkDestroyPipeline(d, p, nullptr);
    vkDestroyDescriptorPool(d, pool, nullptr);
    for (HostBuffer* x : {&in0, &in1, &out}) h.Destroy(*x);
  });
}

TEST(BindingsPipelineFlags, DerivativesAcrossRewrittenAndFallbackPipelines) {
  const DerivativeOutput native = RunDerivatives("off");
  const DerivativeOutput forced = RunDerivatives("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ExpectSummaryCounters(forced.summary, {{"pipelines rewritten", 2}, {"fallen back", 2}});
  ASSERT_EQ(native.out.size(), 4 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t a = 2 * i + 1, b = 700 + i;
    ASSERT_EQ(native.out[i], a + 2 * b) << i;               // refused: in0 + 2 * in1
    ASSERT_EQ(native.out[kWords + i], 3 * a + b) << i;      // partner: 3 * in0 + in1
    ASSERT_EQ(native.out[2 * kWords + i], 3 * a + b) << i;
    ASSERT_EQ(native.out[3 * kWords + i], a + 2 * b) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

}  // namespace
}  // namespace bindery::test
