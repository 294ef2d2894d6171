// Beyond the driver's limits (docs/indirect-bindings.md, "Limits and extensions"). With indirect bindings forced the layer
// reports raised storage-buffer limits (and only where it honours them), and a program
// using them works with validation below the layer silent: a 512 MiB storage buffer
// (lavapipe's maxStorageBufferRange is 128 MiB) bound with VK_WHOLE_SIZE and with an
// explicit range is read and written to its last word; 40 storage buffers in one stage
// and set (lavapipe allows 32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "big_buffer_comp.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"
#include "many_buffers_comp.h"
#include "many_sets_comp.h"

namespace bindery::test {
namespace {

constexpr VkDeviceSize kBig = 512ull << 20;

VkPhysicalDeviceLimits LimitsSeen(const char* mode) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  VkHarness h;
  VkPhysicalDeviceProperties props{};
  if (h.ok()) vkGetPhysicalDeviceProperties(h.physical_device(), &props);
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  if (h.ok()) vkGetPhysicalDeviceProperties2(h.physical_device(), &props2);
  EXPECT_EQ(props.limits.maxStorageBufferRange, props2.properties.limits.maxStorageBufferRange);
  return props.limits;
}

constexpr VkDeviceSize kLavapipeRange = VkDeviceSize{1} << 30;

// The largest buffer the device can create, allocate and hold (what the layer reports as
// maxStorageBufferRange where it raises it), at most UINT32_MAX.
VkDeviceSize ServableRange(const char* mode) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  VkHarness h;
  if (!h.ok()) return 0;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceMaintenance4Properties m4{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES, &driver};
  VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &m4};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3};
  vkGetPhysicalDeviceProperties2(h.physical_device(), &props2);
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(h.physical_device(), &memory);
  VkDeviceSize range = std::min<VkDeviceSize>({UINT32_MAX, m3.maxMemoryAllocationSize, m4.maxBufferSize});
  VkDeviceSize heap = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) heap = std::max(heap, memory.memoryHeaps[i].size);
  // lavapipe: at most 1 GiB (its buffer work is sized in int32: LavapipeRangeLeavesRoomBelow2GiB).
  if (driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) range = std::min<VkDeviceSize>(range, kLavapipeRange);
  return std::min(range, heap);
}

bool OnLavapipe() {
  VkHarness h;
  if (!h.ok()) return false;
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
  vkGetPhysicalDeviceProperties2(h.physical_device(), &props2);
  return driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
}

// lavapipe (Mesa 22.3) crashes in its queue thread on a 2^31-byte buffer (its
// maxMemoryAllocationSize), and zink's GL over it, given 2 GiB, let a vertex-stage storage
// block one vec4 past GL's INT_MAX limit link (its size wraps negative in Mesa's linker):
// piglit's arb_shader_storage_buffer_object-max-ssbo-size vsexceed then crashed forced
// (smoke.real_programs_bindings runs it). The layer raises lavapipe's range to 1 GiB, which
// it delivers, so a client's overshoot stays a buffer the driver handles.
TEST(BindingsLimits, LavapipeRangeLeavesRoomBelow2GiB) {
  if (!OnLavapipe()) GTEST_SKIP() << "not lavapipe: the range is what the device can hold (RaisedOnlyWhenForced)";
  const VkPhysicalDeviceLimits native = LimitsSeen("off");
  const VkPhysicalDeviceLimits forced = LimitsSeen("force");
  EXPECT_EQ(forced.maxStorageBufferRange, std::max<VkDeviceSize>(native.maxStorageBufferRange, kLavapipeRange));
  EXPECT_LE(VkDeviceSize{forced.maxStorageBufferRange} + 16, VkDeviceSize{INT32_MAX});
}

