// What a draw or dispatch reads is what its bind point had bound, whatever the other bind
// point, the draw command, the set numbering or the layout handles (docs/bindings-bind-points.md).
// Each program runs with indirect bindings off and forced (and under auto where a layout
// goes beyond a driver limit): the buffers must be byte-identical and hold what the
// shaders compute, validation below the layer (synchronization validation on) silent, and
// the forced run must really have converted.
#include <gtest/gtest.h>

#include <regex>

#include "bind_point_rig.h"
#include "bp_33_buffers_comp.h"
#include "bp_mark_comp.h"
#include "bp_mark_frag.h"
#include "bp_push_constant_comp.h"
#include "bp_push_ubo_comp.h"
#include "bp_push_ubo_frag.h"
#include "bp_refused_frag.h"
#include "bp_ubo_then_ssbo_comp.h"
#include "fallback_refused_comp.h"
#include "fallback_refused_far_comp.h"

namespace bindery::test {
namespace {

constexpr VkDescriptorType kStorage = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
constexpr VkDescriptorType kUniform = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;

uint64_t Counter(const std::string& summary, const std::string& name) {
  std::smatch m;
  return std::regex_search(summary, m, std::regex(name + " (\\d+)")) ? std::stoull(m[1]) : ~0ull;
}

uint32_t Word(const BindPointRun& run, size_t buffer, size_t word) {
  uint32_t w = 0;
  std::memcpy(&w, run.buffers[buffer].data() + 4 * word, 4);
  return w;
}

// Off vs forced: identical buffers, silent validation, something really rewritten (or run
// natively as a fallback: `fallback`).
void ExpectSameAsNative(const BindPointRun& off, const BindPointRun& forced, bool fallback = false) {
  EXPECT_EQ(off.validation, "");
  EXPECT_EQ(forced.validation, "");
  ASSERT_EQ(off.buffers.size(), forced.buffers.size());
  for (size_t i = 0; i < off.buffers.size(); ++i) EXPECT_EQ(off.buffers[i], forced.buffers[i]) << "buffer " << i;
  if (fallback) {
    EXPECT_GE(Counter(forced.summary, "fallen back"), 1u) << forced.summary;
  } else {
    EXPECT_GE(Counter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
  }
}

// ---- roots per bind point ----------------------------------------------------------

// Graphics set 0 = A, compute set 0 = B (one layout, so one root slot), dispatch, draw,
// dispatch: the fragment shader writes A[0], both dispatches B[1].
BindPointRun ComputeBindBetweenGraphicsBindAndDraw(const char* mode) {
  RigOptions options;
  options.graphics = true;
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {rig.h().error()};
  VkDescriptorSetLayout set_layout =
      rig.SetLayout({{0, kStorage, 1, VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  VkPipelineLayout layout = rig.Layout({set_layout});
  VkPipeline graphics = rig.Graphics(bp_mark_frag, sizeof(bp_mark_frag), layout);
  VkPipeline compute = rig.Compute(bp_mark_comp, sizeof(bp_mark_comp), layout);
  VkBuffer a = rig.Buffer(), b = rig.Buffer();
  VkDescriptorSet set_a = rig.Set(set_layout, {0}, {kStorage}, {a});
  VkDescriptorSet set_b = rig.Set(set_layout, {0}, {kStorage}, {b});
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, graphics);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set_a, 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, compute);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set_b, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  rig.BeginPass(cb);
  vkCmdDraw(cb, 3, 1, 0, 0);
  vkCmdEndRenderPass(cb);
  BindPointRig::Barrier(cb);
  vkCmdDispatch(cb, 1, 1, 1);  // the graphics root went down again for the draw: B's must come back
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  return rig.Finish();
}

TEST(BindingsBindPoints, AComputeBindLeavesTheGraphicsRootAlone) {
  const BindPointRun off = ComputeBindBetweenGraphicsBindAndDraw("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = ComputeBindBetweenGraphicsBindAndDraw("force");
  ASSERT_EQ(forced.skip, "");
  EXPECT_EQ(Word(off, 0, 0), 0xF00Du);  // A: the fragment shader's mark
  EXPECT_EQ(Word(off, 0, 1), 0u);
  EXPECT_EQ(Word(off, 1, 0), 0u);  // B: the dispatches' mark only
  EXPECT_EQ(Word(off, 1, 1), 0xC0DEu);
  ExpectSameAsNative(off, forced);
}

// The graphics layout has a vertex+fragment push-constant range over bytes 0..12 (never
// pushed), so its root lies at 16; the compute layout has none, so its root lies at 0. The
// compute root goes down between the graphics bind and the draw; nothing the graphics
// stages were given lies at 0..8, so the draw must send nothing there: on a driver with
// one push-constant array for every stage (lavapipe) that would land on the compute root
// read by the dispatch after the draw (the API fuzzer's seed5547: a crash).
BindPointRun ComputeRootUnderGraphicsRanges(const char* mode) {
  RigOptions options;
  options.graphics = true;
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {rig.h().error()};
  VkDescriptorSetLayout fragment_set = rig.SetLayout({{0, kStorage, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}});
  VkDescriptorSetLayout compute_set = rig.SetLayout({{0, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  VkPipelineLayout graphics_layout =
      rig.Layout({fragment_set}, {{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 12}});
  VkPipelineLayout compute_layout = rig.Layout({compute_set});
  VkPipeline graphics = rig.Graphics(bp_mark_frag, sizeof(bp_mark_frag), graphics_layout);
  VkPipeline compute = rig.Compute(bp_mark_comp, sizeof(bp_mark_comp), compute_layout);
  VkBuffer a = rig.Buffer(), b = rig.Buffer();
  VkDescriptorSet set_a = rig.Set(fragment_set, {0}, {kStorage}, {a});
  VkDescriptorSet set_b = rig.Set(compute_set, {0}, {kStorage}, {b});
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, graphics);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, graphics_layout, 0, 1, &set_a, 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, compute);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, compute_layout, 0, 1, &set_b, 0, nullptr);
  rig.BeginPass(cb);
  vkCmdDraw(cb, 3, 1, 0, 0);
  vkCmdEndRenderPass(cb);
  BindPointRig::Barrier(cb);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  return rig.Finish();
}

TEST(BindingsBindPoints, ADrawSendsNoPushConstantBytesItsStagesWereNeverGiven) {
  const BindPointRun off = ComputeRootUnderGraphicsRanges("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = ComputeRootUnderGraphicsRanges("force");
  ASSERT_EQ(forced.skip, "");
  EXPECT_EQ(Word(off, 0, 0), 0xF00Du);  // A: the fragment shader's mark
  EXPECT_EQ(Word(off, 1, 1), 0xC0DEu);  // B: the dispatch's mark
  ExpectSameAsNative(off, forced);
}

// ---- every draw command --------------------------------------------------------------

// A graphics pipeline the rewrite refuses (it runs natively) drawn with vkCmdDrawMultiEXT,
// as zink draws: its sets must be there as full native sets.
BindPointRun FallbackDrawnWithDrawMulti(const char* mode) {
  VkPhysicalDeviceMultiDrawFeaturesEXT multi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTI_DRAW_FEATURES_EXT};
  multi.multiDraw = VK_TRUE;
  RigOptions options;
  options.graphics = true;
  options.device_extensions = {VK_EXT_MULTI_DRAW_EXTENSION_NAME};
  options.device_pnext = &multi;
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {rig.h().error()};
  auto draw_multi = reinterpret_cast<PFN_vkCmdDrawMultiEXT>(vkGetDeviceProcAddr(rig.d(), "vkCmdDrawMultiEXT"));
  if (draw_multi == nullptr) return {"vkCmdDrawMultiEXT is not available"};
  VkDescriptorSetLayout set_layout = rig.SetLayout({{0, kStorage, 2, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr}});
  VkPipelineLayout layout = rig.Layout({set_layout});
  VkPipeline graphics = rig.Graphics(bp_refused_frag, sizeof(bp_refused_frag), layout);
  VkBuffer x = rig.Buffer(), y = rig.Buffer();
  VkDescriptorSet set = rig.Set(set_layout, {0, 0}, {kStorage, kStorage}, {x, y}, {0, 1});
  VkCommandBuffer cb = rig.h().BeginCommands();
  rig.BeginPass(cb);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, graphics);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
  const VkMultiDrawInfoEXT draw{0, 3};
  draw_multi(cb, 1, &draw, 1, 0, sizeof(draw));
  vkCmdEndRenderPass(cb);
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  return rig.Finish();
}

TEST(BindingsBindPoints, AFallbackPipelineDrawnWithDrawMultiGetsItsSets) {
  const BindPointRun off = FallbackDrawnWithDrawMulti("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = FallbackDrawnWithDrawMulti("force");
  ASSERT_EQ(forced.skip, "");
  EXPECT_EQ(Word(off, 0, 0), 0xF00Du);
  EXPECT_EQ(Word(off, 1, 0), 0xBEEFu);
  ExpectSameAsNative(off, forced, /*fallback=*/true);
}

// ---- renumbered sets ---------------------------------------------------------------

// Set 0 holds only a storage buffer (left out of the layout sent down once converted),
// set 1 is a push-descriptor set with a uniform buffer: pushed directly, then with a
// template, each followed by a dispatch (or a draw: `graphics`).
BindPointRun PushToARenumberedSet(const char* mode, bool graphics) {
  const VkPipelineBindPoint bind_point = graphics ? VK_PIPELINE_BIND_POINT_GRAPHICS : VK_PIPELINE_BIND_POINT_COMPUTE;
  const VkShaderStageFlags stage = graphics ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_COMPUTE_BIT;
  RigOptions options;
  options.graphics = graphics;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {rig.h().error()};
  auto push = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(rig.d(), "vkCmdPushDescriptorSetKHR"));
  auto push_template = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
      vkGetDeviceProcAddr(rig.d(), "vkCmdPushDescriptorSetWithTemplateKHR"));
  if (push == nullptr || push_template == nullptr) return {"no VK_KHR_push_descriptor"};
  VkDescriptorSetLayout storage = rig.SetLayout({{0, kStorage, 1, stage, nullptr}});
  VkDescriptorSetLayout pushed =
      rig.SetLayout({{0, kUniform, 1, stage, nullptr}}, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR);
  VkPipelineLayout layout = rig.Layout({storage, pushed});
  VkPipeline pipeline = graphics ? rig.Graphics(bp_push_ubo_frag, sizeof(bp_push_ubo_frag), layout)
                                 : rig.Compute(bp_push_ubo_comp, sizeof(bp_push_ubo_comp), layout);
  VkBuffer out1 = rig.Buffer(), out2 = rig.Buffer();
  VkBuffer ubo1 = rig.Buffer(VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 41);
  VkBuffer ubo2 = rig.Buffer(VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 99);
  VkDescriptorSet set1 = rig.Set(storage, {0}, {kStorage}, {out1});
  VkDescriptorSet set2 = rig.Set(storage, {0}, {kStorage}, {out2});
  VkDescriptorUpdateTemplateEntry entry{0, 0, 1, kUniform, 0, sizeof(VkDescriptorBufferInfo)};
  VkDescriptorUpdateTemplateCreateInfo tci = PushTemplateInfo(&entry, 1, bind_point, layout, 1);
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateDescriptorUpdateTemplate(rig.d(), &tci, nullptr, &update_template), VK_SUCCESS);
  auto run = [&](VkCommandBuffer c) {
    if (!graphics) return vkCmdDispatch(c, 1, 1, 1);
    rig.BeginPass(c);
    vkCmdDraw(c, 3, 1, 0, 0);
    vkCmdEndRenderPass(c);
  };
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, bind_point, pipeline);
  vkCmdBindDescriptorSets(cb, bind_point, layout, 0, 1, &set1, 0, nullptr);
  const VkDescriptorBufferInfo info1{ubo1, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstBinding = 0;
  w.descriptorCount = 1;
  w.descriptorType = kUniform;
  w.pBufferInfo = &info1;
  push(cb, bind_point, layout, 1, 1, &w);
  run(cb);
  BindPointRig::Barrier(cb);
  vkCmdBindDescriptorSets(cb, bind_point, layout, 0, 1, &set2, 0, nullptr);
  const VkDescriptorBufferInfo info2{ubo2, 0, VK_WHOLE_SIZE};
  push_template(cb, update_template, layout, 1, &info2);
  run(cb);
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  vkDestroyDescriptorUpdateTemplate(rig.d(), update_template, nullptr);
  return rig.Finish();
}

class RenumberedPush : public testing::TestWithParam<bool> {};

TEST_P(RenumberedPush, PushDescriptorsReachARenumberedSet) {
  const BindPointRun off = PushToARenumberedSet("off", GetParam());
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = PushToARenumberedSet("force", GetParam());
  ASSERT_EQ(forced.skip, "");
  EXPECT_EQ(Word(off, 0, 0), 42u);
  EXPECT_EQ(Word(off, 1, 0), 100u);
  ExpectSameAsNative(off, forced);
}

INSTANTIATE_TEST_SUITE_P(BindPoints, RenumberedPush, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& p) { return std::string(p.param ? "Graphics" : "Compute"); });

// ---- compatibility as the spec defines it ------------------------------------------

// A = {set 0: a uniform buffer}, B = {the same set layout, set 1: a storage buffer}: set 0
// bound through A stays bound for B's pipeline. C = {no set, a push-constant range}, D =
// {a storage buffer, the same range}: a push through C reaches D's pipeline.
BindPointRun LayoutsCompatibleBySpec(const char* mode) {
  BindPointRig rig(mode);
  if (!rig.ok()) return {rig.h().error()};
  VkDescriptorSetLayout uniform = rig.SetLayout({{0, kUniform, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  VkDescriptorSetLayout storage = rig.SetLayout({{0, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
  VkPipelineLayout a = rig.Layout({uniform});
  VkPipelineLayout b = rig.Layout({uniform, storage});
  VkPipelineLayout c = rig.Layout({}, {range});
  VkPipelineLayout d = rig.Layout({storage}, {range});
  VkPipeline pb = rig.Compute(bp_ubo_then_ssbo_comp, sizeof(bp_ubo_then_ssbo_comp), b);
  VkPipeline pd = rig.Compute(bp_push_constant_comp, sizeof(bp_push_constant_comp), d);
  VkBuffer out1 = rig.Buffer(), out2 = rig.Buffer();
  VkBuffer ubo = rig.Buffer(VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 20);
  VkDescriptorSet uniform_set = rig.Set(uniform, {0}, {kUniform}, {ubo});
  VkDescriptorSet out1_set = rig.Set(storage, {0}, {kStorage}, {out1});
  VkDescriptorSet out2_set = rig.Set(storage, {0}, {kStorage}, {out2});
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a, 0, 1, &uniform_set, 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pb);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b, 1, 1, &out1_set, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  const uint32_t x = 10;
  vkCmdPushConstants(cb, c, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &x);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pd);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d, 0, 1, &out2_set, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  return rig.Finish();
}

TEST(BindingsBindPoints, LayoutsCompatibleForASetOrPushConstantsStaySo) {
  const BindPointRun off = LayoutsCompatibleBySpec("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = LayoutsCompatibleBySpec("force");
  ASSERT_EQ(forced.skip, "");
  EXPECT_EQ(Word(off, 0, 0), 41u);
  EXPECT_EQ(Word(off, 1, 0), 15u);
  ExpectSameAsNative(off, forced);
}

// A set bound through a layout made from La, dispatched by a pipeline that runs natively
// whose layout is made from Lb, defined identically to La.
BindPointRun IdenticallyDefinedSetLayouts(const char* mode) {
  BindPointRig rig(mode);
  if (!rig.ok()) return {rig.h().error()};
  const std::vector<VkDescriptorSetLayoutBinding> bindings = {
      {0, kStorage, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}, {1, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayout la = rig.SetLayout(bindings);
  VkDescriptorSetLayout lb = rig.SetLayout(bindings);
  VkPipelineLayout with_la = rig.Layout({la});
  VkPipelineLayout with_lb = rig.Layout({lb});
  VkPipeline pipeline = rig.Compute(fallback_refused_comp, sizeof(fallback_refused_comp), with_lb);
  VkBuffer in0 = rig.Buffer(), in1 = rig.Buffer(), out = rig.Buffer();
  for (uint32_t i = 0; i < 64; ++i) {
    rig.Words(0)[i] = i + 1;
    rig.Words(1)[i] = 100 + i;
  }
  VkDescriptorSet set = rig.Set(la, {0, 0, 1}, {kStorage, kStorage, kStorage}, {in0, in1, out}, {0, 1, 0});
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, with_la, 0, 1, &set, 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  return rig.Finish();
}

TEST(BindingsBindPoints, SetLayoutsAreComparedByDefinition) {
  const BindPointRun off = IdenticallyDefinedSetLayouts("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = IdenticallyDefinedSetLayouts("force");
  ASSERT_EQ(forced.skip, "");
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(Word(off, 2, i), (i + 1) + (100 + i) * 2) << "word " << i;
  ExpectSameAsNative(off, forced, /*fallback=*/true);
}

// ---- update-after-bind ---------------------------------------------------------------

// A pipeline that runs natively reads the set's full native set: an update-after-bind
// write made after the command buffer was recorded (and before it runs) must reach it,
// as it reaches the application's set natively.
// How the update after recording is made: a write, a copy from another set, a template.
enum class LateUpdate { kWrite, kCopy, kTemplate };

BindPointRun UpdateAfterRecording(const char* mode, LateUpdate how = LateUpdate::kWrite) {
  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.descriptorIndexing = VK_TRUE;
  v12.descriptorBindingStorageBufferUpdateAfterBind = VK_TRUE;
  RigOptions options;
  options.device_pnext = &v12;
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {rig.h().error()};
  VkDevice d = rig.d();
  const VkDescriptorBindingFlags uab = VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT;
  const VkDescriptorBindingFlags flags[2] = {uab, uab};
  VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info{
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
  flags_info.bindingCount = 2;
  flags_info.pBindingFlags = flags;
  const VkDescriptorSetLayoutBinding bindings[2] = {{0, kStorage, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                                    {1, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, &flags_info};
  dslci.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
  dslci.bindingCount = 2;
  dslci.pBindings = bindings;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  if (vkCreateDescriptorSetLayout(d, &dslci, nullptr, &set_layout) != VK_SUCCESS) {
    return {"update-after-bind storage buffers are not supported"};
  }
  VkDescriptorPoolSize size{kStorage, 6};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.flags = VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT;
  dpci.maxSets = 2;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateDescriptorPool(d, &dpci, nullptr, &pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE, source = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateDescriptorSets(d, &alloc, &set), VK_SUCCESS);
  EXPECT_EQ(vkAllocateDescriptorSets(d, &alloc, &source), VK_SUCCESS);
  VkPipelineLayout layout = rig.Layout({set_layout});
  VkPipeline pipeline = rig.Compute(fallback_refused_comp, sizeof(fallback_refused_comp), layout);
  VkBuffer first = rig.Buffer(), second = rig.Buffer(), in1 = rig.Buffer(), out = rig.Buffer();
  for (uint32_t i = 0; i < 64; ++i) {
    rig.Words(0)[i] = 1000 + i;
    rig.Words(1)[i] = 7 * i + 3;
    rig.Words(2)[i] = 100 + i;
  }
  auto write_to = [&](VkDescriptorSet target, uint32_t binding, uint32_t element, VkBuffer buffer) {
    const VkDescriptorBufferInfo info{buffer, 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = target;
    w.dstBinding = binding;
    w.dstArrayElement = element;
    w.descriptorCount = 1;
    w.descriptorType = kStorage;
    w.pBufferInfo = &info;
    vkUpdateDescriptorSets(d, 1, &w, 0, nullptr);
  };
  auto write = [&](uint32_t binding, uint32_t element, VkBuffer buffer) { write_to(set, binding, element, buffer); };
  write_to(source, 0, 0, second);
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
  if (how == LateUpdate::kTemplate) {
    VkDescriptorUpdateTemplateEntry entry{0, 0, 1, kStorage, 0, sizeof(VkDescriptorBufferInfo)};
    VkDescriptorUpdateTemplateCreateInfo tci = SetTemplateInfo(&entry, 1, set_layout);
    EXPECT_EQ(vkCreateDescriptorUpdateTemplate(d, &tci, nullptr, &update_template), VK_SUCCESS);
  }
  write(0, 0, first);
  write(0, 1, in1);
  write(1, 0, out);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  // After recording, before submission: update-after-bind.
  if (how == LateUpdate::kWrite) {
    write(0, 0, second);
  } else if (how == LateUpdate::kCopy) {
    VkCopyDescriptorSet c{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
    c.srcSet = source;
    c.dstSet = set;
    c.descriptorCount = 1;
    vkUpdateDescriptorSets(d, 0, nullptr, 1, &c);
  } else {
    const VkDescriptorBufferInfo info{second, 0, VK_WHOLE_SIZE};
    vkUpdateDescriptorSetWithTemplate(d, set, update_template, &info);
  }
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  if (update_template != VK_NULL_HANDLE) vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  vkDestroyDescriptorSetLayout(d, set_layout, nullptr);
  return rig.Finish();
}

TEST(BindingsBindPoints, AnUpdateAfterBindReachesAPipelineRunningNatively) {
  const BindPointRun off = UpdateAfterRecording("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = UpdateAfterRecording("force");
  ASSERT_EQ(forced.skip, "");
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(Word(off, 3, i), (7 * i + 3) + (100 + i) * 2) << "word " << i;
  ExpectSameAsNative(off, forced, /*fallback=*/true);
}

// The same update made by a copy from another set, and by a template: each reaches the
// full set the recorded command buffer reads (both used to mark it for a rewrite at its
// next use, which the recorded command buffer never saw).
TEST(BindingsBindPoints, AnUpdateAfterBindByCopyReachesAPipelineRunningNatively) {
  const BindPointRun off = UpdateAfterRecording("off", LateUpdate::kCopy);
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = UpdateAfterRecording("force", LateUpdate::kCopy);
  ASSERT_EQ(forced.skip, "");
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(Word(off, 3, i), (7 * i + 3) + (100 + i) * 2) << "word " << i;
  ExpectSameAsNative(off, forced, /*fallback=*/true);
}

TEST(BindingsBindPoints, AnUpdateAfterBindByTemplateReachesAPipelineRunningNatively) {
  const BindPointRun off = UpdateAfterRecording("off", LateUpdate::kTemplate);
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = UpdateAfterRecording("force", LateUpdate::kTemplate);
  ASSERT_EQ(forced.skip, "");
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(Word(off, 3, i), (7 * i + 3) + (100 + i) * 2) << "word " << i;
  ExpectSameAsNative(off, forced, /*fallback=*/true);
}

// Without update-after-bind: a set whose full native set exists (a first command buffer
// ran a pipeline natively with it) updated by a copy and by a template between two
// command buffers: the second reads what each update changed, mirrored into the full set
// (a binding a copy or template does not touch keeps what was written before).
BindPointRun CopyAndTemplateBetweenUses(const char* mode, LateUpdate how) {
  BindPointRig rig(mode);
  if (!rig.ok()) return {rig.h().error()};
  VkDescriptorSetLayout set_layout = rig.SetLayout(
      {{0, kStorage, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}, {1, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  VkPipelineLayout layout = rig.Layout({set_layout});
  VkPipeline pipeline = rig.Compute(fallback_refused_comp, sizeof(fallback_refused_comp), layout);
  VkBuffer first = rig.Buffer(), second = rig.Buffer(), in1 = rig.Buffer(), out1 = rig.Buffer(), out2 = rig.Buffer();
  for (uint32_t i = 0; i < 64; ++i) {
    rig.Words(0)[i] = 1000 + i;
    rig.Words(1)[i] = 7 * i + 3;
    rig.Words(2)[i] = 100 + i;
  }
  VkDescriptorSet set = rig.Set(set_layout, {0, 0, 1}, {kStorage, kStorage, kStorage}, {first, in1, out1}, {0, 1, 0});
  VkDescriptorSet source =
      rig.Set(set_layout, {0, 0, 1}, {kStorage, kStorage, kStorage}, {second, in1, out2}, {0, 1, 0});
  auto run = [&] {
    VkCommandBuffer cb = rig.h().BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    BindPointRig::Barrier(cb);
    EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  };
  run();  // out1 = first + in1 * 2
  if (how == LateUpdate::kCopy) {
    // Element 0 of binding 0 and binding 1 from `source`: second, out2.
    VkCopyDescriptorSet c[2] = {{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET}};
    c[0].srcSet = source;
    c[0].dstSet = set;
    c[0].descriptorCount = 1;
    c[1] = c[0];
    c[1].srcBinding = 1;
    c[1].dstBinding = 1;
    vkUpdateDescriptorSets(rig.d(), 0, nullptr, 2, c);
  } else {
    VkDescriptorUpdateTemplateEntry entries[2] = {{0, 0, 1, kStorage, 0, sizeof(VkDescriptorBufferInfo)},
                                                  {1, 0, 1, kStorage, sizeof(VkDescriptorBufferInfo), 0}};
    VkDescriptorUpdateTemplateCreateInfo tci = SetTemplateInfo(entries, 2, set_layout);
    VkDescriptorUpdateTemplate t = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateDescriptorUpdateTemplate(rig.d(), &tci, nullptr, &t), VK_SUCCESS);
    const VkDescriptorBufferInfo infos[2] = {{second, 0, VK_WHOLE_SIZE}, {out2, 0, VK_WHOLE_SIZE}};
    vkUpdateDescriptorSetWithTemplate(rig.d(), set, t, infos);
    vkDestroyDescriptorUpdateTemplate(rig.d(), t, nullptr);
  }
  run();  // out2 = second + in1 * 2
  return rig.Finish();
}

TEST(BindingsBindPoints, CopiesAndTemplatesReachAFullSetBetweenUses) {
  for (LateUpdate how : {LateUpdate::kCopy, LateUpdate::kTemplate}) {
    SCOPED_TRACE(how == LateUpdate::kCopy ? "copy" : "template");
    const BindPointRun off = CopyAndTemplateBetweenUses("off", how);
    if (!off.skip.empty()) GTEST_SKIP() << off.skip;
    const BindPointRun forced = CopyAndTemplateBetweenUses("force", how);
    ASSERT_EQ(forced.skip, "");
    for (uint32_t i = 0; i < 64; ++i) {
      ASSERT_EQ(Word(off, 3, i), (1000 + i) + (100 + i) * 2) << "word " << i;
      ASSERT_EQ(Word(off, 4, i), (7 * i + 3) + (100 + i) * 2) << "word " << i;
    }
    ExpectSameAsNative(off, forced, /*fallback=*/true);
  }
}

// A full native set is written once, at its first use, with every binding: also those
// beyond the 64th. Writing any of them again when a second command buffer binds the set
// would update a set the first (recorded, not yet submitted) still reads, which
// invalidates it (validation reports the submit).
BindPointRun FarBindingsInTwoCommandBuffers(const char* mode) {
  BindPointRig rig(mode);
  if (!rig.ok()) return {rig.h().error()};
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (uint32_t b = 0; b < 70; ++b) bindings.push_back({b, kStorage, 0, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  bindings.push_back({70, kStorage, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  bindings.push_back({71, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayout set_layout = rig.SetLayout(bindings);
  VkPipelineLayout layout = rig.Layout({set_layout});
  VkPipeline pipeline = rig.Compute(fallback_refused_far_comp, sizeof(fallback_refused_far_comp), layout);
  VkBuffer in0 = rig.Buffer(), in1 = rig.Buffer(), out = rig.Buffer();
  for (uint32_t i = 0; i < 64; ++i) {
    rig.Words(0)[i] = 1000 + i;
    rig.Words(1)[i] = 100 + i;
  }
  VkDescriptorSet set = rig.Set(set_layout, {70, 70, 71}, {kStorage, kStorage, kStorage}, {in0, in1, out}, {0, 1, 0});
  auto record = [&] {
    VkCommandBuffer cb = rig.h().BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    BindPointRig::Barrier(cb);
    return cb;
  };
  VkCommandBuffer first = record();
  VkCommandBuffer second = record();  // the set's second use, while `first` reads it
  EXPECT_EQ(rig.h().SubmitAndWait(first), VK_SUCCESS);
  EXPECT_EQ(rig.h().SubmitAndWait(second), VK_SUCCESS);
  return rig.Finish();
}

TEST(BindingsBindPoints, AFullSetWithBindingsBeyondTheSixtyFourthIsWrittenOnce) {
  const BindPointRun off = FarBindingsInTwoCommandBuffers("off");
  if (!off.skip.empty()) GTEST_SKIP() << off.skip;
  const BindPointRun forced = FarBindingsInTwoCommandBuffers("force");
  ASSERT_EQ(forced.skip, "");
  for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(Word(off, 2, i), (1000 + i) + (100 + i) * 2) << "word " << i;
  ExpectSameAsNative(off, forced, /*fallback=*/true);
}

// ---- auto installs what its converted layouts need ---------------------------------

// 33 storage buffers in one stage (lavapipe allows 32: the layout converts under auto),
// one of them on external memory. Where the driver allows external memory an address (as
// lavapipe does for OPAQUE_FD) the buffer is addressable and both dispatches run
// rewritten. Where it does not (tests/no_address_layer below the layer) a dispatch with
// that set cannot run rewritten, and no native twin exists (natively the layout is beyond
// the driver), so the command buffer is refused at vkEndCommandBuffer with the layer's
// error, never run on a null address nor dropped unseen.
struct OverLimitRun {
  BindPointRun run;
  uint32_t per_stage_limit = 0;
  VkResult end = VK_SUCCESS;
};

OverLimitRun OverLimitWithAnExternalBuffer(const char* mode, bool no_address_driver) {
  OverLimitRun out;
  RigOptions options;
  if (no_address_driver) options.layers_between = {"VK_LAYER_bindery_test_no_address"};
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {{rig.h().error()}};
  VkBuffer external = rig.ExternalBuffer();  // buffer 0
  if (external == VK_NULL_HANDLE) return {{"the device cannot export OPAQUE_FD storage buffers"}};
  rig.Words(0)[0] = 100;
  VkDescriptorSetLayout set_layout = rig.SetLayout(
      {{0, kStorage, 32, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}, {1, kStorage, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  VkPipelineLayout layout = rig.Layout({set_layout});
  VkPipeline pipeline = rig.Compute(bp_33_buffers_comp, sizeof(bp_33_buffers_comp), layout);
  std::vector<VkBuffer> inputs;
  for (uint32_t i = 0; i < 32; ++i) inputs.push_back(rig.Buffer(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, i + 1));  // 1..32
  VkBuffer sum_with_external = rig.Buffer();  // buffer 33
  VkBuffer sum_plain = rig.Buffer();          // buffer 34
  auto make_set = [&](VkBuffer fifth, VkBuffer sum) {
    std::vector<uint32_t> bindings(32, 0), elements;
    std::vector<VkDescriptorType> types(33, kStorage);
    std::vector<VkBuffer> buffers = inputs;
    buffers[5] = fifth;
    for (uint32_t i = 0; i < 32; ++i) elements.push_back(i);
    bindings.push_back(1);
    elements.push_back(0);
    buffers.push_back(sum);
    return rig.Set(set_layout, bindings, types, buffers, elements);
  };
  VkDescriptorSet with_external = make_set(external, sum_with_external);
  VkDescriptorSet plain = make_set(inputs[5], sum_plain);
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &with_external, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &plain, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BindPointRig::Barrier(cb);
  // Submitted only when it could be ended (a command buffer whose end failed must not be).
  out.end = vkEndCommandBuffer(cb);
  if (out.end == VK_SUCCESS) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    EXPECT_EQ(vkQueueSubmit(rig.h().queue(), 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
    EXPECT_EQ(vkQueueWaitIdle(rig.h().queue()), VK_SUCCESS);
  }
  vkFreeCommandBuffers(rig.d(), rig.h().command_pool(), 1, &cb);
  {
    // The driver's own limit (the layer reports a raised one under force).
    VkHarness native({.bindery = false, .validation = false});
    VkPhysicalDeviceProperties native_props{};
    if (native.ok()) vkGetPhysicalDeviceProperties(native.physical_device(), &native_props);
    out.per_stage_limit = native_props.limits.maxPerStageDescriptorStorageBuffers;
  }
  out.run = rig.Finish();
  return out;
}

class OverLimit : public testing::TestWithParam<const char*> {};

TEST_P(OverLimit, AnExternalBufferIsAddressedBeyondTheDriversLimits) {
  const OverLimitRun r = OverLimitWithAnExternalBuffer(GetParam(), false);
  if (!r.run.skip.empty()) GTEST_SKIP() << r.run.skip;
  EXPECT_EQ(r.run.validation, "");
  EXPECT_EQ(r.end, VK_SUCCESS);
  uint32_t expected = 0;
  for (uint32_t i = 0; i < 32; ++i) expected += (i + 1) * (i + 1);
  EXPECT_EQ(Word(r.run, 34, 0), expected);  // the ordinary set
  EXPECT_EQ(Word(r.run, 33, 0), expected - 6 * 6 + 100 * 6);  // the set with the external buffer
  EXPECT_GE(Counter(r.run.summary, "pipelines rewritten"), 1u) << r.run.summary;
  EXPECT_FALSE(HasMessage(r.run.bindery, "BINDERY-bindings-twin"));
}

TEST_P(OverLimit, AnUnaddressableBufferNeverReachesARewrittenDispatch) {
  const OverLimitRun r = OverLimitWithAnExternalBuffer(GetParam(), true);
  if (!r.run.skip.empty()) GTEST_SKIP() << r.run.skip;
  // Beyond the driver's limits is the scenario (lavapipe: 32 per stage); where 33 storage
  // buffers are within them (NVIDIA) a native twin exists and runs the dispatch instead.
  if (r.per_stage_limit > 33) {
    GTEST_SKIP() << "33 storage buffers are within this driver's per-stage limit (" << r.per_stage_limit << ")";
  }
  EXPECT_EQ(r.run.validation, "");
  // The set with the external buffer has no pipeline that can run it: refused where the
  // application can be told, at vkEndCommandBuffer (nothing was submitted).
  EXPECT_EQ(r.end, VK_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_TRUE(HasMessage(r.run.bindery, "BINDERY-bindings-twin")) << "no twin error logged";
  EXPECT_EQ(Word(r.run, 33, 0), 0u);
  EXPECT_EQ(Word(r.run, 34, 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, OverLimit, testing::Values("auto", "force"),
                         [](const testing::TestParamInfo<const char*>& p) { return std::string(p.param); });

}  // namespace
}  // namespace bindery::test
