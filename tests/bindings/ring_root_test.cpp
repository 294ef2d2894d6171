// The reserved-set ring (docs/indirect-bindings.md, "The root"). The application's push-constant range fills all
// of maxPushConstantsSize, so the root of its converted sets (set 0: two storage buffers;
// set 1: a dynamic storage buffer, whose offset travels in the root) cannot go after it:
// the pipeline must still be rewritten, its shader reading the root from a reserved set
// bound with a dynamic offset into the command buffer's ring. Two dispatches with
// different sets, dynamic offsets and push constants in one command buffer each see their
// own root (a slot is never rewritten once a dispatch may read it). Forced vs off:
// byte-identical, validation with sync validation silent.
//
// Second case: a pipeline using only set 0 of that layout, whose second dispatch finds set
// 0 bound through a smaller layout (set 0 only, the same push-constant range: compatible
// for set 0, so valid for the application) — whose own reserved set sits at index 1. The
// draw must put the pipeline's reserved set (index 2) back, with the new set 0's root.
// (Lavapipe maps both reserved sets to the same storage-buffer slot and validation 1.3.239
// does not flag the disturbed set, so there this checks the re-bind's result and its
// validity; a driver that honours the disturbance reads a stale root without it.)
#include <gtest/gtest.h>

#include <cstring>

#include "integration/test_env.h"
#include "ring_root_comp.h"
#include "ring_root_set0_comp.h"
#include "rr_push_comp.h"
#include "rr_push_refused_comp.h"
#include "rr_set0_comp.h"
#include "rr_sets01_comp.h"
#include "rr_two_sets_refused_comp.h"
#include "support/scoped_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;

struct Output : ModeRunResult {
  uint32_t push_bytes = 0;
  std::vector<uint32_t> out_a, out_b;
};

