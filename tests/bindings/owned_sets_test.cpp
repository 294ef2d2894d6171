// Layer-owned descriptor sets (docs/indirect-bindings.md, "Pools and sets"): sets of layouts that keep no native
// binding have no native set; their handles must never reach the layer below. Each test
// uses them where the layer below would otherwise see them — copies to and from native
// sets, frees mixed with native sets, pool resets, debug names and private data, many
// threads — and checks the dispatch results, that the sets really were layer-owned (the
// summary's counter), and that validation below (which reports unknown handles) is silent.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <thread>

#include "compute_run.h"
#include "integration/test_env.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

// ssbo_copy.comp: dst[i] = src[i] * 3 + 1 for 256 uints (set 0: binding 0 src, 1 dst).
constexpr uint32_t kWords = 256;

VkDescriptorSetLayout MakeLayout(VkDevice d, bool with_uniform) {
  std::vector<VkDescriptorSetLayoutBinding> b = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  if (with_uniform) b.push_back({2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  const VkDescriptorSetLayout l = CreateSetLayout(d, b);
  EXPECT_NE(l, VK_NULL_HANDLE);
  return l;
}

VkDescriptorPool MakePool(VkDevice d, uint32_t max_sets, VkDescriptorPoolCreateFlags flags, uint32_t storage_per_set = 2) {
  const VkDescriptorPool p = CreateDescriptorPool(
      d, max_sets,
      {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, storage_per_set * max_sets}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, max_sets}},
      flags);
  EXPECT_NE(p, VK_NULL_HANDLE);
  return p;
}

void WriteBuffers(VkDevice d, VkDescriptorSet set, VkBuffer src, VkBuffer dst) {
  const VkDescriptorBufferInfo infos[2] = {{src, 0, VK_WHOLE_SIZE}, {dst, 0, kWords * 4}};
  const VkWriteDescriptorSet w = BufferWrite(set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, 2);
  vkUpdateDescriptorSets(d, 1, &w, 0, nullptr);
}