TEST(BindingsLimits, RaisedOnlyWhenForced) {
  const VkPhysicalDeviceLimits native = LimitsSeen("off");
  const VkPhysicalDeviceLimits forced = LimitsSeen("force");
  // Raised to what the device can serve (a GL driver on top uses blocks of that size).
  EXPECT_EQ(forced.maxStorageBufferRange,
            std::max<VkDeviceSize>(native.maxStorageBufferRange, ServableRange("off")));
  // Raised where the driver reports less than it can serve (lavapipe: 128 MiB of 2 GiB);
  // a driver already at 4 GiB - 1 (NVIDIA) keeps its value.
  if (native.maxStorageBufferRange < ServableRange("off")) {
    EXPECT_GT(forced.maxStorageBufferRange, native.maxStorageBufferRange);
  }
  EXPECT_GE(forced.maxPerStageDescriptorStorageBuffers, 65536u);
  EXPECT_GE(forced.maxDescriptorSetStorageBuffers, 65536u);
  // Raised, unless the driver already reports the largest value (NVIDIA: UINT32_MAX).
  if (native.maxPerStageResources != UINT32_MAX) {
    EXPECT_GT(forced.maxPerStageResources, native.maxPerStageResources);
  } else {
    EXPECT_EQ(forced.maxPerStageResources, UINT32_MAX);
  }
  // Not raised: a layout whose every set keeps native descriptors gets only the driver's
  // count (more sets work where they convert: TwelveSets* below).
  EXPECT_EQ(forced.maxBoundDescriptorSets, native.maxBoundDescriptorSets);
  // Not honoured, so not raised.
  EXPECT_EQ(forced.maxDescriptorSetStorageBuffersDynamic, native.maxDescriptorSetStorageBuffersDynamic);
  EXPECT_EQ(forced.maxPushConstantsSize, native.maxPushConstantsSize);
}

// One dispatch of `code` with set 0 = `buffers` (binding 0: `array` descriptors, binding
// 1: one), `ranges` per descriptor.
void RunKernel(VkHarness& h, const uint32_t* code, size_t bytes, const std::vector<VkBuffer>& array, VkBuffer out,
               VkDeviceSize range0) {
  VkDevice d = h.device();
  ObjectBag bag(d);
  const uint32_t n = static_cast<uint32_t>(array.size());
  const VkDescriptorSetLayout set_layout =
      bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                   {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
  ASSERT_NE(set_layout, VK_NULL_HANDLE);
  const VkPipelineLayout layout = bag.Keep(CreatePipelineLayout(d, {set_layout}));
  ASSERT_NE(layout, VK_NULL_HANDLE);
  const VkPipeline pipeline = bag.Keep(CreateComputePipeline(d, layout, code, bytes));
  ASSERT_NE(pipeline, VK_NULL_HANDLE);
  const VkDescriptorPool pool = bag.Keep(CreateDescriptorPool(d, 1, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n + 1}}));
  const VkDescriptorSet set = AllocateSet(d, pool, set_layout);
  ASSERT_NE(set, VK_NULL_HANDLE);
  std::vector<VkDescriptorBufferInfo> infos;
  for (VkBuffer buffer : array) infos.push_back({buffer, 0, range0});
  const VkDescriptorBufferInfo out_info{out, 0, VK_WHOLE_SIZE};
  const VkWriteDescriptorSet w[2] = {BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos.data(), n),
                                     BufferWrite(set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &out_info)};
  vkUpdateDescriptorSets(d, 2, w, 0, nullptr);
  VkCommandBuffer cb = h.BeginCommands();
  RecordDispatch(cb, pipeline, layout, {set});
  BarrierToHost(cb);
  EXPECT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
}

// big_buffer.comp over `big` bound with `range`, its first and last words set to `first`
// and `last`: the kernel must have read the array's length and both ends.
void ExpectEndsRead(VkHarness& h, const HostBuffer& big, VkDeviceSize range, uint32_t first, uint32_t last) {
  HostBuffer out = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  uint32_t* words = static_cast<uint32_t*>(big.mapped);
  const size_t n = big.size / 4;
  words[0] = first;
  words[n - 1] = last;
  std::memset(out.mapped, 0, 16);
  RunKernel(h, big_buffer_comp, sizeof(big_buffer_comp), {big.buffer}, out.buffer, range);
  const uint32_t* o = static_cast<const uint32_t*>(out.mapped);
  EXPECT_EQ(o[0], n);
  EXPECT_EQ(o[1], first);
  EXPECT_EQ(o[2], last);
  h.Destroy(out);
}

