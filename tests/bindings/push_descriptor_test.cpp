// Push descriptors on a converted layout. Set 0 is a push-descriptor
// set mixing converted storage buffers with a native uniform buffer; set 1 an ordinary
// set. Pushes with vkCmdPushDescriptorSetKHR (whole and partial: a push keeps what earlier
// pushes wrote and it does not) and with a push-descriptor template, forced vs off:
// byte-identical, validation with sync validation silent, and the summary must show the
// pushes converted (a push of native descriptors only needs no new block). The second part counts memory: many rounds of thousands of pushes in
// one command buffer, re-begun each round, must keep to the ring's first block (the
// chunks are recycled at reset, not allocated per push).
#include <gtest/gtest.h>

#include <cstring>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "fallback_partner_comp.h"
#include "fallback_refused_comp.h"
#include "fallback_refused_set1_comp.h"
#include "pushed_ubo_set1_comp.h"
#include "ubo_to_texel_set0_comp.h"
#include "push_descriptors_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr uint32_t kRounds = 5;
constexpr uint32_t kPushesPerRound = 8000;  // 32 bytes of records each: 4 chunks a round

bool HasPushDescriptors() {
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

struct Output : ModeRunResult {
  std::vector<uint32_t> out_a, out_b, out_ring;
};

struct Params {
  uint32_t mul, base;
};

// A push-descriptor update template over `count` entries for set 0 of `layout` (compute).
VkDescriptorUpdateTemplate CreatePushTemplate(VkDevice d, const VkDescriptorUpdateTemplateEntry* entries,
                                              uint32_t count, VkPipelineLayout layout) {
  const VkDescriptorUpdateTemplateCreateInfo tci =
      PushTemplateInfo(entries, count, VK_PIPELINE_BIND_POINT_COMPUTE, layout);
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
  vkCreateDescriptorUpdateTemplate(d, &tci, nullptr, &update_template);
  return update_template;
}

Output RunInMode(const char* mode) {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<Output>(mode, options, [&](VkHarness& h, Output& o) {
    VkDevice d = h.device();
    HostBuffer in0 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer in1 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer bias = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_a = h.CreateHostBuffer(3 * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_b = h.CreateHostBuffer(3 * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer out_ring = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer params[3];
    const Params values[3] = {{3, 0}, {5, kWords}, {7, 2 * kWords}};
    for (uint32_t i = 0; i < 3; ++i) {
      params[i] = h.CreateHostBuffer(sizeof(Params), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
      std::memcpy(params[i].mapped, &values[i], sizeof(Params));
    }
    for (uint32_t i = 0; i < kWords; ++i) {
      static_cast<uint32_t*>(in0.mapped)[i] = i + 1;
      static_cast<uint32_t*>(in1.mapped)[i] = 5000 + 7 * i;
      static_cast<uint32_t*>(bias.mapped)[i] = 100000 * (i % 3);
    }
    for (HostBuffer* b : {&out_a, &out_b}) std::memset(b->mapped, 0, 3 * kWords * 4);
    std::memset(out_ring.mapped, 0, kWords * 4);

    ObjectBag bag(d);
    const std::vector<VkDescriptorSetLayoutBinding> pushed = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    const VkDescriptorSetLayout set_layouts[2] = {
        bag.Keep(CreateSetLayout(d, pushed, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR)),
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}))};
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layouts[0], set_layouts[1]}));
    const VkPipeline pipeline =
        bag.Keep(CreateComputePipeline(d, layout, push_descriptors_comp, sizeof(push_descriptors_comp)));
    if (pipeline == VK_NULL_HANDLE) o.error = "pipeline creation failed";
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1}}));
    const VkDescriptorSet set1 = AllocateSet(d, pool, set_layouts[1]);
    const VkDescriptorBufferInfo bias_info{bias.buffer, 0, VK_WHOLE_SIZE};
    const VkWriteDescriptorSet w = BufferWrite(set1, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bias_info);
    vkUpdateDescriptorSets(d, 1, &w, 0, nullptr);

    // A push-descriptor template writing all three bindings from one struct.
    struct TemplateData {
      VkDescriptorBufferInfo in, out, params;
    };
    VkDescriptorUpdateTemplateEntry entries[3];
    for (uint32_t i = 0; i < 3; ++i) {
      entries[i] = {i, 0, 1, pushed[i].descriptorType, i * sizeof(VkDescriptorBufferInfo), sizeof(VkDescriptorBufferInfo)};
    }
    VkDescriptorUpdateTemplate update_template = CreatePushTemplate(d, entries, 3, layout);
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    auto push_template_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
        vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplateKHR"));
    if (push_cmd == nullptr || push_template_cmd == nullptr) o.error = "no push-descriptor entry points";

    auto write = [](uint32_t binding, const VkDescriptorBufferInfo* info) {
      VkWriteDescriptorSet x{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      x.dstBinding = binding;
      x.descriptorCount = 1;
      x.descriptorType = binding == 2 ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      x.pBufferInfo = info;
      return x;
    };
    auto compute_barrier = [](VkCommandBuffer cb, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
      RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, dst_stage, dst_access);
    };
    const VkDescriptorBufferInfo in0_info{in0.buffer, 0, VK_WHOLE_SIZE}, in1_info{in1.buffer, 0, kWords * 4};
    const VkDescriptorBufferInfo a_info{out_a.buffer, 0, VK_WHOLE_SIZE}, b_info{out_b.buffer, 0, VK_WHOLE_SIZE};
    const VkDescriptorBufferInfo ring_info{out_ring.buffer, 0, VK_WHOLE_SIZE};
    VkDescriptorBufferInfo p_info[3];
    for (uint32_t i = 0; i < 3; ++i) p_info[i] = {params[i].buffer, 0, VK_WHOLE_SIZE};

    if (o.error.empty()) {
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1, 1, &set1, 0, nullptr);
      const VkWriteDescriptorSet all[3] = {write(0, &in0_info), write(1, &a_info), write(2, &p_info[0])};
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 3, all);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_a[0, N) = in0 * 3 + bias
      compute_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      const VkWriteDescriptorSet native_only = write(2, &p_info[1]);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &native_only);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_a[N, 2N) = in0 * 5 + bias (bindings 0, 1 kept)
      compute_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      const VkWriteDescriptorSet converted_only = write(1, &b_info);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &converted_only);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_b[N, 2N) = in0 * 5 + bias (bindings 0, 2 kept)
      compute_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      const TemplateData data{in1_info, a_info, p_info[2]};
      push_template_cmd(cb, update_template, layout, 0, &data);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_a[2N, 3N) = in1 * 7 + bias
      compute_barrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* a = static_cast<const uint32_t*>(out_a.mapped);
      const uint32_t* b = static_cast<const uint32_t*>(out_b.mapped);
      o.out_a.assign(a, a + 3 * kWords);
      o.out_b.assign(b, b + 3 * kWords);
    }

    // Memory: one command buffer re-begun kRounds times, kPushesPerRound pushes a round.
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpi.queueFamilyIndex = h.queue_family();
    VkCommandPool command_pool = VK_NULL_HANDLE;
    vkCreateCommandPool(d, &cpi, nullptr, &command_pool);
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = command_pool;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    vkAllocateCommandBuffers(d, &cbai, &cb);
    for (uint32_t round = 0; round < kRounds && o.error.empty(); ++round) {
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      vkBeginCommandBuffer(cb, &begin);  // implicitly resets: the ring's chunks go back
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1, 1, &set1, 0, nullptr);
      for (uint32_t i = 0; i < kPushesPerRound; ++i) {
        const VkWriteDescriptorSet pair[2] = {write(0, i % 2 ? &in1_info : &in0_info), write(2, &p_info[0])};
        push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, i == 0 ? 2 : 1, pair);
      }
      const VkWriteDescriptorSet out = write(1, &ring_info);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &out);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out_ring = in1 * 3 + bias (the last push of binding 0: in1)
      compute_barrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      if (vkEndCommandBuffer(cb) != VK_SUCCESS) {
        o.error = "vkEndCommandBuffer failed in round " + std::to_string(round);
        break;
      }
      VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &cb;
      vkQueueSubmit(h.queue(), 1, &submit, VK_NULL_HANDLE);
      vkQueueWaitIdle(h.queue());
    }
    const uint32_t* r = static_cast<const uint32_t*>(out_ring.mapped);
    o.out_ring.assign(r, r + kWords);

    vkDestroyCommandPool(d, command_pool, nullptr);
    vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
    bag.DestroyAll();
    for (HostBuffer* x : {&in0, &in1, &bias, &out_a, &out_b, &out_ring, &params[0], &params[1], &params[2]}) h.Destroy(*x);
  });
}