Output RunInMode(const char* mode, bool through_smaller_layout) {
  return RunWithBindings<Output>(mode, HarnessOptions{}, [&](VkHarness& h, Output& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    o.push_bytes = props.limits.maxPushConstantsSize;
    const uint32_t dyn_align = static_cast<uint32_t>(std::max<VkDeviceSize>(4, props.limits.minStorageBufferOffsetAlignment));
    const uint32_t dyn_second = ((kWords * 4 + dyn_align - 1) / dyn_align) * dyn_align;  // the second dynamic offset

    HostBuffer in_a = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer in_b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_a = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dyn = h.CreateHostBuffer(dyn_second + kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer ubo = h.CreateHostBuffer(16, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) {
      static_cast<uint32_t*>(in_a.mapped)[i] = i + 3;
      static_cast<uint32_t*>(in_b.mapped)[i] = 9000 + 11 * i;
      static_cast<uint32_t*>(dyn.mapped)[i] = 1000000 + i;
      static_cast<uint32_t*>(dyn.mapped)[dyn_second / 4 + i] = 2000000 + 5 * i;
    }
    std::memset(out_a.mapped, 0, kWords * 4);
    std::memset(out_b.mapped, 0, kWords * 4);

    ObjectBag bag(d);
    const std::vector<VkDescriptorSetLayout> set_layouts = {
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}})),
        // Set 1 also holds a native dynamic uniform buffer (unused by the shaders): the bind
        // splits its dynamic offsets between the root and the native bind.
        bag.Keep(CreateSetLayout(
            d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                {1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}))};
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, set_layouts, o.push_bytes));  // all of it
    // Compatible with `layout` for set 0.
    const VkPipelineLayout smaller = bag.Keep(CreatePipelineLayout(d, {set_layouts[0]}, o.push_bytes));
    const VkPipeline pipeline = bag.Keep(
        through_smaller_layout ? CreateComputePipeline(d, layout, ring_root_set0_comp, sizeof(ring_root_set0_comp))
                               : CreateComputePipeline(d, layout, ring_root_comp, sizeof(ring_root_comp)));
    if (pipeline == VK_NULL_HANDLE) o.error = "pipeline creation failed";

    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 3, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4},
                                                                       {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1},
                                                                       {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1}}));
    VkDescriptorSetLayout alloc_layouts[3] = {set_layouts[0], set_layouts[0], set_layouts[1]};
    const VkDescriptorSetAllocateInfo dsai = SetAllocateInfo(pool, 3, alloc_layouts);
    VkDescriptorSet sets[3] = {};
    vkAllocateDescriptorSets(d, &dsai, sets);
    const VkDescriptorBufferInfo ubo_info{ubo.buffer, 0, 16};
    const VkDescriptorBufferInfo infos[5] = {{in_a.buffer, 0, VK_WHOLE_SIZE}, {out_a.buffer, 0, VK_WHOLE_SIZE},
                                             {in_b.buffer, 0, VK_WHOLE_SIZE}, {out_b.buffer, 0, kWords * 4},
                                             {dyn.buffer, 0, kWords * 4}};
    VkWriteDescriptorSet w[4] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET},
                                 {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
    for (uint32_t i = 0; i < 2; ++i) {
      w[i].dstSet = sets[i];
      w[i].descriptorCount = 2;
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w[i].pBufferInfo = &infos[2 * i];
    }
    w[2].dstSet = sets[2];
    w[2].descriptorCount = 1;
    w[2].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    w[2].pBufferInfo = &infos[4];
    w[3] = w[2];
    w[3].dstBinding = 1;
    w[3].descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    w[3].pBufferInfo = &ubo_info;
    vkUpdateDescriptorSets(d, 4, w, 0, nullptr);

    if (o.error.empty()) {
      std::vector<uint32_t> push(o.push_bytes / 4);
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      for (uint32_t i = 0; i < push.size(); ++i) push[i] = i % 32 + 2;
      vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, o.push_bytes, push.data());
      const uint32_t first[2] = {0, 0};
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &sets[0], 0, nullptr);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1, 1, &sets[2], 2, first);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_a = in_a * (i % 32 + 2) + dyn[i]
      // New sets 0 and 1 in one bind (set 1 at the second dynamic offset), new constants.
      for (uint32_t i = 0; i < push.size(); ++i) push[i] = 3 * (i % 32) + 1;
      vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, o.push_bytes, push.data());
      if (through_smaller_layout) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, smaller, 0, 1, &sets[1], 0, nullptr);
      } else {
        const VkDescriptorSet both[2] = {sets[1], sets[2]};
        const uint32_t offsets[2] = {dyn_second, 0};
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, both, 2, offsets);
      }
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_b = in_b * (3 (i % 32) + 1) + dyn[second + i] (or + 7)
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* a = static_cast<const uint32_t*>(out_a.mapped);
      const uint32_t* b = static_cast<const uint32_t*>(out_b.mapped);
      o.out_a.assign(a, a + kWords);
      o.out_b.assign(b, b + kWords);
    }
    bag.DestroyAll();
    for (HostBuffer* x : {&in_a, &in_b, &out_a, &out_b, &dyn, &ubo}) h.Destroy(*x);
  });
}

TEST(BindingsRingRoot, FullPushConstantsPutTheRootInTheReservedSet) {
  const Output native = RunInMode("off", false);
  const Output forced = RunInMode("force", false);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out_a.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(native.out_a[i], (i + 3) * (i % 32 + 2) + 1000000 + i) << i;
    ASSERT_EQ(native.out_b[i], (9000 + 11 * i) * (3 * (i % 32) + 1) + 2000000 + 5 * i) << i;
  }
  EXPECT_EQ(native.out_a, forced.out_a);
  EXPECT_EQ(native.out_b, forced.out_b);
  // Rewritten (not fallen back), with the root in the ring.
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 0u) << forced.summary;
  EXPECT_GT(SummaryCounter(forced.summary, "root ring bytes"), 0u) << forced.summary;
  EXPECT_NE(SummaryCounter(forced.summary, "root ring bytes"), ~0ull) << forced.summary;
}

