// The ring root read through its address in push constants (docs/indirect-bindings.md,
// "The root": the third placement). With the split root forced on lavapipe (128 bytes of
// push constants, 56 per bind point after a 16-byte application range) a layout of eight
// sets, each with two storage buffers and a sampler, has a root too large for push
// constants, and every one of the driver's 8 bound sets is the application's (each keeps a
// native descriptor), so no reserved set is left: the root lives in the command buffer's
// ring and its 8-byte address in push constants. The conformance suite's
// `descriptorset_random.sets8.constant.ubolimitlow.sbolimithigh.sampledimglow.outimgtexlow.noiub.nouab.frag.ialimitlow.0`
// has this shape (beyond the driver's storage-buffer limit, so it cannot run natively
// either): before this placement its pipeline creation failed.
//
// `compatible`: a layout of set 0 alone with the same push-constant range (compatible for
// set 0, its root in push constants over the bytes of the address) binds a new set 0 and
// runs a pipeline of its own between dispatches of the eight-set pipeline: each must read
// what is bound, the address pushed again where the other layout's root went over it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "integration/test_env.h"
#include "ra_eight_sets_comp.h"
#include "ra_set0_comp.h"
#include "support/scoped_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kRegion = 64;
constexpr uint32_t kSets = 8;
constexpr uint32_t kPushBytes = 16;  // { region, k, pad, pad }

struct Regions : ModeRunResult {
  std::vector<uint32_t> out;
};

uint32_t InputWord(uint32_t k, uint32_t i) { return (k + 1) * 1000 + (k + 2) * i; }

// Region written by the eight-set pipeline with set 0's input `first` and constant `k`.
uint32_t EightSetsWord(uint32_t first, uint32_t i, uint32_t k) {
  uint32_t acc = InputWord(first, i);
  for (uint32_t s = 1; s < kSets; ++s) acc += (s + 1) * InputWord(s, i);
  return acc + k;
}

void Push(VkCommandBuffer cb, VkPipelineLayout layout, uint32_t region, uint32_t k) {
  const uint32_t words[4] = {region, k, 0, 0};
  vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushBytes, words);
}

void ShaderBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
}

// `buffers`: storage buffers per set (2; 5 goes beyond lavapipe's 32 per stage: forced only).
Regions RunEightSets(const char* mode, uint32_t buffers, bool compatible) {
  ScopedEnv split("BINDERY_BINDINGS_ROOT_SPLIT", "on");
  return RunWithBindings<Regions>(mode, HarnessOptions{}, [&](VkHarness& h, Regions& o) {
    VkDevice d = h.device();
    std::vector<HostBuffer> in;
    for (uint32_t k = 0; k <= kSets; ++k) {
      in.push_back(h.CreateHostBuffer(kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
      for (uint32_t i = 0; i < kRegion; ++i) static_cast<uint32_t*>(in.back().mapped)[i] = InputWord(k, i);
    }
    HostBuffer out = h.CreateHostBuffer(4 * kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 4 * kRegion * 4);
    VkSamplerCreateInfo sci{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    VkSampler sampler = VK_NULL_HANDLE;
    vkCreateSampler(d, &sci, nullptr, &sampler);
    ObjectBag bag(d);
    const VkDescriptorSetLayout set_layout =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkPipelineLayout eight = bag.Keep(CreatePipelineLayout(d, std::vector<VkDescriptorSetLayout>(kSets, set_layout), kPushBytes));
    const VkPipelineLayout one = bag.Keep(CreatePipelineLayout(d, {set_layout}, kPushBytes));
    const VkPipeline pipeline_eight = bag.Keep(CreateComputePipeline(d, eight, ra_eight_sets_comp, sizeof(ra_eight_sets_comp)));
    const VkPipeline pipeline_one =
        compatible ? bag.Keep(CreateComputePipeline(d, one, ra_set0_comp, sizeof(ra_set0_comp))) : VK_NULL_HANDLE;
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(
        d, kSets + 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (kSets + 1) * buffers}, {VK_DESCRIPTOR_TYPE_SAMPLER, kSets + 1}}));
    std::vector<VkDescriptorSet> sets(kSets + 1, VK_NULL_HANDLE);
    for (VkDescriptorSet& s : sets) s = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, set_layout) : VK_NULL_HANDLE;
    if (sampler == VK_NULL_HANDLE || pipeline_eight == VK_NULL_HANDLE || (compatible && pipeline_one == VK_NULL_HANDLE) ||
        sets.back() == VK_NULL_HANDLE) {
      o.error = "object creation failed";
    }
    if (o.error.empty()) {
      // Set s (s < 8) reads input s; set 8 (the new set 0) input 8; sets 0 and 8 write `out`
      // (their second buffer).
      const VkDescriptorBufferInfo output{out.buffer, 0, VK_WHOLE_SIZE};
      const VkDescriptorImageInfo sampler_info{sampler, VK_NULL_HANDLE, VK_IMAGE_LAYOUT_UNDEFINED};
      std::vector<VkDescriptorBufferInfo> inputs;
      for (const HostBuffer& b : in) inputs.push_back({b.buffer, 0, VK_WHOLE_SIZE});
      std::vector<VkWriteDescriptorSet> writes;
      for (uint32_t s = 0; s <= kSets; ++s) {
        writes.push_back(BufferWrite(sets[s], 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &inputs[s]));
        // (Every element the shaders' arrays name is written: the arrays are statically used.)
        writes.push_back(BufferWrite(sets[s], 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                     s == 0 || s == kSets ? &output : &inputs[s]));
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = sets[s];
        w.dstBinding = 1;
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_SAMPLER;
        w.pImageInfo = &sampler_info;
        writes.push_back(w);
      }
      vkUpdateDescriptorSets(d, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
      VkCommandBuffer cb = h.BeginCommands();
      Push(cb, eight, 0, 1);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, eight, 0, kSets, sets.data(), 0, nullptr);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_eight);
      vkCmdDispatch(cb, 1, 1, 1);  // region 0: set 0 reads input 0
      ShaderBarrier(cb);
      if (compatible) {
        // A new set 0 through the one-set layout: its root goes over the address.
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, one, 0, 1, &sets[kSets], 0, nullptr);
        Push(cb, one, kRegion, 2);
        vkCmdDispatch(cb, 1, 1, 1);  // region 1: set 0 reads input 8, sets 1..7 as bound before
        ShaderBarrier(cb);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_one);
        Push(cb, one, 2 * kRegion, 3);
        vkCmdDispatch(cb, 1, 1, 1);  // region 2: 3 input 8 + 3
        ShaderBarrier(cb);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_eight);
        Push(cb, eight, 3 * kRegion, 4);
        vkCmdDispatch(cb, 1, 1, 1);  // region 3: as region 1, k = 4
        ShaderBarrier(cb);
      }
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 4 * kRegion);
    }
    bag.DestroyAll();
    if (sampler != VK_NULL_HANDLE) vkDestroySampler(d, sampler, nullptr);
    for (HostBuffer& b : in) h.Destroy(b);
    h.Destroy(out);
  });
}