// One device with indirect bindings forced, ssbo_copy.comp's pipelines on an all-storage
// layout (its sets are layer-owned) and on a layout with a uniform buffer besides (its
// sets stay native), and helpers to run and check a dispatch.
// Harness options that turn on the private data feature (Vulkan 1.3). The feature struct
// lives as long as the tests: the options only point at it.
HarnessOptions WithPrivateData() {
  static VkPhysicalDeviceVulkan13Features features13 = [] {
    VkPhysicalDeviceVulkan13Features f{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f.privateData = VK_TRUE;
    return f;
  }();
  HarnessOptions options;
  options.device_pnext = &features13;
  return options;
}

VkDebugUtilsObjectNameInfoEXT NameInfo(VkObjectType type, uint64_t handle, const char* text) {
  VkDebugUtilsObjectNameInfoEXT name{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  name.objectType = type;
  name.objectHandle = handle;
  name.pObjectName = text;
  return name;
}

// Names `handle` `text` and tags it (tag 7, four bytes) through the device's debug-utils
// entry points; both must be there and succeed.
void NameAndTag(VkDevice d, VkObjectType type, uint64_t handle, const char* text) {
  auto set_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
      vkGetDeviceProcAddr(d, "vkSetDebugUtilsObjectNameEXT"));
  auto set_tag = reinterpret_cast<PFN_vkSetDebugUtilsObjectTagEXT>(vkGetDeviceProcAddr(d, "vkSetDebugUtilsObjectTagEXT"));
  ASSERT_NE(set_name, nullptr);
  ASSERT_NE(set_tag, nullptr);
  const VkDebugUtilsObjectNameInfoEXT name = NameInfo(type, handle, text);
  EXPECT_EQ(set_name(d, &name), VK_SUCCESS);
  const uint32_t tag_data = 42;
  VkDebugUtilsObjectTagInfoEXT tag{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_TAG_INFO_EXT};
  tag.objectType = type;
  tag.objectHandle = handle;
  tag.tagName = 7;
  tag.tagSize = sizeof(tag_data);
  tag.pTag = &tag_data;
  EXPECT_EQ(set_tag(d, &tag), VK_SUCCESS);
}

struct Rig {
  std::unique_ptr<VkHarness> h;
  VkDescriptorSetLayout owned_layout = VK_NULL_HANDLE, native_layout = VK_NULL_HANDLE;
  VkPipelineLayout owned_pl = VK_NULL_HANDLE, native_pl = VK_NULL_HANDLE;
  VkPipeline owned_pipeline = VK_NULL_HANDLE, native_pipeline = VK_NULL_HANDLE;
  std::vector<uint32_t> module;
  std::string summary;

  explicit Rig(const HarnessOptions& options = {}) {
    ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", "force");
    ScopedEnv level("BINDERY_LOG_LEVEL", "info");
    h = std::make_unique<VkHarness>(options);
    if (!h->ok()) return;
    std::string error;
    module = spirv_exec::LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/ssbo_copy.comp.spv", error);
    VkDevice d = h->device();
    owned_layout = MakeLayout(d, false);
    native_layout = MakeLayout(d, true);
    owned_pl = PipelineLayout(owned_layout);
    native_pl = PipelineLayout(native_layout);
    owned_pipeline = Pipeline(owned_pl);
    native_pipeline = Pipeline(native_pl);
  }
  bool ok() const { return h->ok() && !module.empty() && owned_pipeline != VK_NULL_HANDLE; }

  VkPipelineLayout PipelineLayout(VkDescriptorSetLayout set) {
    const VkPipelineLayout l = CreatePipelineLayout(h->device(), {set});
    EXPECT_NE(l, VK_NULL_HANDLE);
    return l;
  }
  VkPipeline Pipeline(VkPipelineLayout layout) {
    if (module.empty()) return VK_NULL_HANDLE;
    const VkPipeline p = CreateComputePipeline(h->device(), layout, module.data(), module.size() * 4);
    EXPECT_NE(p, VK_NULL_HANDLE);
    return p;
  }
  HostBuffer Filled(uint32_t seed) {
    HostBuffer b = h->CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t i = 0; i < kWords; ++i) static_cast<uint32_t*>(b.mapped)[i] = seed == 0 ? 0 : i * seed + 7;
    return b;
  }
  HostBuffer Uniform() { return h->CreateHostBuffer(256, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT); }
  // Dispatches ssbo_copy with `set` (native == its layout keeps the uniform buffer).
  void Run(VkDescriptorSet set, bool native) {
    VkCommandBuffer cb = h->BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, native ? native_pipeline : owned_pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, native ? native_pl : owned_pl, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    BarrierToHost(cb);
    ASSERT_EQ(h->SubmitAndWait(cb), VK_SUCCESS);
  }
  void Finish() {
    VkDevice d = h->device();
    vkDestroyPipeline(d, owned_pipeline, nullptr);
    vkDestroyPipeline(d, native_pipeline, nullptr);
    vkDestroyPipelineLayout(d, owned_pl, nullptr);
    vkDestroyPipelineLayout(d, native_pl, nullptr);
    vkDestroyDescriptorSetLayout(d, owned_layout, nullptr);
    vkDestroyDescriptorSetLayout(d, native_layout, nullptr);
    h->DestroyDevice();
    summary = h->BinderySummary();
    EXPECT_VALIDATION_SILENT(*h);
  }
};

void ExpectCopied(const HostBuffer& src, const HostBuffer& dst, const char* what) {
  const uint32_t* s = static_cast<const uint32_t*>(src.mapped);
  const uint32_t* d = static_cast<const uint32_t*>(dst.mapped);
  for (uint32_t i = 0; i < kWords; ++i) ASSERT_EQ(d[i], s[i] * 3 + 1) << what << ", word " << i;
}