TEST(BindingsRingRoot, ABindThroughASmallerCompatibleLayoutReachesThePipeline) {
  const Output native = RunInMode("off", true);
  const Output forced = RunInMode("force", true);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out_a.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(native.out_a[i], (i + 3) * (i % 32 + 2) + 7) << i;
    ASSERT_EQ(native.out_b[i], (9000 + 11 * i) * (3 * (i % 32) + 1) + 7) << i;
  }
  EXPECT_EQ(native.out_a, forced.out_a);
  EXPECT_EQ(native.out_b, forced.out_b);
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
}

// ---- The ring root beside pipelines that run natively, and beside roots in push constants ----
//
// Each program below is valid natively (validation silent) and must give the same bytes
// with indirect bindings forced. Regions of kRegion words of one output buffer, one per
// dispatch (push constant word 0 says where a dispatch writes), so a lost dispatch leaves
// its region as it was.

constexpr uint32_t kRegion = 64;

bool DeviceHasPushDescriptors() {
  HarnessOptions probe;
  probe.bindery = false;
  probe.validation = false;
  VkHarness h(probe);
  if (!h.ok()) return false;
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(h.physical_device(), nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateDeviceExtensionProperties(h.physical_device(), nullptr, &n, ext.data());
  for (const VkExtensionProperties& e : ext) {
    if (std::strcmp(e.extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0) return true;
  }
  return false;
}

struct Regions : ModeRunResult {
  std::vector<uint32_t> out;
  std::vector<Message> bindery;
};

// Input buffers of kRegion words: word i of input k is (k + 1) * 1000 + (k + 2) * i.
HostBuffer Input(VkHarness& h, uint32_t k) {
  HostBuffer b = h.CreateHostBuffer(kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i < kRegion; ++i) static_cast<uint32_t*>(b.mapped)[i] = (k + 1) * 1000 + (k + 2) * i;
  return b;
}
uint32_t InputWord(uint32_t k, uint32_t i) { return (k + 1) * 1000 + (k + 2) * i; }

void ShaderBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
}

void PushWords(VkCommandBuffer cb, VkPipelineLayout layout, uint32_t bytes, uint32_t w0, uint32_t w1) {
  std::vector<uint32_t> words(bytes / 4, 0);
  words[0] = w0;
  if (words.size() > 1) words[1] = w1;
  vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, words.data());
}

VkWriteDescriptorSet PushWrite(uint32_t binding, const VkDescriptorBufferInfo* infos, uint32_t count) {
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstBinding = binding;
  w.descriptorCount = count;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = infos;
  return w;
}