TEST(BindingsPushDescriptors, ConvertedPushesMatchNativeAndRecycleTheRing) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const Output native = RunInMode("off");
  const Output forced = RunInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  ASSERT_EQ(native.out_a.size(), 3 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t in0 = i + 1, in1 = 5000 + 7 * i, bias = 100000 * (i % 3);
    ASSERT_EQ(native.out_a[i], in0 * 3 + bias) << i;
    ASSERT_EQ(native.out_a[kWords + i], in0 * 5 + bias) << i;
    ASSERT_EQ(native.out_b[kWords + i], in0 * 5 + bias) << i;
    ASSERT_EQ(native.out_a[2 * kWords + i], in1 * 7 + bias) << i;
    ASSERT_EQ(native.out_ring[i], in1 * 3 + bias) << i;
  }
  EXPECT_EQ(native.out_a, forced.out_a);
  EXPECT_EQ(native.out_b, forced.out_b);
  EXPECT_EQ(native.out_ring, forced.out_ring);
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "push descriptor updates converted"), 3u + kRounds * (kPushesPerRound + 1))
      << forced.summary;
  // 32 bytes of records a push: each round takes 4 of a block's 16 chunks; recycled at
  // every begin, all rounds fit in the first 1 MiB block (plus the reserved set's 1 KiB
  // tail; without recycling: 2 blocks).
  EXPECT_EQ(SummaryCounter(forced.summary, "root ring bytes"), 1024u * 1024u + 1024u) << forced.summary;
}

}  // namespace
}  // namespace bindery::test