TEST(BindingsOwnedSets, CopiesBetweenOwnedAndNativeSetsInOneUpdate) {
  Rig rig;
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  VkDescriptorPool pool = MakePool(d, 8, 0);
  // One call allocating owned and native sets together.
  VkDescriptorSetLayout layouts[4] = {rig.owned_layout, rig.native_layout, rig.owned_layout, rig.owned_layout};
  VkDescriptorSet sets[4] = {};
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, 4, layouts);
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, sets), VK_SUCCESS);
  const VkDescriptorSet owned_a = sets[0], native = sets[1], owned_b = sets[2], owned_c = sets[3];
  HostBuffer src = rig.Filled(3), dst1 = rig.Filled(0), dst2 = rig.Filled(0);
  HostBuffer uniform = rig.Uniform();
  WriteBuffers(d, owned_a, src.buffer, dst1.buffer);

  // owned_a -> native (the storage buffers), with the native set's uniform buffer written
  // in the same call; owned_a -> owned_b.
  VkDescriptorBufferInfo ubo{uniform.buffer, 0, VK_WHOLE_SIZE};
  const VkWriteDescriptorSet w = BufferWrite(native, 2, 0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &ubo);
  VkCopyDescriptorSet copies[2] = {{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET}};
  copies[0].srcSet = owned_a;
  copies[0].dstSet = native;
  copies[0].descriptorCount = 2;
  copies[1].srcSet = owned_a;
  copies[1].dstSet = owned_b;
  copies[1].descriptorCount = 2;
  vkUpdateDescriptorSets(d, 1, &w, 2, copies);
  rig.Run(native, true);
  ExpectCopied(src, dst1, "owned -> native copy");
  std::memset(dst1.mapped, 0, kWords * 4);
  rig.Run(owned_b, false);
  ExpectCopied(src, dst1, "owned -> owned copy");
  // native -> owned_c, after re-pointing the native set's output.
  WriteBuffers(d, native, src.buffer, dst2.buffer);
  VkCopyDescriptorSet back{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET};
  back.srcSet = native;
  back.dstSet = owned_c;
  back.descriptorCount = 2;
  vkUpdateDescriptorSets(d, 0, nullptr, 1, &back);
  rig.Run(owned_c, false);
  ExpectCopied(src, dst2, "native -> owned copy");

  vkDestroyDescriptorPool(d, pool, nullptr);
  for (HostBuffer* b : {&src, &dst1, &dst2, &uniform}) h.Destroy(*b);
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "descriptor sets converted"), 4u) << rig.summary;
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), 3u) << rig.summary;
}

TEST(BindingsOwnedSets, FreeAndReallocate) {
  Rig rig;
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  // Room for more storage descriptors than maxSets sets use: the slots run out first.
  VkDescriptorPool pool = MakePool(d, 3, VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, 4);
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, 1, &rig.owned_layout);
  VkDescriptorSet a = VK_NULL_HANDLE, b = VK_NULL_HANDLE, c = VK_NULL_HANDLE, native = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &a), VK_SUCCESS);
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &b), VK_SUCCESS);
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &c), VK_SUCCESS);
  // The pool's maxSets layer-owned sets are out: the next one must fail as the spec allows.
  VkDescriptorSet extra = VK_NULL_HANDLE;
  EXPECT_EQ(vkAllocateDescriptorSets(d, &alloc, &extra), VK_ERROR_OUT_OF_POOL_MEMORY);
  EXPECT_EQ(extra, VK_NULL_HANDLE);
  alloc.pSetLayouts = &rig.native_layout;
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &native), VK_SUCCESS);
  // One free call with a layer-owned set, a native set and a null handle.
  VkDescriptorSet to_free[3] = {b, native, VK_NULL_HANDLE};
  ASSERT_EQ(vkFreeDescriptorSets(d, pool, 3, to_free), VK_SUCCESS);
  alloc.pSetLayouts = &rig.owned_layout;
  VkDescriptorSet again = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &again), VK_SUCCESS);

  HostBuffer src = rig.Filled(5), dst_a = rig.Filled(0), dst_again = rig.Filled(0);
  WriteBuffers(d, a, src.buffer, dst_a.buffer);
  WriteBuffers(d, again, src.buffer, dst_again.buffer);
  rig.Run(again, false);
  ExpectCopied(src, dst_again, "reallocated set");
  rig.Run(a, false);  // the set allocated before the free is untouched by it
  ExpectCopied(src, dst_a, "set allocated before the free");

  VkDescriptorSet rest[3] = {a, c, again};
  EXPECT_EQ(vkFreeDescriptorSets(d, pool, 3, rest), VK_SUCCESS);
  vkDestroyDescriptorPool(d, pool, nullptr);
  for (HostBuffer* x : {&src, &dst_a, &dst_again}) h.Destroy(*x);
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), 4u) << rig.summary;
}

