// Bounded memory. (1) 10^4 rounds of creating and destroying an update template, a push
// template and a descriptor pool (with a set written) leave the process's heap where it
// was after the first thousand rounds, and 10^4 pipelines add nothing to what the driver
// itself keeps: what the layer keeps for those objects goes with them, or is shared by
// objects of the same shape (full layouts, the full-layout push templates). (2) 512 command buffers each recording one push descriptor
// hold small pieces of the ring, not a 64 KiB chunk each: the device summary's
// "layer GPU bytes peak" stays within two ring blocks plus the pools' argument blocks.
// Validation silent.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "twin_copy_comp.h"

namespace bindery::test {
namespace {

struct Layouts {
  VkDescriptorSetLayout set = VK_NULL_HANDLE, push = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE, push_layout = VK_NULL_HANDLE;
  void Create(VkDevice d) {
    const std::vector<VkDescriptorSetLayoutBinding> b = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    set = CreateSetLayout(d, b);
    push = CreateSetLayout(d, b, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR);
    layout = CreatePipelineLayout(d, {set});
    push_layout = CreatePipelineLayout(d, {push});
  }
  void Destroy(VkDevice d) {
    vkDestroyPipelineLayout(d, layout, nullptr);
    vkDestroyPipelineLayout(d, push_layout, nullptr);
    vkDestroyDescriptorSetLayout(d, set, nullptr);
    vkDestroyDescriptorSetLayout(d, push, nullptr);
  }
};

VkPipeline CreatePipeline(VkDevice d, VkShaderModule module, VkPipelineLayout layout) {
  VkPipeline p = VK_NULL_HANDLE;
  CreateComputePipeline(d, layout, module, "main", {}, &p);
  return p;
}

HarnessOptions WithPushDescriptors() {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return options;
}

// A layout of `set` whose push-constant range fills maxPushConstantsSize: its root goes to
// the ring, so the layer makes its own copy of the layout (descriptor_layout_hooks.cpp).
VkPipelineLayout CreateRingRootLayout(VkDevice d, VkPhysicalDevice pd, VkDescriptorSetLayout set) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(pd, &props);
  return CreatePipelineLayout(d, {set}, props.limits.maxPushConstantsSize);
}

// Rounds of churn on one device in `mode`; returns how much the heap grew over the rounds
// after the warm-up, and the device summary.
struct Churn : ModeRunResult {
  bool ok = false;
  int64_t growth = 0;
};

// `distinct`: each round's module differs (its header's generator word), so each has its
// own rewrite. `ring`: each round also makes a layout whose root lives in the ring, every
// tenth round a pipeline with it too (lavapipe keeps ~400 KiB of each pipeline), destroying
// the layout before the pipeline (which keeps the layer's copy of the layout alive).
Churn RunChurn(const char* mode, bool pipelines, bool others, int warmup, int rounds, bool distinct = false,
               bool ring = false) {
  return RunWithBindings<Churn>(mode, WithPushDescriptors(), [&](VkHarness& h, Churn& churn) {
    VkDevice d = h.device();
    Layouts l;
    l.Create(d);
    HostBuffer a = h.CreateHostBuffer(1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer c = h.CreateHostBuffer(1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    const VkDescriptorBufferInfo infos[2] = {{a.buffer, 0, VK_WHOLE_SIZE}, {c.buffer, 0, VK_WHOLE_SIZE}};
    const VkDescriptorUpdateTemplateEntry entry{0, 0, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0,
                                                sizeof(VkDescriptorBufferInfo)};
    std::vector<uint32_t> code(twin_copy_comp, twin_copy_comp + sizeof(twin_copy_comp) / 4);
    uint32_t generation = 0;
    int ring_round = 0;
    auto round = [&]() {
      if (ring) {
        const VkPipelineLayout layout = CreateRingRootLayout(d, h.physical_device(), l.set);
        if (ring_round++ % 10 == 0) {
          VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
          smci.codeSize = code.size() * 4;
          smci.pCode = code.data();
          VkShaderModule module = VK_NULL_HANDLE;
          vkCreateShaderModule(d, &smci, nullptr, &module);
          const VkPipeline pipeline = CreatePipeline(d, module, layout);
          vkDestroyPipelineLayout(d, layout, nullptr);
          vkDestroyPipeline(d, pipeline, nullptr);
          vkDestroyShaderModule(d, module, nullptr);
        } else {
          vkDestroyPipelineLayout(d, layout, nullptr);
        }
      }
      if (pipelines) {
        if (distinct) code[2] = ++generation;  // the generator word: no meaning, another module
        VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        smci.codeSize = code.size() * 4;
        smci.pCode = code.data();
        VkShaderModule module = VK_NULL_HANDLE;
        vkCreateShaderModule(d, &smci, nullptr, &module);
        vkDestroyPipeline(d, CreatePipeline(d, module, l.layout), nullptr);
        vkDestroyShaderModule(d, module, nullptr);
      }
      if (!others) return;
      VkDescriptorUpdateTemplateCreateInfo tci = SetTemplateInfo(&entry, 1, l.set);
      VkDescriptorUpdateTemplate t = VK_NULL_HANDLE;
      vkCreateDescriptorUpdateTemplate(d, &tci, nullptr, &t);
      tci.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_PUSH_DESCRIPTORS_KHR;
      tci.pipelineBindPoint = VK_PIPELINE_BIND_POINT_COMPUTE;
      tci.pipelineLayout = l.push_layout;
      VkDescriptorUpdateTemplate push = VK_NULL_HANDLE;
      vkCreateDescriptorUpdateTemplate(d, &tci, nullptr, &push);
      const VkDescriptorPool pool = CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}});
      const VkDescriptorSet set = AllocateSet(d, pool, l.set);
      vkUpdateDescriptorSetWithTemplate(d, set, t, infos);
      vkDestroyDescriptorPool(d, pool, nullptr);
      vkDestroyDescriptorUpdateTemplate(d, t, nullptr);
      vkDestroyDescriptorUpdateTemplate(d, push, nullptr);
    };
    for (int i = 0; i < warmup; ++i) round();
    const size_t before = mallinfo2().uordblks;
    for (int i = warmup; i < rounds; ++i) round();
    churn.growth = static_cast<int64_t>(mallinfo2().uordblks) - static_cast<int64_t>(before);
    h.Destroy(a);
    h.Destroy(c);
    l.Destroy(d);
    churn.ok = true;
  });
}