namespace bindery::test {
namespace {

// A push-descriptor layout used by a converted pipeline and by one the rewrite refuses
// (fallback_refused.comp: a descriptor array sized by a specialization constant). Pushes
// recorded while the fallback pipeline is bound must reach it (natively, with the full
// layout), raw and from a template; the converted pipeline bound again afterwards still
// sees its ring records. Forced vs off byte-identical, validation silent.
struct FallbackOutput : ModeRunResult {
  std::vector<uint32_t> out;
};

// `push_first`: each push to the refused (natively running) pipeline is recorded before
// it is bound, and a template push is recorded before a last bind of it.
FallbackOutput RunFallbackInMode(const char* mode, bool push_first = false) {
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<FallbackOutput>(mode, options, [&](VkHarness& h, FallbackOutput& o) {
    VkDevice d = h.device();
    HostBuffer in[3];
    for (uint32_t k = 0; k < 3; ++k) {
      in[k] = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
      for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(in[k].mapped)[i] = (k + 1) * 1000 + i * (k + 2);
    }
    HostBuffer out = h.CreateHostBuffer(4 * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(out.mapped, 0, 4 * kWords * 4);

    ObjectBag bag(d);
    const VkDescriptorSetLayout set_layout =
        bag.Keep(CreateSetLayout(d,
                                 {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                  {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                                 VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
    const VkPipeline converted =
        bag.Keep(CreateComputePipeline(d, layout, fallback_partner_comp, sizeof(fallback_partner_comp), {{1, kWords}}));
    const VkPipeline converted_late =
        bag.Keep(CreateComputePipeline(d, layout, fallback_partner_comp, sizeof(fallback_partner_comp),
                                       {{1, 3 * kWords}}));
    const VkPipeline refused =
        bag.Keep(CreateComputePipeline(d, layout, fallback_refused_comp, sizeof(fallback_refused_comp)));
    if (!converted || !converted_late || !refused) o.error = "pipeline creation failed";

    // The template writes binding 0 (two buffers) and binding 1 from one array.
    VkDescriptorUpdateTemplateEntry entries[2] = {
        {0, 0, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, sizeof(VkDescriptorBufferInfo)},
        {1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * sizeof(VkDescriptorBufferInfo), sizeof(VkDescriptorBufferInfo)}};
    VkDescriptorUpdateTemplate update_template = CreatePushTemplate(d, entries, 2, layout);
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    auto push_template_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
        vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplateKHR"));

    if (o.error.empty()) {
      const VkDescriptorBufferInfo first[3] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE},
                                               {out.buffer, 0, VK_WHOLE_SIZE}};
      const VkDescriptorBufferInfo second[3] = {{in[2].buffer, 0, VK_WHOLE_SIZE}, {in[0].buffer, 0, VK_WHOLE_SIZE},
                                                {out.buffer, 0, VK_WHOLE_SIZE}};
      // Pushed: no set named.
      const VkWriteDescriptorSet w[2] = {BufferWrite(VK_NULL_HANDLE, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, first, 2),
                                         BufferWrite(VK_NULL_HANDLE, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &first[2])};
      VkCommandBuffer cb = h.BeginCommands();
      auto barrier = [&] {
        RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT);
      };
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, converted);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, w);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[N, 2N) = 3 in0 + in1
      barrier();
      if (push_first) {
        push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, w);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
      } else {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
        push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 2, w);
      }
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[0, N) = in0 + 2 in1
      barrier();
      push_template_cmd(cb, update_template, layout, 0, second);
      if (push_first) {
        // Its push is recorded: the application may destroy the template now, although the
        // layer replays that push for the refused pipeline below.
        vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
        update_template = VK_NULL_HANDLE;
      }
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, converted_late);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[3N, 4N) = 3 in2 + in0 (the template's push)
      barrier();
      if (push_first) {
        // The template's push, made before: the refused pipeline reads it too.
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
        vkCmdDispatch(cb, kWords / 64, 1, 1);  // out[0, N) = in2 + 2 in0
        barrier();
      }
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
      o.out.assign(p, p + 4 * kWords);
    }
    vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
    bag.DestroyAll();
    for (HostBuffer* x : {&in[0], &in[1], &in[2], &out}) h.Destroy(*x);
  });
}