// A call that cannot allocate all its sets allocates none, and gives back what it had
// taken (slots and records) before failing.
TEST(BindingsOwnedSets, FailedAllocationGivesEverythingBack) {
  Rig rig;
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  VkDescriptorPool pool = MakePool(d, 2, 0, 4);
  // A native set (records taken first) and three layer-owned sets from a pool of two
  // slots: the third owned set fails, and the call takes nothing.
  VkDescriptorSetLayout layouts[4] = {rig.native_layout, rig.owned_layout, rig.owned_layout, rig.owned_layout};
  VkDescriptorSet sets[4] = {};
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, 4, layouts);
  EXPECT_EQ(vkAllocateDescriptorSets(d, &alloc, sets), VK_ERROR_OUT_OF_POOL_MEMORY);
  for (VkDescriptorSet s : sets) EXPECT_EQ(s, VK_NULL_HANDLE);
  // Everything came back: the pool's two layer-owned sets and a native one can be had now.
  VkDescriptorSetLayout three[3] = {rig.owned_layout, rig.owned_layout, rig.native_layout};
  alloc.descriptorSetCount = 3;
  alloc.pSetLayouts = three;
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, sets), VK_SUCCESS);
  HostBuffer src = rig.Filled(21), dst = rig.Filled(0);
  WriteBuffers(d, sets[1], src.buffer, dst.buffer);
  rig.Run(sets[1], false);
  ExpectCopied(src, dst, "set allocated after the failed call");
  vkDestroyDescriptorPool(d, pool, nullptr);
  h.Destroy(src);
  h.Destroy(dst);
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), 2u) << rig.summary;
}

TEST(BindingsOwnedSets, ResetGivesEverySetBack) {
  Rig rig;
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  constexpr uint32_t kSets = 8;
  VkDescriptorPool pool = MakePool(d, kSets, 0);
  std::vector<VkDescriptorSetLayout> layouts(kSets, rig.owned_layout);
  layouts[3] = rig.native_layout;  // a native set in the same pool is reset too
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, kSets, layouts.data());
  HostBuffer src = rig.Filled(9), dst = rig.Filled(0);
  for (int round = 0; round < 3; ++round) {
    std::vector<VkDescriptorSet> sets(kSets);
    ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, sets.data()), VK_SUCCESS) << "round " << round;
    WriteBuffers(d, sets[kSets - 1], src.buffer, dst.buffer);
    std::memset(dst.mapped, 0, kWords * 4);
    rig.Run(sets[kSets - 1], false);
    ExpectCopied(src, dst, "set allocated after a reset");
    ASSERT_EQ(vkResetDescriptorPool(d, pool, 0), VK_SUCCESS);
  }
  vkDestroyDescriptorPool(d, pool, nullptr);
  h.Destroy(src);
  h.Destroy(dst);
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), 3u * (kSets - 1)) << rig.summary;
}

