// Native twins (docs/indirect-bindings.md, "When it falls back"): a buffer the layer cannot
// give a device address is reached through a converted descriptor. Here: external memory
// on a driver that allows it no address (tests/no_address_layer below the layer plays
// one; lavapipe itself allows OPAQUE_FD buffers the usage, and external_memory_test.cpp
// tests that they are addressed). Draws and dispatches with such a set bound run the rewritten
// pipeline's native twin with full native sets; with only addressable buffers bound they
// run the rewritten pipeline again. Results must be what the shader computes, with
// validation below the layer silent, whether the buffer existed before the pipeline (the
// twin is made with the pipeline) or not (a compute twin is made on first need).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "twin_copy_comp.h"
#include "twin_push_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;
constexpr VkExternalMemoryHandleTypeFlagBits kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

// A driver whose external memory takes no device address (below the layer).
HarnessOptions NoAddressDriver() {
  HarnessOptions options;
  options.layers_between = {"VK_LAYER_bindery_test_no_address"};
  return options;
}

// Can the device export OPAQUE_FD storage buffers? (The reason to skip otherwise.)
std::string ExternalUnsupported(VkHarness& h) {
  VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  info.handleType = kHandle;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(h.physical_device(), &info, &props);
  if ((props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) == 0) {
    return "the device cannot export OPAQUE_FD storage buffers";
  }
  return "";
}

// A host-visible storage buffer on exportable external memory.
HostBuffer CreateExternalBuffer(VkHarness& h) {
  return h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHandle);
}

void Fill(HostBuffer& b, uint32_t seed) {
  uint32_t* w = static_cast<uint32_t*>(b.mapped);
  for (uint32_t i = 0; i < kWords; ++i) w[i] = seed * 1000 + i;
}

::testing::AssertionResult Copied(const HostBuffer& src, const HostBuffer& dst) {
  const uint32_t* s = static_cast<const uint32_t*>(src.mapped);
  const uint32_t* d = static_cast<const uint32_t*>(dst.mapped);
  for (uint32_t i = 0; i < kWords; ++i) {
    if (d[i] != s[i] * 2 + 1) return ::testing::AssertionFailure() << "word " << i << ": " << d[i] << " != " << s[i] * 2 + 1;
  }
  return ::testing::AssertionSuccess();
}

void Dispatch(VkCommandBuffer cb, const ComputeKernel& k, VkDescriptorSet set) {
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cb, kWords / 64, 1, 1);
}

void HostBarrier(VkCommandBuffer cb) {
  RecordMemoryBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_HOST_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

struct TwinRun : ModeRunResult {
  bool warned = false;  // the layer said which buffer has no address
};

// `external_first`: the external buffer exists before the pipeline.
TwinRun RunTwinCase(const char* mode, bool external_first) {
  return RunWithBindings<TwinRun>(mode, NoAddressDriver(), [&](VkHarness& h, TwinRun& run) {
    HostBuffer external;
    if (external_first) external = CreateExternalBuffer(h);
    ComputeKernel k = h.CreateKernel(twin_copy_comp, sizeof(twin_copy_comp), 2);
    if (!external_first) external = CreateExternalBuffer(h);
    EXPECT_NE(external.buffer, VK_NULL_HANDLE);
    if (external.buffer == VK_NULL_HANDLE) return;
    HostBuffer src = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer plain = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer back = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    Fill(src, 1);
    std::memset(external.mapped, 0, kBytes);
    std::memset(plain.mapped, 0, kBytes);
    std::memset(back.mapped, 0, kBytes);
    // Three dispatches in one command buffer: into the external buffer (twin), into a plain
    // one (rewritten again), and out of the external one (twin again).
    VkDescriptorSet to_external = h.AllocateStorageSet(k, {src.buffer, external.buffer});
    VkDescriptorSet to_plain = h.AllocateStorageSet(k, {src.buffer, plain.buffer});
    VkDescriptorSet from_external = h.AllocateStorageSet(k, {external.buffer, back.buffer});
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    Dispatch(cb, k, to_external);
    HostBarrier(cb);
    Dispatch(cb, k, to_plain);
    HostBarrier(cb);
    Dispatch(cb, k, from_external);
    HostBarrier(cb);
    EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
    EXPECT_TRUE(Copied(src, external));
    EXPECT_TRUE(Copied(src, plain));
    EXPECT_TRUE(Copied(external, back));
    for (HostBuffer* b : {&src, &plain, &back, &external}) h.Destroy(*b);
    h.Destroy(k);
    // The warning comes at pipeline creation: the device need not be gone to read it.
    for (const Message& m : h.BinderyMessages()) {
      if (m.text.find("has no device address") != std::string::npos) run.warned = true;
    }
  });
}

class UnaddressableBuffer : public testing::TestWithParam<bool> {};

TEST_P(UnaddressableBuffer, DispatchesRunTheNativeTwin) {
  {
    VkHarness probe;
    ASSERT_TRUE(probe.ok()) << probe.error();
    const std::string why = ExternalUnsupported(probe);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  const TwinRun native = RunTwinCase("off", GetParam());
  const TwinRun forced = RunTwinCase("force", GetParam());
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_FALSE(native.warned);
  EXPECT_TRUE(forced.warned) << "the layer did not notice the buffer without an address";
  EXPECT_NE(forced.summary.find("pipelines rewritten 1, fallen back 0"), std::string::npos) << forced.summary;
}

INSTANTIATE_TEST_SUITE_P(Order, UnaddressableBuffer, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "BufferBeforePipeline" : "PipelineBeforeBuffer");
                         });