TEST(BindingsPushDescriptors, AFallbackPipelineGetsThePushesMadeWhileItIsBound) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const FallbackOutput native = RunFallbackInMode("off");
  const FallbackOutput forced = RunFallbackInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "pipelines rewritten"), 2u) << forced.summary;
  EXPECT_EQ(SummaryCounter(forced.summary, "push descriptor updates converted"), 3u) << forced.summary;
  ASSERT_EQ(native.out.size(), 4 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t in0 = 1000 + 2 * i, in1 = 2000 + 3 * i, in2 = 3000 + 4 * i;
    ASSERT_EQ(native.out[i], in0 + 2 * in1) << i;
    ASSERT_EQ(native.out[kWords + i], 3 * in0 + in1) << i;
    ASSERT_EQ(native.out[3 * kWords + i], 3 * in2 + in0) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

// A push recorded before the natively running pipeline is bound reaches it: the layer
// keeps each push as made and makes it again with the full layout at the first dispatch
// (found by piglit on zink, which pushes before it binds).
TEST(BindingsPushDescriptors, AFallbackPipelineGetsThePushesMadeBeforeItIsBound) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const FallbackOutput native = RunFallbackInMode("off", true);
  const FallbackOutput forced = RunFallbackInMode("force", true);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  ASSERT_EQ(native.out.size(), 4 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t in0 = 1000 + 2 * i, in2 = 3000 + 4 * i;
    ASSERT_EQ(native.out[i], in2 + 2 * in0) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

// A push-descriptor template made with a layout that has push constants, pushed through it
// to set 0; then a pipeline the rewrite refuses, whose layout has the same push set layout
// at set 0 but no push constants (so not compatible for set 0: its shader reads only set
// 1), gets set 1 bound and dispatches. The layer made the template push again for that
// pipeline through its full layout, which the template's full twin does not match
// (validation: UNASSIGNED-CoreValidation-vkCmdPushDescriptorSetWithTemplateKHR-layout;
// the API fuzzer's seed1316). A push through a layout not compatible with the pipeline's
// for that set is not what the pipeline reads: it is not made again.
FallbackOutput RunIncompatibleTemplatePushInMode(const char* mode) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  FallbackOutput o;
  VkHarness h(options);
  if (!h.ok()) {
    o.error = h.error();
    return o;
  }
  VkDevice d = h.device();
  HostBuffer in[3];
  for (uint32_t k = 0; k < 3; ++k) {
    in[k] = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(in[k].mapped)[i] = (k + 1) * 1000 + i * (k + 2);
  }
  HostBuffer out = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::memset(out.mapped, 0, kWords * 4);

  ObjectBag bag(d);
  const VkDescriptorSetLayout pushed = bag.Keep(
      CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                      VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
  const VkDescriptorSetLayout plain =
      bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                   {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
  const VkPipelineLayout with_push_constants = bag.Keep(CreatePipelineLayout(d, {pushed}, 16));
  const VkPipelineLayout pipeline_layout = bag.Keep(CreatePipelineLayout(d, {pushed, plain}));
  const VkPipeline refused = bag.Keep(
      CreateComputePipeline(d, pipeline_layout, fallback_refused_set1_comp, sizeof(fallback_refused_set1_comp)));
  const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}}));
  const VkDescriptorSet set = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, plain) : VK_NULL_HANDLE;
  if (!refused || set == VK_NULL_HANDLE) o.error = "pipeline or set creation failed";

  VkDescriptorUpdateTemplateEntry entry = {0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, sizeof(VkDescriptorBufferInfo)};
  VkDescriptorUpdateTemplate update_template = CreatePushTemplate(d, &entry, 1, with_push_constants);
  auto push_template_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
      vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplateKHR"));

  if (o.error.empty()) {
    const VkDescriptorBufferInfo inputs[2] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE}};
    const VkDescriptorBufferInfo output = {out.buffer, 0, VK_WHOLE_SIZE};
    const VkWriteDescriptorSet writes[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, inputs, 2),
                                            BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &output)};
    vkUpdateDescriptorSets(d, 2, writes, 0, nullptr);
    const VkDescriptorBufferInfo pushed_buffer = {in[2].buffer, 0, VK_WHOLE_SIZE};
    VkCommandBuffer cb = h.BeginCommands();
    push_template_cmd(cb, update_template, with_push_constants, 0, &pushed_buffer);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 1, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, kWords / 64, 1, 1);  // out = in0 + 2 in1
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                         nullptr);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
    const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
    o.out.assign(p, p + kWords);
  }
  vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
  bag.DestroyAll();
  for (HostBuffer* x : {&in[0], &in[1], &in[2], &out}) h.Destroy(*x);
  h.DestroyDevice();
  o.validation = VkHarness::Format(h.ValidationProblems());
  o.summary = h.BinderySummary();
  return o;
}