// (a) A layout whose root lives in the ring (its push constants fill the device's space):
// set 0 an ordinary set, set 1 a push-descriptor set. A pipeline the rewrite refuses
// (it runs natively on full sets) dispatches, then a new push to set 1 (delivered into
// the ring: the reserved set is bound again) and a second dispatch: that dispatch must
// still find its full set 0 where the layer's reserved-set bind went, and read the new push.
// `with_template`: the pushes go through a push-descriptor update template.
Regions RunPushAfterNativeDispatch(const char* mode, bool with_template) {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<Regions>(mode, options, [&](VkHarness& h, Regions& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    const uint32_t push_bytes = props.limits.maxPushConstantsSize;  // all of it: the root goes to the ring
    HostBuffer in[4] = {Input(h, 0), Input(h, 1), Input(h, 2), Input(h, 3)};
    HostBuffer out = h.CreateHostBuffer(2 * kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 2 * kRegion * 4);
    ObjectBag bag(d);
    const VkDescriptorSetLayout plain =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkDescriptorSetLayout pushed = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                        VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {plain, pushed}, push_bytes));
    const VkPipeline refused =
        bag.Keep(CreateComputePipeline(d, layout, rr_two_sets_refused_comp, sizeof(rr_two_sets_refused_comp)));
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}}));
    const VkDescriptorSet set = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, plain) : VK_NULL_HANDLE;
    VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
    if (with_template) {
      const VkDescriptorUpdateTemplateEntry entry{0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0,
                                                  sizeof(VkDescriptorBufferInfo)};
      const VkDescriptorUpdateTemplateCreateInfo tci =
          PushTemplateInfo(&entry, 1, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1);
      vkCreateDescriptorUpdateTemplate(d, &tci, nullptr, &update_template);
    }
    if (refused == VK_NULL_HANDLE || set == VK_NULL_HANDLE || (with_template && update_template == VK_NULL_HANDLE)) {
      o.error = "object creation failed";
    }
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    auto push_template_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
        vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplateKHR"));
    if (o.error.empty()) {
      const VkDescriptorBufferInfo inputs[2] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE}};
      const VkDescriptorBufferInfo output{out.buffer, 0, VK_WHOLE_SIZE};
      const VkWriteDescriptorSet writes[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, inputs, 2),
                                              BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &output)};
      vkUpdateDescriptorSets(d, 2, writes, 0, nullptr);
      auto push_bias = [&](VkCommandBuffer cb, const HostBuffer& bias) {
        const VkDescriptorBufferInfo info{bias.buffer, 0, VK_WHOLE_SIZE};
        if (with_template) {
          push_template_cmd(cb, update_template, layout, 1, &info);
        } else {
          const VkWriteDescriptorSet w = PushWrite(0, &info, 1);
          push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1, 1, &w);
        }
      };
      VkCommandBuffer cb = h.BeginCommands();
      PushWords(cb, layout, push_bytes, 0, 0);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
      push_bias(cb, in[2]);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
      vkCmdDispatch(cb, 1, 1, 1);  // region 0: in0 + 2 in1 + in2
      ShaderBarrier(cb);
      push_bias(cb, in[3]);
      PushWords(cb, layout, push_bytes, kRegion, 0);
      vkCmdDispatch(cb, 1, 1, 1);  // region 1: in0 + 2 in1 + in3
      ShaderBarrier(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 2 * kRegion);
    }
    if (update_template != VK_NULL_HANDLE) vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
    bag.DestroyAll();
    for (HostBuffer* b : {&in[0], &in[1], &in[2], &in[3], &out}) h.Destroy(*b);
  });
}

class BindingsRingRootBesideNative : public testing::TestWithParam<bool> {};

TEST_P(BindingsRingRootBesideNative, APushAfterANativeDispatchLeavesItsFullSetsBound) {
  if (!DeviceHasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const Regions native = RunPushAfterNativeDispatch("off", GetParam());
  const Regions forced = RunPushAfterNativeDispatch("force", GetParam());
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out.size(), 2 * kRegion);
  for (uint32_t i = 0; i < kRegion; ++i) {
    ASSERT_EQ(native.out[i], InputWord(0, i) + 2 * InputWord(1, i) + InputWord(2, i)) << i;
    ASSERT_EQ(native.out[kRegion + i], InputWord(0, i) + 2 * InputWord(1, i) + InputWord(3, i)) << i;
  }
  EXPECT_EQ(native.out, forced.out);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  EXPECT_GT(SummaryCounter(forced.summary, "root ring bytes"), 0u) << forced.summary;
}

INSTANTIATE_TEST_SUITE_P(Push, BindingsRingRootBesideNative, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "Template" : "Writes");
                         });