// The twin's sets are materialised with only the bindings its shaders use: a third binding
// written and then destroyed never reaches the driver (the twin's full set would
// otherwise name the freed buffer).
struct DestroyedBindingRun : ModeRunResult {
  bool copied = false;  // the dispatch copied src into the external buffer
};

DestroyedBindingRun RunTwinWithDestroyedBinding(const char* mode) {
  return RunWithBindings<DestroyedBindingRun>(mode, NoAddressDriver(), [&](VkHarness& h, DestroyedBindingRun& run) {
    HostBuffer external = CreateExternalBuffer(h);
    EXPECT_NE(external.buffer, VK_NULL_HANDLE);
    if (external.buffer == VK_NULL_HANDLE) return;
    ComputeKernel k = h.CreateKernel(twin_copy_comp, sizeof(twin_copy_comp), 3);
    HostBuffer src = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dead = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    Fill(src, 5);
    std::memset(external.mapped, 0, kBytes);
    VkDescriptorSet set = h.AllocateStorageSet(k, {src.buffer, external.buffer, dead.buffer});
    h.Destroy(dead);
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
    Dispatch(cb, k, set);
    HostBarrier(cb);
    EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
    run.copied = Copied(src, external);
    for (HostBuffer* b : {&src, &external}) h.Destroy(*b);
    h.Destroy(k);
  });
}