constexpr int kWarmup = 1000, kRounds = 10000;

// Templates (descriptor-set and push) and pools with a set written: the heap is flat.
// Where the device could not be made for want of VK_KHR_push_descriptor (the test skips).
bool NoPushDescriptors(const Churn& churn) {
  return !churn.ok && churn.error.find("vkCreateDevice") != std::string::npos;
}

// The same churn with indirect bindings off (what the driver itself keeps) and forced.
struct ChurnPair {
  Churn native, forced;
};

// RunChurn's arguments after the mode; the forced run is not made where the device lacks
// push descriptors.
template <typename... Args>
ChurnPair RunOffAndForced(Args... args) {
  ChurnPair runs;
  runs.native = RunChurn("off", args...);
  if (!NoPushDescriptors(runs.native)) runs.forced = RunChurn("force", args...);
  return runs;
}

// Both runs made, validation silent with the layer, and the heap grown with the layer by
// less than `limit` bytes more than without it.
void ExpectGrowthBeyondTheDriversUnder(const ChurnPair& runs, int64_t limit) {
  ASSERT_TRUE(runs.native.ok) << runs.native.error;
  ASSERT_TRUE(runs.forced.ok) << runs.forced.error;
  EXPECT_TRUE(runs.forced.validation.empty()) << runs.forced.validation;
  EXPECT_LT(runs.forced.growth - runs.native.growth, limit)
      << "with the layer the heap grew by " << runs.forced.growth << " bytes, without it by " << runs.native.growth;
}

TEST(BindingsMemory, ChurnOfTemplatesAndPoolsStaysFlat) {
  const Churn forced = RunChurn("force", false, true, kWarmup, kRounds);
  if (NoPushDescriptors(forced)) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  ASSERT_TRUE(forced.ok) << forced.error;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  // 9000 rounds: a leak of one small allocation per round would show as tens of KiB.
  EXPECT_LT(forced.growth, 64 * 1024) << "the heap grew by " << forced.growth << " bytes";
  EXPECT_LT(SummaryCounter(forced.summary, "layer GPU bytes peak"), 64u * 1024) << forced.summary;  // one pool at a time
}