// The same, and the kernel also wrote both ends. Destroys `big`; validation stays silent.
void ExpectEndsReadAndWritten(VkHarness& h, HostBuffer& big, VkDeviceSize range) {
  ExpectEndsRead(h, big, range, 0x1234u, 0x5678u);
  const uint32_t* words = static_cast<const uint32_t*>(big.mapped);
  EXPECT_EQ(words[0], 0xBEEFu);
  EXPECT_EQ(words[big.size / 4 - 1], 0xC0FFEEu);
  h.Destroy(big);
  EXPECT_VALIDATION_SILENT(h);
}

class BigBuffer : public testing::TestWithParam<bool> {};  // VK_WHOLE_SIZE or an explicit range

TEST_P(BigBuffer, ReadAndWrittenToItsLastWord) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  VkHarness h;
  ASSERT_TRUE(h.ok()) << h.error();
  HostBuffer big = h.CreateHostBuffer(kBig, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  ASSERT_NE(big.buffer, VK_NULL_HANDLE) << "could not allocate 512 MiB";
  ExpectEndsReadAndWritten(h, big, GetParam() ? VK_WHOLE_SIZE : kBig);
}

INSTANTIATE_TEST_SUITE_P(Ranges, BigBuffer, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool>& i) { return i.param ? "WholeSize" : "ExplicitRange"; });

// A storage buffer of exactly the reported maxStorageBufferRange (lavapipe: 1 GiB), bound with an explicit range of that size, read and written to
// its last word.
TEST(BindingsLimits, ABufferAtTheRaisedRangeWorks) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  VkHarness h;
  ASSERT_TRUE(h.ok()) << h.error();
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(h.physical_device(), &props);
  const VkDeviceSize range = props.limits.maxStorageBufferRange & ~VkDeviceSize{3};
  if (range > (4ull << 30) - 4) GTEST_SKIP() << "a " << range << "-byte buffer is more than this test allocates";
  HostBuffer big = h.CreateHostBuffer(range, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  if (big.buffer == VK_NULL_HANDLE) GTEST_SKIP() << "could not allocate " << range << " host-visible bytes here";
  ExpectEndsReadAndWritten(h, big, range);
}

// Forced, and under auto (the default) — where a layout beyond the driver's limits
// converts whatever the driver's row in the policy table says (bindings/model/policy.h).
class FortyBuffers : public testing::TestWithParam<const char*> {};