TEST(BindingsPushDescriptors, ATemplatePushThroughAnIncompatibleLayoutIsNotMadeAgainForAFallbackPipeline) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const FallbackOutput native = RunIncompatibleTemplatePushInMode("off");
  const FallbackOutput forced = RunIncompatibleTemplatePushInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  ASSERT_EQ(native.out.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t in0 = 1000 + 2 * i, in1 = 2000 + 3 * i;
    ASSERT_EQ(native.out[i], in0 + 2 * in1) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

// A set bound for a pipeline the rewrite refuses (it runs natively: its sets go down as
// full sets), then a push to that set number through another layout that converts nothing
// (a uniform buffer pushed, a storage texel buffer for the output: passed down as they
// are), then a pipeline of that other layout. Binding it puts the converted binds back;
// the bound set was replaced by the push, yet the layer bound it again over the push (it
// kept no record of a push it passed down and did not keep), and the dispatch read the
// wrong set (the validation layer below crashed on it: the API fuzzer's seed 8599, on the
// H100 and here). Both layouts share set 0, so the push disturbs nothing else.
// `with_template`: the push through a push-descriptor template (passed down as it is too).
FallbackOutput RunPushOverFallbackSetInMode(const char* mode, bool with_template) {
  ScopedEnv ubo("BINDERY_BINDINGS_UBO", "off");
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<FallbackOutput>(mode, options, [&](VkHarness& h, FallbackOutput& o) {
    VkDevice d = h.device();
    HostBuffer in[2];
    for (uint32_t k = 0; k < 2; ++k) {
      in[k] = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
      for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(in[k].mapped)[i] = (k + 1) * 1000 + i * (k + 2);
    }
    HostBuffer uniforms[2];
    for (uint32_t k = 0; k < 2; ++k) {
      uniforms[k] = h.CreateHostBuffer(16 * 16, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
      for (uint32_t i = 0; i < 16 * 4; ++i) static_cast<uint32_t*>(uniforms[k].mapped)[i] = (k + 1) * 100 + i;
    }
    HostBuffer out[2];
    for (HostBuffer& b : out) {
      b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT);
      std::memset(b.mapped, 0, kWords * 4);
    }
    VkBufferViewCreateInfo view_info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
    view_info.buffer = out[0].buffer;
    view_info.format = VK_FORMAT_R32_UINT;
    view_info.range = VK_WHOLE_SIZE;
    VkBufferView out_view = VK_NULL_HANDLE;
    if (vkCreateBufferView(d, &view_info, nullptr, &out_view) != VK_SUCCESS) o.error = "buffer view creation failed";

    ObjectBag bag(d);
    const VkDescriptorSetLayout output_layout = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    // Storage buffers (converted) beside a uniform buffer (native): bound natively too.
    const VkDescriptorSetLayout mixed_layout =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkDescriptorSetLayout pushed_layout = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                        VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
    const VkPipelineLayout bound_layout = bag.Keep(CreatePipelineLayout(d, {output_layout, mixed_layout}));
    const VkPipelineLayout push_layout = bag.Keep(CreatePipelineLayout(d, {output_layout, pushed_layout}));
    const VkPipeline refused = bag.Keep(
        CreateComputePipeline(d, bound_layout, fallback_refused_set1_comp, sizeof(fallback_refused_set1_comp)));
    const VkPipeline reads_push =
        bag.Keep(CreateComputePipeline(d, push_layout, pushed_ubo_set1_comp, sizeof(pushed_ubo_set1_comp)));
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(
        d, 2,
        {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
         {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1}}));
    const VkDescriptorSet output_set = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, output_layout) : VK_NULL_HANDLE;
    const VkDescriptorSet mixed_set = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, mixed_layout) : VK_NULL_HANDLE;
    if (!o.error.empty() || !refused || !reads_push || output_set == VK_NULL_HANDLE || mixed_set == VK_NULL_HANDLE) {
      o.error = "pipeline or set creation failed";
    }
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    auto push_template_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
        vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplateKHR"));
    const VkDescriptorUpdateTemplateEntry entry = {0, 0, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 0,
                                                   sizeof(VkDescriptorBufferInfo)};
    const VkDescriptorUpdateTemplateCreateInfo template_info =
        PushTemplateInfo(&entry, 1, VK_PIPELINE_BIND_POINT_COMPUTE, push_layout, 1);
    VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
    if (with_template && vkCreateDescriptorUpdateTemplate(d, &template_info, nullptr, &update_template) != VK_SUCCESS) {
      o.error = "template creation failed";
    }

    if (o.error.empty()) {
      const VkDescriptorBufferInfo inputs[2] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {in[1].buffer, 0, VK_WHOLE_SIZE}};
      const VkDescriptorBufferInfo output = {out[1].buffer, 0, VK_WHOLE_SIZE};
      const VkDescriptorBufferInfo bound_uniform = {uniforms[0].buffer, 0, VK_WHOLE_SIZE};
      const VkDescriptorBufferInfo pushed_uniform = {uniforms[1].buffer, 0, VK_WHOLE_SIZE};
      VkWriteDescriptorSet texel{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      texel.dstSet = output_set;
      texel.descriptorCount = 1;
      texel.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
      texel.pTexelBufferView = &out_view;
      const VkWriteDescriptorSet writes[4] = {
          texel,
          BufferWrite(mixed_set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, inputs, 2),
          BufferWrite(mixed_set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &output),
          BufferWrite(mixed_set, 2, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &bound_uniform)};
      vkUpdateDescriptorSets(d, 4, writes, 0, nullptr);
      const VkWriteDescriptorSet push =
          BufferWrite(VK_NULL_HANDLE, 0, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &pushed_uniform);
      const VkDescriptorSet sets[2] = {output_set, mixed_set};
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, bound_layout, 0, 2, sets, 0, nullptr);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out1 = in0 + 2 in1
      RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      // Set 1 replaced by a push; set 0 (the same set layout in both layouts) stays bound.
      if (with_template) {
        push_template_cmd(cb, update_template, push_layout, 1, &pushed_uniform);
      } else {
        push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, push_layout, 1, 1, &push);
      }
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, reads_push);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out0 = the pushed uniforms' x * 7 + i
      RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      for (const HostBuffer& b : out) {
        const uint32_t* p = static_cast<const uint32_t*>(b.mapped);
        o.out.insert(o.out.end(), p, p + kWords);
      }
    }
    vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
    bag.DestroyAll();
    vkDestroyBufferView(d, out_view, nullptr);
    for (HostBuffer* x : {&in[0], &in[1], &uniforms[0], &uniforms[1], &out[0], &out[1]}) h.Destroy(*x);
  });
}