// (b) A push-descriptor set 0 whose root lives in the ring: a rewritten pipeline
// dispatches (reading the root through the reserved set), a pipeline of the same layout
// that the rewrite refuses dispatches (its full-layout push goes where the reserved set
// was), and the rewritten pipeline dispatches again: it must find its reserved set back.
Regions RunRewrittenAfterNativePush(const char* mode) {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<Regions>(mode, options, [&](VkHarness& h, Regions& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    const uint32_t push_bytes = props.limits.maxPushConstantsSize;  // all of it: the root goes to the ring
    HostBuffer in[2] = {Input(h, 0), Input(h, 1)};
    HostBuffer out = h.CreateHostBuffer(3 * kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 3 * kRegion * 4);
    ObjectBag bag(d);
    const VkDescriptorSetLayout pushed = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                            {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                        VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {pushed}, push_bytes));
    const VkPipeline rewritten = bag.Keep(CreateComputePipeline(d, layout, rr_push_comp, sizeof(rr_push_comp)));
    const VkPipeline refused =
        bag.Keep(CreateComputePipeline(d, layout, rr_push_refused_comp, sizeof(rr_push_refused_comp)));
    if (rewritten == VK_NULL_HANDLE || refused == VK_NULL_HANDLE) o.error = "pipeline creation failed";
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    if (o.error.empty()) {
      const VkDescriptorBufferInfo inputs[2] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE}};
      const VkDescriptorBufferInfo output{out.buffer, 0, VK_WHOLE_SIZE};
      const VkWriteDescriptorSet writes[2] = {PushWrite(0, inputs, 2), PushWrite(1, &output, 1)};
      VkCommandBuffer cb = h.BeginCommands();
      PushWords(cb, layout, push_bytes, 0, 3);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, writes);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, rewritten);
      vkCmdDispatch(cb, 1, 1, 1);  // region 0: in0 + 3 in1
      ShaderBarrier(cb);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
      PushWords(cb, layout, push_bytes, kRegion, 5);
      vkCmdDispatch(cb, 1, 1, 1);  // region 1: in0 + 5 in1
      ShaderBarrier(cb);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, rewritten);
      PushWords(cb, layout, push_bytes, 2 * kRegion, 7);
      vkCmdDispatch(cb, 1, 1, 1);  // region 2: in0 + 7 in1
      ShaderBarrier(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 3 * kRegion);
    }
    bag.DestroyAll();
    for (HostBuffer* b : {&in[0], &in[1], &out}) h.Destroy(*b);
  });
}

TEST(BindingsRingRootBesideNative, ARewrittenPipelineAfterANativeOneGetsItsReservedSetBack) {
  if (!DeviceHasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const Regions native = RunRewrittenAfterNativePush("off");
  const Regions forced = RunRewrittenAfterNativePush("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out.size(), 3 * kRegion);
  for (uint32_t i = 0; i < kRegion; ++i) {
    ASSERT_EQ(native.out[i], InputWord(0, i) + 3 * InputWord(1, i)) << i;
    ASSERT_EQ(native.out[kRegion + i], InputWord(0, i) + 5 * InputWord(1, i)) << i;
    ASSERT_EQ(native.out[2 * kRegion + i], InputWord(0, i) + 7 * InputWord(1, i)) << i;
  }
  EXPECT_EQ(native.out, forced.out);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
}

// (b2) Pushes accumulate: a whole push to set 0 (inputs 0 and 1, the output), then a
// partial push of binding 0 only (inputs 2 and 3), then a pipeline of the layout that the
// rewrite refuses. At its dispatch the layer makes the pushes again natively with the full
// layout, oldest first (the partial push's kept copy is chained behind the whole one's,
// PushCopy::previous): the output the partial push did not write must still be the whole
// push's. Dropping the chain leaves binding 1 unwritten for the native pipeline.
Regions RunPartialPushBeforeNativePipeline(const char* mode) {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<Regions>(mode, options, [&](VkHarness& h, Regions& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    const uint32_t push_bytes = props.limits.maxPushConstantsSize;  // as the refused shader reads
    HostBuffer in[4] = {Input(h, 0), Input(h, 1), Input(h, 2), Input(h, 3)};
    HostBuffer out = h.CreateHostBuffer(2 * kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 2 * kRegion * 4);
    ObjectBag bag(d);
    const VkDescriptorSetLayout pushed = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                            {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                        VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {pushed}, push_bytes));
    const VkPipeline refused =
        bag.Keep(CreateComputePipeline(d, layout, rr_push_refused_comp, sizeof(rr_push_refused_comp)));
    if (refused == VK_NULL_HANDLE) o.error = "pipeline creation failed";
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    if (o.error.empty()) {
      const VkDescriptorBufferInfo first[2] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE}};
      const VkDescriptorBufferInfo second[2] = {{in[2].buffer, 0, VK_WHOLE_SIZE}, {in[3].buffer, 0, VK_WHOLE_SIZE}};
      const VkDescriptorBufferInfo output{out.buffer, 0, VK_WHOLE_SIZE};
      const VkWriteDescriptorSet whole[2] = {PushWrite(0, first, 2), PushWrite(1, &output, 1)};
      const VkWriteDescriptorSet partial = PushWrite(0, second, 2);
      VkCommandBuffer cb = h.BeginCommands();
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, whole);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &partial);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
      PushWords(cb, layout, push_bytes, kRegion, 3);
      vkCmdDispatch(cb, 1, 1, 1);  // region 1: in2 + 3 in3
      ShaderBarrier(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 2 * kRegion);
    }
    bag.DestroyAll();
    for (HostBuffer* b : {&in[0], &in[1], &in[2], &in[3], &out}) h.Destroy(*b);
  });
}