TEST(BindingsOwnedSets, DebugNamesAndPrivateData) {
  Rig rig(WithPrivateData());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  VkDescriptorPool pool = MakePool(d, 4, VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT);
  VkDescriptorSetLayout layouts[2] = {rig.owned_layout, rig.native_layout};
  VkDescriptorSet sets[2] = {};
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, 2, layouts);
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, sets), VK_SUCCESS);

  for (VkDescriptorSet set : sets) {
    NameAndTag(d, VK_OBJECT_TYPE_DESCRIPTOR_SET, reinterpret_cast<uint64_t>(set), "a named set");
  }

  VkPrivateDataSlotCreateInfo slot_info{VK_STRUCTURE_TYPE_PRIVATE_DATA_SLOT_CREATE_INFO};
  VkPrivateDataSlot slots[2] = {};
  ASSERT_EQ(vkCreatePrivateDataSlot(d, &slot_info, nullptr, &slots[0]), VK_SUCCESS);
  ASSERT_EQ(vkCreatePrivateDataSlot(d, &slot_info, nullptr, &slots[1]), VK_SUCCESS);
  for (uint32_t s = 0; s < 2; ++s) {
    for (uint32_t i = 0; i < 2; ++i) {
      EXPECT_EQ(vkSetPrivateData(d, VK_OBJECT_TYPE_DESCRIPTOR_SET, reinterpret_cast<uint64_t>(sets[i]), slots[s],
                                 1000 * (s + 1) + i),
                VK_SUCCESS);
    }
  }
  for (uint32_t s = 0; s < 2; ++s) {
    for (uint32_t i = 0; i < 2; ++i) {
      uint64_t value = 0;
      vkGetPrivateData(d, VK_OBJECT_TYPE_DESCRIPTOR_SET, reinterpret_cast<uint64_t>(sets[i]), slots[s], &value);
      EXPECT_EQ(value, 1000 * (s + 1) + i) << "slot " << s << " set " << i;
    }
  }
  // A freed layer-owned set's data goes with it: the set reallocated in its place reads 0.
  ASSERT_EQ(vkFreeDescriptorSets(d, pool, 1, &sets[0]), VK_SUCCESS);
  alloc.descriptorSetCount = 1;
  VkDescriptorSet again = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &again), VK_SUCCESS);
  uint64_t value = 1;
  vkGetPrivateData(d, VK_OBJECT_TYPE_DESCRIPTOR_SET, reinterpret_cast<uint64_t>(again), slots[0], &value);
  EXPECT_EQ(value, 0u);

  vkDestroyPrivateDataSlot(d, slots[0], nullptr);
  vkDestroyPrivateDataSlot(d, slots[1], nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), 2u) << rig.summary;
}

// Update templates on converting layouts are the layer's own objects too: names and tags go
// to the native template beneath (or nowhere when every entry converts), private data stays
// in the layer. Validation below reports any handle it does not know
// (VUID-VkDebugUtilsObjectNameInfoEXT-objectType-02590), and the templates still update
// sets that dispatch correctly.
TEST(BindingsOwnedSets, TemplateNamesTagsAndPrivateData) {
  Rig rig(WithPrivateData());
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  auto instance_set_name = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
      vkGetInstanceProcAddr(h.instance(), "vkSetDebugUtilsObjectNameEXT"));
  ASSERT_NE(instance_set_name, nullptr);

  // [0]: every entry converts (no native template); [1]: a uniform buffer stays native.
  const VkDescriptorUpdateTemplateEntry entries[2] = {
      {0, 0, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 0, sizeof(VkDescriptorBufferInfo)},
      {2, 0, 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2 * sizeof(VkDescriptorBufferInfo), sizeof(VkDescriptorBufferInfo)}};
  VkDescriptorUpdateTemplate templates[2] = {};
  for (uint32_t i = 0; i < 2; ++i) {
    VkDescriptorUpdateTemplateCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO};
    info.descriptorUpdateEntryCount = i == 0 ? 1 : 2;
    info.pDescriptorUpdateEntries = entries;
    info.templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET;
    info.descriptorSetLayout = i == 0 ? rig.owned_layout : rig.native_layout;
    ASSERT_EQ(vkCreateDescriptorUpdateTemplate(d, &info, nullptr, &templates[i]), VK_SUCCESS);
  }
  VkPrivateDataSlotCreateInfo slot_info{VK_STRUCTURE_TYPE_PRIVATE_DATA_SLOT_CREATE_INFO};
  VkPrivateDataSlot slot = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePrivateDataSlot(d, &slot_info, nullptr, &slot), VK_SUCCESS);
  for (uint32_t i = 0; i < 2; ++i) {
    const uint64_t handle = reinterpret_cast<uint64_t>(templates[i]);
    NameAndTag(d, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, handle, "a named template");
    // The same name through the entry point got from the instance.
    const VkDebugUtilsObjectNameInfoEXT name =
        NameInfo(VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, handle, "a named template");
    EXPECT_EQ(instance_set_name(d, &name), VK_SUCCESS);
    EXPECT_EQ(vkSetPrivateData(d, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, handle, slot, 500 + i), VK_SUCCESS);
  }
  for (uint32_t i = 0; i < 2; ++i) {
    uint64_t value = 0;
    vkGetPrivateData(d, VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE, reinterpret_cast<uint64_t>(templates[i]), slot,
                     &value);
    EXPECT_EQ(value, 500u + i) << "template " << i;
  }

  // The templates still write sets the pipelines read.
  VkDescriptorPool pool = MakePool(d, 2, 0);
  VkDescriptorSetLayout layouts[2] = {rig.owned_layout, rig.native_layout};
  VkDescriptorSet sets[2] = {};
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, 2, layouts);
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, sets), VK_SUCCESS);
  HostBuffer src = rig.Filled(5), dst[2] = {rig.Filled(0), rig.Filled(0)}, uniform = rig.Uniform();
  for (uint32_t i = 0; i < 2; ++i) {
    const VkDescriptorBufferInfo data[3] = {
        {src.buffer, 0, VK_WHOLE_SIZE}, {dst[i].buffer, 0, VK_WHOLE_SIZE}, {uniform.buffer, 0, VK_WHOLE_SIZE}};
    vkUpdateDescriptorSetWithTemplate(d, sets[i], templates[i], data);
    rig.Run(sets[i], i == 1);
    ExpectCopied(src, dst[i], i == 0 ? "layer-owned set" : "native set");
  }
  for (VkDescriptorUpdateTemplate t : templates) vkDestroyDescriptorUpdateTemplate(d, t, nullptr);
  vkDestroyPrivateDataSlot(d, slot, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  for (HostBuffer* b : {&src, &dst[0], &dst[1], &uniform}) h.Destroy(*b);
  rig.Finish();
}