void ExpectPushOverFallbackSet(bool with_template) {
  const FallbackOutput native = RunPushOverFallbackSetInMode("off", with_template);
  const FallbackOutput forced = RunPushOverFallbackSetInMode("force", with_template);
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  // (The pipeline reading the push has nothing to rewrite: it runs as it is, not as a fallback.)
  EXPECT_EQ(SummaryCounter(forced.summary, "descriptor sets converted"), 1u) << forced.summary;
  ASSERT_EQ(native.out.size(), 2 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t in0 = 1000 + 2 * i, in1 = 2000 + 3 * i;
    ASSERT_EQ(native.out[i], (200 + 4 * (i % 16)) * 7 + i) << i;
    ASSERT_EQ(native.out[kWords + i], in0 + 2 * in1) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

TEST(BindingsPushDescriptors, APushOfNativeDescriptorsReplacesASetBoundForAFallbackPipeline) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  ExpectPushOverFallbackSet(false);
}

TEST(BindingsPushDescriptors, ATemplatePushOfNativeDescriptorsReplacesASetBoundForAFallbackPipeline) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  ExpectPushOverFallbackSet(true);
}

// A push to set 1 through layout A (kept: a pipeline the rewrite refuses is bound, so the
// push also goes down with its full layout), a set bound at 0 through layout B, whose set 0
// is not A's (that disturbs the push), a partial push to set 1 through B, then a pipeline
// of B reading set 0 only. Binding it puts the converted binds back and makes the pushes'
// native parts again; the layer chained the partial push behind A's as if it still held,
// and pushing A's again through A disturbed set 0 below (validation: set 0 not compatible;
// the API fuzzer's seed 9001 on the descriptor-indexing stand-in). A partial push keeps
// what an earlier push wrote only while the set was not disturbed, through a compatible
// layout.
FallbackOutput RunPartialPushAfterDisturbInMode(const char* mode) {
  ScopedEnv ubo("BINDERY_BINDINGS_UBO", "off");
  HarnessOptions options;
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<FallbackOutput>(mode, options, [&](VkHarness& h, FallbackOutput& o) {
    VkDevice d = h.device();
    HostBuffer in[2];
    for (uint32_t k = 0; k < 2; ++k) {
      in[k] = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
      for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(in[k].mapped)[i] = (k + 1) * 1000 + i * (k + 2);
    }
    HostBuffer uniforms = h.CreateHostBuffer(16 * 16, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    for (uint32_t i = 0; i < 16 * 4; ++i) static_cast<uint32_t*>(uniforms.mapped)[i] = 300 + i;
    HostBuffer out[2];
    for (HostBuffer& b : out) {
      b = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT);
      std::memset(b.mapped, 0, kWords * 4);
    }
    VkBufferViewCreateInfo view_info{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
    view_info.buffer = out[0].buffer;
    view_info.format = VK_FORMAT_R32_UINT;
    view_info.range = VK_WHOLE_SIZE;
    VkBufferView out_view = VK_NULL_HANDLE;
    if (vkCreateBufferView(d, &view_info, nullptr, &out_view) != VK_SUCCESS) o.error = "buffer view creation failed";

    ObjectBag bag(d);
    const VkDescriptorSetLayout refused_set =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkDescriptorSetLayout native_set = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                            {1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    // A uniform buffer (native) beside a storage buffer (converted): pushes go both ways.
    const VkDescriptorSetLayout pushed = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                            {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}},
                        VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR));
    const VkPipelineLayout layout_a = bag.Keep(CreatePipelineLayout(d, {refused_set, pushed}));
    const VkPipelineLayout layout_b = bag.Keep(CreatePipelineLayout(d, {native_set, pushed}));
    const VkPipeline refused =
        bag.Keep(CreateComputePipeline(d, layout_a, fallback_refused_comp, sizeof(fallback_refused_comp)));
    const VkPipeline reads_set0 =
        bag.Keep(CreateComputePipeline(d, layout_b, ubo_to_texel_set0_comp, sizeof(ubo_to_texel_set0_comp)));
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(
        d, 2, {{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1}, {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1}}));
    const VkDescriptorSet set0 = pool != VK_NULL_HANDLE ? AllocateSet(d, pool, native_set) : VK_NULL_HANDLE;
    if (!o.error.empty() || !refused || !reads_set0 || set0 == VK_NULL_HANDLE) o.error = "pipeline or set creation failed";
    auto push_cmd = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));

    if (o.error.empty()) {
      VkWriteDescriptorSet texel{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      texel.dstSet = set0;
      texel.descriptorCount = 1;
      texel.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
      texel.pTexelBufferView = &out_view;
      const VkDescriptorBufferInfo uniform = {uniforms.buffer, 0, VK_WHOLE_SIZE};
      const VkWriteDescriptorSet writes[2] = {texel, BufferWrite(set0, 1, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &uniform)};
      vkUpdateDescriptorSets(d, 2, writes, 0, nullptr);
      const VkDescriptorBufferInfo storage[2] = {{in[0].buffer, 0, VK_WHOLE_SIZE}, {out[1].buffer, 0, VK_WHOLE_SIZE}};
      const VkWriteDescriptorSet whole[2] = {
          BufferWrite(VK_NULL_HANDLE, 0, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &uniform),
          BufferWrite(VK_NULL_HANDLE, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &storage[0])};
      const VkWriteDescriptorSet partial = BufferWrite(VK_NULL_HANDLE, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &storage[1]);
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_a, 1, 2, whole);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_b, 0, 1, &set0, 0, nullptr);
      push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout_b, 1, 1, &partial);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, reads_set0);
      vkCmdDispatch(cb, kWords / 64, 1, 1);  // out0 = the uniforms' y * 5 + i
      RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
      const uint32_t* p = static_cast<const uint32_t*>(out[0].mapped);
      o.out.assign(p, p + kWords);
    }
    bag.DestroyAll();
    vkDestroyBufferView(d, out_view, nullptr);
    for (HostBuffer* x : {&in[0], &in[1], &uniforms, &out[0], &out[1]}) h.Destroy(*x);
  });
}

TEST(BindingsPushDescriptors, APartialPushDoesNotKeepAPushThatABindDisturbed) {
  if (!HasPushDescriptors()) GTEST_SKIP() << "the device has no VK_KHR_push_descriptor";
  const FallbackOutput native = RunPartialPushAfterDisturbInMode("off");
  const FallbackOutput forced = RunPartialPushAfterDisturbInMode("force");
  ASSERT_BOTH_RAN_SILENTLY(native, forced);
  EXPECT_EQ(SummaryCounter(forced.summary, "fallen back"), 1u) << forced.summary;
  ASSERT_EQ(native.out.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(native.out[i], (300 + 4 * (i % 16) + 1) * 5 + i) << i;
  EXPECT_EQ(native.out, forced.out);
}

}  // namespace
}  // namespace bindery::test