TEST(UnaddressableBuffer, TheTwinNeverGetsADestroyedBufferItDoesNotUse) {
  {
    VkHarness probe;
    ASSERT_TRUE(probe.ok()) << probe.error();
    const std::string why = ExternalUnsupported(probe);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  for (const char* mode : {"off", "force"}) {
    SCOPED_TRACE(mode);
    const DestroyedBindingRun run = RunTwinWithDestroyedBinding(mode);
    ASSERT_TRUE(run.error.empty()) << run.error;
    EXPECT_TRUE(run.copied);
    EXPECT_TRUE(run.validation.empty()) << run.validation;
  }
}

// A pipeline reading a converted push-descriptor set runs as its native twin too: the
// pushes it reads were kept as the application made them, and the twin gets them again
// natively with its full layout. Two dispatches: one whose set 0 (or, `pushed_external`,
// whose pushed set 1) names the buffer without an address (the twin, with the push made
// again), one with addressable buffers only (rewritten). Before, the first was skipped
// with an error. Forced vs off: byte-identical, validation silent.
struct PushTwinRun : ModeRunResult {
  std::vector<uint32_t> first, second;  // the destinations of the two dispatches
  std::vector<Message> bindery;
};

PushTwinRun RunPushTwinCase(const char* mode, bool pushed_external) {
  HarnessOptions options = NoAddressDriver();
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
  return RunWithBindings<PushTwinRun>(mode, options, [&](VkHarness& h, PushTwinRun& run) {
    VkDevice d = h.device();
    HostBuffer external = CreateExternalBuffer(h);
    HostBuffer plain = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer dst[2] = {h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT),
                         h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)};
    if (external.buffer == VK_NULL_HANDLE) {
      run.error = "no external buffer";
      return;
    }
    Fill(external, 3);
    Fill(plain, 4);
    std::memset(dst[1].mapped, 0, kBytes);
    // The first dispatch writes into dst[0], or into the external buffer when that is pushed.
    HostBuffer& first_out = pushed_external ? external : dst[0];
    if (pushed_external) Fill(dst[0], 3);  // then the first dispatch reads dst[0]
    if (!pushed_external) std::memset(dst[0].mapped, 0, kBytes);

    ObjectBag bag(d);
    const std::vector<VkDescriptorSetLayoutBinding> binding = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    const VkDescriptorSetLayout set_layouts[2] = {
        bag.Keep(CreateSetLayout(d, binding)),
        bag.Keep(CreateSetLayout(d, binding, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR))};
    const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layouts[0], set_layouts[1]}));
    const VkPipeline pipeline = bag.Keep(CreateComputePipeline(d, layout, twin_push_comp, sizeof(twin_push_comp)));
    if (pipeline == VK_NULL_HANDLE) run.error = "pipeline";
    const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 2, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}}));
    VkDescriptorSetLayout alloc_layouts[2] = {set_layouts[0], set_layouts[0]};
    const VkDescriptorSetAllocateInfo dsai = SetAllocateInfo(pool, 2, alloc_layouts);
    VkDescriptorSet sets[2] = {};
    vkAllocateDescriptorSets(d, &dsai, sets);
    const VkDescriptorBufferInfo sources[2] = {
        {pushed_external ? dst[0].buffer : external.buffer, 0, VK_WHOLE_SIZE}, {plain.buffer, 0, VK_WHOLE_SIZE}};
    for (uint32_t i = 0; i < 2; ++i) {
      const VkWriteDescriptorSet w = BufferWrite(sets[i], 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &sources[i]);
      vkUpdateDescriptorSets(d, 1, &w, 0, nullptr);
    }
    auto push_cmd =
        reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
    if (run.error.empty() && push_cmd != nullptr) {
      VkCommandBuffer cb = h.BeginCommands();
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      const HostBuffer* outs[2] = {&first_out, &dst[1]};
      for (uint32_t i = 0; i < 2; ++i) {
        const VkDescriptorBufferInfo out{outs[i]->buffer, 0, VK_WHOLE_SIZE};
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.descriptorCount = 1;
        w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w.pBufferInfo = &out;
        push_cmd(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 1, 1, &w);
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &sets[i], 0, nullptr);
        vkCmdDispatch(cb, kWords / 64, 1, 1);
        HostBarrier(cb);
      }
      if (h.SubmitAndWait(cb) != VK_SUCCESS) run.error = "submit";
      const uint32_t* first = static_cast<const uint32_t*>(first_out.mapped);
      const uint32_t* second = static_cast<const uint32_t*>(dst[1].mapped);
      run.first.assign(first, first + kWords);
      run.second.assign(second, second + kWords);
    }
    bag.DestroyAll();
    for (HostBuffer* b : {&external, &plain, &dst[0], &dst[1]}) h.Destroy(*b);
    run.bindery = h.BinderyMessages();
  });
}

class UnaddressableBufferPush : public testing::TestWithParam<bool> {};

TEST_P(UnaddressableBufferPush, ATwinGetsThePushesItReadsAgainNatively) {
  {
    VkHarness probe;
    ASSERT_TRUE(probe.ok()) << probe.error();
    const std::string why = ExternalUnsupported(probe);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  const PushTwinRun native = RunPushTwinCase("off", GetParam());
  if (native.error.find("EXTENSION_NOT_PRESENT") != std::string::npos) GTEST_SKIP() << "no VK_KHR_push_descriptor";
  const PushTwinRun forced = RunPushTwinCase("force", GetParam());
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  ASSERT_EQ(native.first.size(), kWords);
  ASSERT_EQ(forced.first.size(), kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(native.first[i], (3000 + i) * 2 + 1) << i;
    ASSERT_EQ(native.second[i], (4000 + i) * 2 + 1) << i;
  }
  EXPECT_EQ(forced.first, native.first);    // the twin, with the push made again natively
  EXPECT_EQ(forced.second, native.second);  // addressable: rewritten
  EXPECT_FALSE(HasMessage(forced.bindery, "BINDERY-bindings-twin"));
}

INSTANTIATE_TEST_SUITE_P(Where, UnaddressableBufferPush, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& i) {
                           return std::string(i.param ? "PushedBuffer" : "BoundBuffer");
                         });

}  // namespace
}  // namespace bindery::test