// A pipeline layout whose push constants leave no room for the root: its root goes to the
// reserved set (the command buffer's ring), binds through it send only native sets and the
// reserved set down (a layer-owned set must not reach the layer below), and the dispatch
// reads the set through the ring's root. (A layer-owned set materialised for a pipeline
// that falls back: BindingsFallback.*, whose set is layer-owned too.)
TEST(BindingsOwnedSets, LayoutWithoutRoomForTheRootUsesTheReservedSet) {
  Rig rig;
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(h.physical_device(), &props);
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, props.limits.maxPushConstantsSize};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &rig.owned_layout;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  VkPipelineLayout full = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePipelineLayout(d, &plci, nullptr, &full), VK_SUCCESS);
  VkPipeline pipeline = rig.Pipeline(full);
  ASSERT_NE(pipeline, VK_NULL_HANDLE);
  VkDescriptorPool pool = MakePool(d, 2, 0);
  VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(pool, 1, &rig.owned_layout);
  VkDescriptorSet set = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateDescriptorSets(d, &alloc, &set), VK_SUCCESS);
  HostBuffer src = rig.Filled(13), dst = rig.Filled(0);
  WriteBuffers(d, set, src.buffer, dst.buffer);
  VkCommandBuffer cb = h.BeginCommands();
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, full, 0, 1, &set, 0, nullptr);
  vkCmdDispatch(cb, kWords / 64, 1, 1);
  BarrierToHost(cb);
  ASSERT_EQ(h.SubmitAndWait(cb), VK_SUCCESS);
  ExpectCopied(src, dst, "pipeline with its root in the reserved set");
  vkDestroyPipeline(d, pipeline, nullptr);
  vkDestroyPipelineLayout(d, full, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  h.Destroy(src);
  h.Destroy(dst);
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "fallen back"), 0u) << rig.summary;
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), 1u) << rig.summary;
  EXPECT_GT(SummaryCounter(rig.summary, "root ring bytes"), 0u) << rig.summary;
  EXPECT_NE(SummaryCounter(rig.summary, "root ring bytes"), ~0ull) << rig.summary;
}