TEST(BindingsRingRootBesideNative, APartialPushReachesANativePipelineWithWhatTheEarlierPushWrote) {
  if (!DeviceHasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const Regions native = RunPartialPushBeforeNativePipeline("off");
  const Regions forced = RunPartialPushBeforeNativePipeline("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out.size(), 2 * kRegion);
  for (uint32_t i = 0; i < kRegion; ++i) {
    ASSERT_EQ(native.out[i], 0u) << i;
    ASSERT_EQ(native.out[kRegion + i], InputWord(2, i) + 3 * InputWord(3, i)) << i;
  }
  EXPECT_EQ(native.out, forced.out);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
}

// (c) Two layouts compatible for set 0 (the same push-constant range, the same set 0
// layout): B has set 0 only and its root fits after the application's push constants; A
// has one more set, and its root does not fit, so it lives in the ring. Sets bound through
// A reach a pipeline of B (its root in push constants), and a set bound through B reaches
// a pipeline of A (its root in the ring) beside a set still bound through A. The
// application's range is chosen so that exactly this happens: 120 of lavapipe's 128 bytes,
// or with the split root (a compute copy after the graphics one) 104.
// `ring_pipeline` false: no pipeline of A is ever made (only the first dispatch runs): the
// sets' roots still went to the ring (the API fuzzer's seed4002716 under `split`: a crash
// until the draw-time step ran as soon as a layout with a ring root existed).
Regions RunCompatibleLayoutsAcrossRootPlaces(const char* mode, bool split, bool ring_pipeline = true) {
  ScopedEnv split_env("BINDERY_BINDINGS_ROOT_SPLIT", split ? "on" : "off");
  return RunWithBindings<Regions>(mode, HarnessOptions{}, [&](VkHarness& h, Regions& o) {
    VkDevice d = h.device();
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(h.physical_device(), &props);
    // One 8-byte address fits after the application's bytes (in the compute copy's half
    // where split), two do not.
    const uint32_t max = props.limits.maxPushConstantsSize;
    const uint32_t push_bytes = split ? max - 24 : max - 8;
    HostBuffer in[5] = {Input(h, 0), Input(h, 1), Input(h, 2), Input(h, 3), Input(h, 4)};
    HostBuffer out = h.CreateHostBuffer(2 * kRegion * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 2 * kRegion * 4);
    ObjectBag bag(d);
    const VkDescriptorSetLayout set0 =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkDescriptorSetLayout set1 =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkPipelineLayout a = bag.Keep(CreatePipelineLayout(d, {set0, set1}, push_bytes));
    const VkPipelineLayout b = bag.Keep(CreatePipelineLayout(d, {set0}, push_bytes));
    const VkPipeline pipeline_a =
        ring_pipeline ? bag.Keep(CreateComputePipeline(d, a, rr_sets01_comp, sizeof(rr_sets01_comp))) : VK_NULL_HANDLE;
    const VkPipeline pipeline_b = bag.Keep(CreateComputePipeline(d, b, rr_set0_comp, sizeof(rr_set0_comp)));
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 3, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 7}}));
    VkDescriptorSet sets[3] = {};
    if (pool != VK_NULL_HANDLE) {
      sets[0] = AllocateSet(d, pool, set0);
      sets[1] = AllocateSet(d, pool, set0);
      sets[2] = AllocateSet(d, pool, set1);
    }
    if ((ring_pipeline && pipeline_a == VK_NULL_HANDLE) || pipeline_b == VK_NULL_HANDLE || sets[2] == VK_NULL_HANDLE) {
      o.error = "object creation failed";
    }
    if (o.error.empty()) {
      const VkDescriptorBufferInfo infos[6] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE},
                                               {in[2].buffer, 0, VK_WHOLE_SIZE}, {in[3].buffer, 0, VK_WHOLE_SIZE},
                                               {out.buffer, 0, VK_WHOLE_SIZE},   {in[4].buffer, 0, VK_WHOLE_SIZE}};
      const VkWriteDescriptorSet writes[5] = {BufferWrite(sets[0], 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[0], 2),
                                              BufferWrite(sets[0], 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[4]),
                                              BufferWrite(sets[1], 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[2], 2),
                                              BufferWrite(sets[1], 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[4]),
                                              BufferWrite(sets[2], 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[5])};
      vkUpdateDescriptorSets(d, 5, writes, 0, nullptr);
      VkCommandBuffer cb = h.BeginCommands();
      PushWords(cb, a, push_bytes, 0, 3);
      const VkDescriptorSet both[2] = {sets[0], sets[2]};
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, a, 0, 2, both, 0, nullptr);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_b);
      vkCmdDispatch(cb, 1, 1, 1);  // region 0: in0 + 3 in1 + 7 (set 0 bound through A)
      ShaderBarrier(cb);
      if (ring_pipeline) {
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, b, 0, 1, &sets[1], 0, nullptr);
        PushWords(cb, b, push_bytes, kRegion, 5);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_a);
        vkCmdDispatch(cb, 1, 1, 1);  // region 1: in2 + 5 in3 + in4 (set 0 through B, set 1 through A)
        ShaderBarrier(cb);
      }
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 2 * kRegion);
    }
    bag.DestroyAll();
    for (HostBuffer* x : {&in[0], &in[1], &in[2], &in[3], &in[4], &out}) h.Destroy(*x);
    o.bindery = h.BinderyMessages();
  });
}