TEST_P(FortyBuffers, InOneStageAndSet) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", GetParam());
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  const VkPhysicalDeviceLimits native = LimitsSeen("off");
  if (native.maxPerStageDescriptorStorageBuffers >= 41 && std::string(GetParam()) == "auto") {
    GTEST_SKIP() << "the driver allows " << native.maxPerStageDescriptorStorageBuffers
                 << " storage buffers per stage: 41 is within its limits";
  }
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  std::vector<HostBuffer> buffers;
  std::vector<VkBuffer> handles;
  uint32_t expected = 0;
  for (uint32_t i = 0; i < 40; ++i) {
    buffers.push_back(h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
    static_cast<uint32_t*>(buffers.back().mapped)[0] = 3 * i + 1;
    handles.push_back(buffers.back().buffer);
    expected += (3 * i + 1) * (i + 1);
  }
  HostBuffer out = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::memset(out.mapped, 0, 16);
  RunKernel(h, many_buffers_comp, sizeof(many_buffers_comp), handles, out.buffer, VK_WHOLE_SIZE);
  EXPECT_EQ(static_cast<const uint32_t*>(out.mapped)[0], expected);
  for (HostBuffer& b : buffers) h.Destroy(b);
  h.Destroy(out);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  const std::string summary = h.BinderySummary();
  EXPECT_NE(summary.find("pipelines rewritten 1, fallen back 0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("descriptor sets converted 1"), std::string::npos) << summary;
}

INSTANTIATE_TEST_SUITE_P(Modes, FortyBuffers, testing::Values("force", "auto"),
                         [](const testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace bindery::test

namespace bindery::test {
namespace {

// Under auto, a layout within the driver's limits converts only where the policy table
// says conversion pays on this driver (the device's "indirect bindings on" line names the
// policy); the program's result is the same either way.
TEST(BindingsLimits, AutoConvertsLayoutsWithinTheLimitsOnlyWhereItPays) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "auto");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  HostBuffer data = h.CreateHostBuffer(1 << 20, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  ExpectEndsRead(h, data, VK_WHOLE_SIZE, 7, 9);
  h.Destroy(data);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  std::string summary, policy;
  for (const Message& m : h.BinderyMessages()) {
    if (m.text.find("device summary") != std::string::npos) summary = m.text;
    if (m.text.find("indirect bindings on") != std::string::npos) policy = m.text;
  }
  ASSERT_FALSE(policy.empty()) << "no 'indirect bindings on' line: is the capability on under auto?";
  const bool pays = policy.find("every layout") != std::string::npos;
  EXPECT_NE(summary.find(pays ? "pipelines rewritten 1" : "pipelines rewritten 0"), std::string::npos)
      << summary << "\n" << policy;
  EXPECT_NE(summary.find(pays ? "descriptor sets converted 1" : "descriptor sets converted 0"), std::string::npos)
      << summary;
}

}  // namespace
}  // namespace bindery::test

namespace bindery::test {
namespace {

// maxBoundDescriptorSets: twelve sets (lavapipe binds 8), of which only sets 3 and 11 keep
// native descriptors (a uniform buffer each): the native layout holds those two,
// renumbered 0 and 1, and the shader's uniform buffers are renumbered with them. Bound in
// two calls (0-5, 6-11) so that both native sets are bound through the renumbering.
// `full_push_constants`: the layout also has a push-constant range over all of
// maxPushConstantsSize, so the root goes to the reserved set, after the two native sets
// (the reserved set with renumbered sets: the shaders name it 12, the driver sees it at 2).
void RunTwelveSets(bool full_push_constants) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(h.physical_device(), &props);
  // Beyond the reported maxBoundDescriptorSets on lavapipe (8) on purpose: the layer
  // serves layouts whose extra sets convert (the driver sees two sets and the reserved one).
  VkDevice d = h.device();
  constexpr uint32_t kSets = 12;
  std::vector<HostBuffer> buffers;
  std::vector<VkDescriptorSetLayout> layouts(kSets);
  for (uint32_t s = 0; s < kSets; ++s) {
    std::vector<VkDescriptorSetLayoutBinding> b;
    if (s == 11) {
      b.push_back({0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
      b.push_back({1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    } else {
      b.push_back({0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
      if (s == 3) b.push_back({1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    }
    VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = static_cast<uint32_t>(b.size());
    dslci.pBindings = b.data();
    ASSERT_EQ(vkCreateDescriptorSetLayout(d, &dslci, nullptr, &layouts[s]), VK_SUCCESS);
  }
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = kSets;
  plci.pSetLayouts = layouts.data();
  const VkPushConstantRange full_range{VK_SHADER_STAGE_COMPUTE_BIT, 0, props.limits.maxPushConstantsSize};
  if (full_push_constants) {
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &full_range;
  }
  VkPipelineLayout layout = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePipelineLayout(d, &plci, nullptr, &layout), VK_SUCCESS);
  const VkShaderModule module = CreateShaderModule(d, many_sets_comp, sizeof(many_sets_comp));
  ASSERT_NE(module, VK_NULL_HANDLE);
  const VkComputePipelineCreateInfo cpci = ComputePipelineInfo(module, layout);
  VkPipeline pipeline = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline), VK_SUCCESS);

  VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSets}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2}};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = kSets;
  dpci.poolSizeCount = 2;
  dpci.pPoolSizes = sizes;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateDescriptorPool(d, &dpci, nullptr, &pool), VK_SUCCESS);
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool;
  dsai.descriptorSetCount = kSets;
  dsai.pSetLayouts = layouts.data();
  std::vector<VkDescriptorSet> sets(kSets);
  ASSERT_EQ(vkAllocateDescriptorSets(d, &dsai, sets.data()), VK_SUCCESS);

  uint32_t expected = 0;
  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(16);
  std::vector<VkWriteDescriptorSet> writes;
  auto add = [&](VkDescriptorSet set, uint32_t binding, VkDescriptorType type, VkBufferUsageFlags usage, uint32_t value) {
    buffers.push_back(h.CreateHostBuffer(16, usage));
    std::memset(buffers.back().mapped, 0, 16);
    static_cast<uint32_t*>(buffers.back().mapped)[0] = value;
    infos.push_back({buffers.back().buffer, 0, VK_WHOLE_SIZE});
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = type;
    w.pBufferInfo = &infos.back();
    writes.push_back(w);
  };
  for (uint32_t s = 0; s < 11; ++s) {
    add(sets[s], 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 5 * s + 2);
    expected += (5 * s + 2) * (s + 1);
  }
  add(sets[3], 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 3);
  add(sets[11], 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 1000);
  add(sets[11], 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0);
  expected = expected * 3 + 1000;
  vkUpdateDescriptorSets(d, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 6, sets.data(), 0, nullptr);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 6, 6, sets.data() + 6, 0, nullptr);
  vkCmdDispatch(cb, 1, 1, 1);
  BarrierToHost(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_EQ(static_cast<const uint32_t*>(buffers.back().mapped)[0], expected);

  vkDestroyPipeline(d, pipeline, nullptr);
  vkDestroyShaderModule(d, module, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  vkDestroyPipelineLayout(d, layout, nullptr);
  for (VkDescriptorSetLayout l : layouts) vkDestroyDescriptorSetLayout(d, l, nullptr);
  for (HostBuffer& b : buffers) h.Destroy(b);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  const std::string summary = h.BinderySummary();
  EXPECT_NE(summary.find("pipelines rewritten 1, fallen back 0"), std::string::npos) << summary;
  const bool ring_used = summary.find("root ring bytes 0") == std::string::npos &&
                         summary.find("root ring bytes") != std::string::npos;
  EXPECT_EQ(ring_used, full_push_constants) << summary;
}

TEST(BindingsLimits, TwelveSetsTwoOfThemNative) { RunTwelveSets(false); }

TEST(BindingsLimits, TwelveSetsTwoOfThemNativeWithTheRootInTheReservedSet) { RunTwelveSets(true); }

// Issue 32's debug setting bindings_skip (docs/settings.md): under auto, each part of
// indirect bindings left out keeps the program's result and validation silent, and the
// device says what it left out (no layout converts then).
class SkipParts : public testing::TestWithParam<const char*> {};

TEST_P(SkipParts, LeaveTheProgramAsItWas) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "auto");
  ScopedEnv skip("BINDERY_BINDINGS_SKIP", GetParam());
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  HostBuffer data = h.CreateHostBuffer(1 << 20, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  ExpectEndsRead(h, data, VK_WHOLE_SIZE, 7, 9);
  h.Destroy(data);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  std::string said, summary;
  for (const Message& m : h.BinderyMessages()) {
    if (m.text.find("bindings_skip 0x") != std::string::npos) said = m.text;
    if (m.text.find("device summary") != std::string::npos) summary = m.text;
  }
  EXPECT_NE(said.find("left out"), std::string::npos) << VkHarness::Format(h.BinderyMessages());
  EXPECT_EQ(said.find("no layout converts") != std::string::npos, std::string(GetParam()) != "features") << said;
  EXPECT_NE(summary.find("pipelines rewritten 0"), std::string::npos) << summary;
}

INSTANTIATE_TEST_SUITE_P(Parts, SkipParts,
                         testing::Values("features", "addresses", "resources", "commands", "root-layout",
                                         "record-hooks", "descriptor-hooks", "pipeline-hooks", "all"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           std::string name = i.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// Where every layout converts (force) the setting is refused with a warning: the
// conversion needs every part.
TEST(BindingsSkip, IgnoredWhereEveryLayoutConverts) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
  ScopedEnv skip("BINDERY_BINDINGS_SKIP", "all");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  ASSERT_TRUE(h.ok()) << h.error();
  HostBuffer data = h.CreateHostBuffer(1 << 20, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  ExpectEndsRead(h, data, VK_WHOLE_SIZE, 7, 9);
  h.Destroy(data);
  h.DestroyDevice();
  EXPECT_VALIDATION_SILENT(h);
  bool ignored = false;
  std::string summary;
  for (const Message& m : h.BinderyMessages()) {
    ignored |= m.text.find("bindings_skip is ignored") != std::string::npos;
    if (m.text.find("device summary") != std::string::npos) summary = m.text;
  }
  EXPECT_TRUE(ignored) << VkHarness::Format(h.BinderyMessages());
  EXPECT_NE(summary.find("pipelines rewritten 1"), std::string::npos) << summary;
}

}  // namespace
}  // namespace bindery::test