// The shape needs a driver binding exactly the program's eight sets and too few push-constant
// bytes per bind point for eight addresses after the 16-byte range (lavapipe: 8 sets, 56
// bytes; the H100's 32 sets and 120 bytes leave the root in push constants).
std::string ShapeMissing() {
  const VkPhysicalDeviceLimits limits = DriverLimits();
  if (limits.maxBoundDescriptorSets != kSets) return "the driver binds other than 8 sets";
  if ((limits.maxPushConstantsSize - kPushBytes) / 2 >= 8 * kSets) return "eight addresses fit in push constants";
  return "";
}

void ExpectRegions(const Regions& r, bool compatible) {
  ASSERT_EQ(r.out.size(), 4 * kRegion);
  for (uint32_t i = 0; i < kRegion; ++i) {
    ASSERT_EQ(r.out[i], EightSetsWord(0, i, 1)) << i;
    if (!compatible) continue;
    ASSERT_EQ(r.out[kRegion + i], EightSetsWord(kSets, i, 2)) << i;
    ASSERT_EQ(r.out[2 * kRegion + i], 3 * InputWord(kSets, i) + 3) << i;
    ASSERT_EQ(r.out[3 * kRegion + i], EightSetsWord(kSets, i, 4)) << i;
  }
}

class BindingsRingAddress : public testing::TestWithParam<bool> {};

// Within the driver's limits: forced vs off, byte-identical, the eight-set pipeline
// rewritten (before the placement it ran natively, its root planned nowhere).
TEST_P(BindingsRingAddress, EightSetsWithTheSplitRootReadTheRingThroughTheirAddress) {
  const std::string missing = ShapeMissing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const bool compatible = GetParam();
  const Regions native = RunEightSets("off", 2, compatible);
  const Regions forced = RunEightSets("force", 2, compatible);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ExpectRegions(native, compatible);
  EXPECT_EQ(native.out, forced.out);
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), compatible ? 2u : 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 0u) << forced.summary;
  EXPECT_GT(SummaryCounter(forced.summary, "root ring bytes"), 0u) << forced.summary;
  EXPECT_NE(SummaryCounter(forced.summary, "root ring bytes"), ~0ull) << forced.summary;
}

// Beyond the driver's storage-buffer limit (40 in one stage, lavapipe allows 32), as the
// conformance case: it cannot run natively, so the values are checked as computed.
TEST_P(BindingsRingAddress, EightSetsBeyondTheDriversLimitsRunOnlyRewritten) {
  const std::string missing = ShapeMissing();
  if (!missing.empty()) GTEST_SKIP() << missing;
  const bool compatible = GetParam();
  const Regions forced = RunEightSets("force", 5, compatible);
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  ExpectRegions(forced, compatible);
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), compatible ? 2u : 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 0u) << forced.summary;
}

INSTANTIATE_TEST_SUITE_P(Layouts, BindingsRingAddress, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "WithCompatibleLayout" : "Alone");
                         });

}  // namespace
}  // namespace bindery::test