// Pipelines: lavapipe itself keeps ~400 KiB per compute pipeline created and destroyed
// (without Bindery and without validation alike), so the layer's share is the difference
// from the same churn without indirect bindings: under 100 bytes per pipeline.
TEST(BindingsMemory, ChurnOfPipelinesAddsNothingToTheDrivers) {
  const ChurnPair runs = RunOffAndForced(true, false, kWarmup, kRounds);
  if (NoPushDescriptors(runs.native)) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  ASSERT_NO_FATAL_FAILURE(ExpectGrowthBeyondTheDriversUnder(runs, 100 * (kRounds - kWarmup)));
  ExpectSummaryCounters(runs.forced.summary, {{"pipelines rewritten", kRounds}});
}

// Modules of distinct content, each made into a pipeline and destroyed: the rewrite cache
// keeps only a bounded number of rewrites nothing holds (and their driver modules).
TEST(BindingsMemory, ChurnOfDistinctModulesKeepsTheRewriteCacheBounded) {
  constexpr int kDistinctWarmup = 500, kDistinctRounds = 2000;
  const ChurnPair runs = RunOffAndForced(true, false, kDistinctWarmup, kDistinctRounds, true);
  if (NoPushDescriptors(runs.native)) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  ASSERT_NO_FATAL_FAILURE(ExpectGrowthBeyondTheDriversUnder(runs, 100 * (kDistinctRounds - kDistinctWarmup)));
  ExpectSummaryCounters(runs.forced.summary, {{"pipelines rewritten", kDistinctRounds}});
}

// 10^4 layouts whose root lives in the ring, some with a pipeline that outlives its layout:
// the layer's copies of those layouts go with the last of the layout and its pipelines, so
// at most one is alive at a time and the heap grows no more than without the layer (kept
// copies grew it by ~1.7 KiB per round: the driver's pipeline layout and the layer's list).
TEST(BindingsMemory, ChurnOfRingRootLayoutsFreesTheLayersCopies) {
  const ChurnPair runs = RunOffAndForced(false, false, kWarmup, kRounds, false, true);
  if (NoPushDescriptors(runs.native)) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  ASSERT_NO_FATAL_FAILURE(ExpectGrowthBeyondTheDriversUnder(runs, 64 * 1024));
  ExpectSummaryCounters(runs.forced.summary,
                        {{"pipelines rewritten", kRounds / 10}, {"ring-root layout copies peak", 1}});
}

// A pipeline whose root lives in the ring outlives its layout (valid: a pipeline does not
// need its layout after creation). Its sets are bound through a second layout of the same
// shape, so the dispatch re-binds the reserved set through the layer's copy of the first
// layout, which the pipeline keeps alive. Forced: correct results, validation silent.
// A device with indirect bindings forced, push descriptors on (Layouts makes a push layout
// too) and the layer logging its summary, with the layouts and twin_copy.comp's module the
// single-device tests below build their pipelines from.
struct ForcedTwinCopy {
  ScopedEnv bindings{"BINDERY_INDIRECT_BINDINGS", "force"};
  ScopedEnv level{"BINDERY_LOG_LEVEL", "info"};
  VkHarness h{WithPushDescriptors()};
  Layouts l;
  VkShaderModule module = VK_NULL_HANDLE;

  bool NoPushDescriptors() const { return !h.ok() && h.error().find("vkCreateDevice") != std::string::npos; }
  // The layouts and the module; a failure says which could not be made.
  ::testing::AssertionResult Start() {
    if (!h.ok()) return ::testing::AssertionFailure() << h.error();
    l.Create(h.device());
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = sizeof(twin_copy_comp);
    smci.pCode = twin_copy_comp;
    const VkResult created = vkCreateShaderModule(h.device(), &smci, nullptr, &module);
    if (created != VK_SUCCESS) return ::testing::AssertionFailure() << "vkCreateShaderModule: " << created;
    return ::testing::AssertionSuccess();
  }
  // Destroys the module, the layouts and the device (the test destroyed what it made),
  // expects validation silent, and returns the layer's summary of the device.
  std::string Finish() {
    vkDestroyShaderModule(h.device(), module, nullptr);
    l.Destroy(h.device());
    h.DestroyDevice();
    EXPECT_VALIDATION_SILENT(h);
    return h.BinderySummary();
  }
};