class BindingsRingRootCompatible : public testing::TestWithParam<bool> {};

TEST_P(BindingsRingRootCompatible, SetsReachPipelinesWhoseCompatibleLayoutsKeepTheRootElsewhere) {
  const Regions native = RunCompatibleLayoutsAcrossRootPlaces("off", GetParam());
  const Regions forced = RunCompatibleLayoutsAcrossRootPlaces("force", GetParam());
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out.size(), 2 * kRegion);
  for (uint32_t i = 0; i < kRegion; ++i) {
    ASSERT_EQ(native.out[i], InputWord(0, i) + 3 * InputWord(1, i) + 7) << i;
    ASSERT_EQ(native.out[kRegion + i], InputWord(2, i) + 5 * InputWord(3, i) + InputWord(4, i)) << i;
  }
  EXPECT_EQ(native.out, forced.out);
  // Both rewritten, one with its root in the ring.
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 2u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 0u) << forced.summary;
  EXPECT_GT(SummaryCounter(forced.summary, "root ring bytes"), 0u) << forced.summary;
}

TEST_P(BindingsRingRootCompatible, SetsBoundInTheRingReachAPipelineBeforeAnyPipelineOfTheirLayoutExists) {
  const Regions native = RunCompatibleLayoutsAcrossRootPlaces("off", GetParam(), false);
  const Regions forced = RunCompatibleLayoutsAcrossRootPlaces("force", GetParam(), false);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out.size(), 2 * kRegion);
  for (uint32_t i = 0; i < kRegion; ++i) ASSERT_EQ(native.out[i], InputWord(0, i) + 3 * InputWord(1, i) + 7) << i;
  EXPECT_EQ(native.out, forced.out);
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
  EXPECT_GT(SummaryCounter(forced.summary, "root ring bytes"), 0u) << forced.summary;
}

INSTANTIATE_TEST_SUITE_P(RootSplit, BindingsRingRootCompatible, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "Split" : "Whole");
                         });

}  // namespace
}  // namespace bindery::test