// Threads allocating from their own pools, resetting them and recording at once; the
// last round of each is submitted and checked.
TEST(BindingsOwnedSets, ManyThreadsAllocateResetAndRecord) {
  Rig rig;
  ASSERT_TRUE(rig.ok()) << rig.h->error();
  VkHarness& h = *rig.h;
  VkDevice d = h.device();
  constexpr uint32_t kThreads = 4, kRounds = 20, kSets = 16;
  struct Worker {
    HostBuffer src, dst;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkCommandPool command_pool = VK_NULL_HANDLE;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    std::string error;
  };
  std::vector<Worker> workers(kThreads);
  for (uint32_t t = 0; t < kThreads; ++t) {
    Worker& w = workers[t];
    w.src = rig.Filled(t + 2);
    w.dst = h.CreateHostBuffer(kSets * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    std::memset(w.dst.mapped, 0, kSets * kWords * 4);
    w.pool = MakePool(d, kSets, 0);
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpi.queueFamilyIndex = h.queue_family();
    ASSERT_EQ(vkCreateCommandPool(d, &cpi, nullptr, &w.command_pool), VK_SUCCESS);
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = w.command_pool;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    ASSERT_EQ(vkAllocateCommandBuffers(d, &cbai, &w.cb), VK_SUCCESS);
  }
  auto record = [&](Worker& w) {
    for (uint32_t round = 0; round < kRounds; ++round) {
      if (vkResetDescriptorPool(d, w.pool, 0) != VK_SUCCESS) w.error = "pool reset failed";
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      vkResetCommandBuffer(w.cb, 0);
      vkBeginCommandBuffer(w.cb, &begin);
      vkCmdBindPipeline(w.cb, VK_PIPELINE_BIND_POINT_COMPUTE, rig.owned_pipeline);
      for (uint32_t j = 0; j < kSets; ++j) {
        VkDescriptorSetAllocateInfo alloc = SetAllocateInfo(w.pool, 1, &rig.owned_layout);
        VkDescriptorSet set = VK_NULL_HANDLE;
        if (vkAllocateDescriptorSets(d, &alloc, &set) != VK_SUCCESS) {
          w.error = "set allocation failed in round " + std::to_string(round);
          return;
        }
        VkDescriptorBufferInfo infos[2] = {{w.src.buffer, 0, VK_WHOLE_SIZE}, {w.dst.buffer, j * kWords * 4, kWords * 4}};
        VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        write.dstSet = set;
        write.descriptorCount = 2;
        write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        write.pBufferInfo = infos;
        vkUpdateDescriptorSets(d, 1, &write, 0, nullptr);
        vkCmdBindDescriptorSets(w.cb, VK_PIPELINE_BIND_POINT_COMPUTE, rig.owned_pl, 0, 1, &set, 0, nullptr);
        vkCmdDispatch(w.cb, kWords / 64, 1, 1);
      }
      BarrierToHost(w.cb);
      if (vkEndCommandBuffer(w.cb) != VK_SUCCESS) w.error = "vkEndCommandBuffer failed";
    }
  };
  std::vector<std::thread> threads;
  for (Worker& w : workers) threads.emplace_back([&] { record(w); });
  for (std::thread& t : threads) t.join();
  std::vector<VkCommandBuffer> cbs;
  for (const Worker& w : workers) {
    ASSERT_TRUE(w.error.empty()) << w.error;
    cbs.push_back(w.cb);
  }
  ASSERT_EQ(cbs.size(), kThreads);
  ASSERT_EQ(SubmitAndWaitIdle(h.queue(), cbs), VK_SUCCESS);
  for (uint32_t t = 0; t < kThreads; ++t) {
    const uint32_t* src = static_cast<const uint32_t*>(workers[t].src.mapped);
    const uint32_t* dst = static_cast<const uint32_t*>(workers[t].dst.mapped);
    for (uint32_t j = 0; j < kSets; ++j) {
      for (uint32_t i = 0; i < kWords; ++i) {
        ASSERT_EQ(dst[j * kWords + i], src[i] * 3 + 1) << "thread " << t << " set " << j << " word " << i;
      }
    }
  }
  for (Worker& w : workers) {
    vkDestroyCommandPool(d, w.command_pool, nullptr);
    vkDestroyDescriptorPool(d, w.pool, nullptr);
    h.Destroy(w.src);
    h.Destroy(w.dst);
  }
  rig.Finish();
  EXPECT_EQ(SummaryCounter(rig.summary, "layer-owned"), uint64_t{kThreads} * kRounds * kSets) << rig.summary;
}

}  // namespace
}  // namespace bindery::test