TEST(BindingsMemory, ARingRootPipelineWorksAfterItsLayoutIsDestroyed) {
  ForcedTwinCopy t;
  if (t.NoPushDescriptors()) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  ASSERT_TRUE(t.Start());
  VkHarness& h = t.h;
  VkDevice d = h.device();
  const VkPipelineLayout first = CreateRingRootLayout(d, h.physical_device(), t.l.set);
  const VkPipeline pipeline = CreatePipeline(d, t.module, first);
  ASSERT_NE(pipeline, VK_NULL_HANDLE);
  // Made before `first` goes, so the driver cannot give it `first`'s handle value.
  const VkPipelineLayout second = CreateRingRootLayout(d, h.physical_device(), t.l.set);
  vkDestroyPipelineLayout(d, first, nullptr);
  constexpr uint32_t kWords = 64;
  HostBuffer a = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer c = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(a.mapped)[i] = 7 * i;
  std::memset(c.mapped, 0, kWords * 4);
  const VkDescriptorPool pool = CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}});
  const VkDescriptorSet set = AllocateSet(d, pool, t.l.set);
  const VkDescriptorBufferInfo infos[2] = {{a.buffer, 0, VK_WHOLE_SIZE}, {c.buffer, 0, VK_WHOLE_SIZE}};
  const VkWriteDescriptorSet w = BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 2);
  vkUpdateDescriptorSets(d, 1, &w, 0, nullptr);
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, second, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(static_cast<const uint32_t*>(c.mapped)[i], 14 * i + 1) << "word " << i;
  }
  vkDestroyPipeline(d, pipeline, nullptr);
  vkDestroyPipelineLayout(d, second, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  h.Destroy(a);
  h.Destroy(c);
  const std::string summary = t.Finish();
  EXPECT_EQ(SummaryCounter(summary, "pipelines rewritten"), 1u) << summary;
  EXPECT_EQ(SummaryCounter(summary, "ring-root layout copies peak"), 2u) << summary;
}

TEST(BindingsMemory, OnePushInEachOf512CommandBuffersHoldsSmallPieces) {
  ForcedTwinCopy t;
  if (t.NoPushDescriptors()) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  ASSERT_TRUE(t.Start());
  VkHarness& h = t.h;
  VkDevice d = h.device();
  VkPipeline pipeline = CreatePipeline(d, t.module, t.l.push_layout);
  HostBuffer a = h.CreateHostBuffer(1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer c = h.CreateHostBuffer(1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  const VkDescriptorBufferInfo infos[2] = {{a.buffer, 0, VK_WHOLE_SIZE}, {c.buffer, 0, VK_WHOLE_SIZE}};
  auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
  ASSERT_NE(push_cmd, nullptr);
  constexpr uint32_t kCommandBuffers = 512;
  std::vector<VkCommandBuffer> cbs(kCommandBuffers);
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = h.command_pool();
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = kCommandBuffers;
  ASSERT_EQ(vkAllocateCommandBuffers(d, &cbai, cbs.data()), VK_SUCCESS);
  for (VkCommandBuffer cb : cbs) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cb, &begin);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.descriptorCount = 2;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = infos;
    push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, t.l.push_layout, 0, 1, &w);
    vkCmdDispatch(cb, 1, 1, 1);
    EXPECT_EQ(vkEndCommandBuffer(cb), VK_SUCCESS);
  }
  vkFreeCommandBuffers(d, h.command_pool(), kCommandBuffers, cbs.data());
  vkDestroyPipeline(d, pipeline, nullptr);
  h.Destroy(a);
  h.Destroy(c);
  const std::string summary = t.Finish();
  EXPECT_EQ(SummaryCounter(summary, "push descriptor updates converted"), kCommandBuffers) << summary;
  // 512 pieces of 4 KiB: two 1 MiB blocks (each with its root tail), not 512 x 64 KiB.
  EXPECT_LE(SummaryCounter(summary, "layer GPU bytes peak"), 2u * (1024 * 1024 + 1024)) << summary;
}

}  // namespace
}  // namespace bindery::test
