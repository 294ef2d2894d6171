// Descriptor copies between converted and native bindings, mixed with writes in one
// vkUpdateDescriptorSets call. Under auto on a driver whose per-stage storage-buffer limit
// is below 41, a 41-buffer layout converts while a two-buffer layout stays native: a copy
// from the native set into the converted one must carry the buffer the application wrote
// there (the driver's descriptor cannot be read back: the layer keeps native sets' buffer
// descriptors), and a copy from the converted set into a native one must become a native
// write. Forced, both layouts convert (copies between layer-owned sets). Results as the
// shaders compute them, validation silent.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "integration/test_env.h"
#include "many_buffers_comp.h"
#include "support/vk_objects.h"
#include "twin_copy_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;
constexpr uint32_t kArray = 40;  // many_buffers.comp: b[40] at binding 0, the sum at binding 1

struct Result : ModeRunResult {
  uint32_t sum = 0;              // many_buffers over the converted set
  std::vector<uint32_t> copied;  // twin_copy over the native set
};

Result RunMixedCopies(const char* mode) {
  return RunWithBindings<Result>(mode, HarnessOptions{}, [](VkHarness& h, Result& r) {
    VkDevice d = h.device();
    // Layout "small" (native under auto): src, dst. Layout "big" (converts): b[40], out.
    ObjectBag bag(d);
    const VkDescriptorSetLayout small =
        bag.Keep(CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                     {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkDescriptorSetLayout big = bag.Keep(
        CreateSetLayout(d, {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kArray, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                            {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}}));
    const VkPipelineLayout small_pl = bag.Keep(CreatePipelineLayout(d, {small}));
    const VkPipelineLayout big_pl = bag.Keep(CreatePipelineLayout(d, {big}));
    const VkPipeline copy_pipeline =
        bag.Keep(CreateComputePipeline(d, small_pl, twin_copy_comp, sizeof(twin_copy_comp)));
    const VkPipeline sum_pipeline =
        bag.Keep(CreateComputePipeline(d, big_pl, many_buffers_comp, sizeof(many_buffers_comp)));
    if (copy_pipeline == VK_NULL_HANDLE || sum_pipeline == VK_NULL_HANDLE) r.error = "pipeline creation failed";

    std::vector<HostBuffer> array;
    for (uint32_t i = 0; i < kArray; ++i) {
      array.push_back(h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT));
      for (uint32_t w = 0; w < kWords; ++w) static_cast<uint32_t*>(array.back().mapped)[w] = 100 * i + w + 1;
    }
    HostBuffer x = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);  // reaches the big set by copy
    HostBuffer y = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    HostBuffer z = h.CreateHostBuffer(kBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);  // the native dispatch's output
    HostBuffer sum = h.CreateHostBuffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    for (uint32_t w = 0; w < kWords; ++w) static_cast<uint32_t*>(x.mapped)[w] = 7000 + w;
    std::memset(y.mapped, 0, kBytes);
    std::memset(z.mapped, 0, kBytes);
    std::memset(sum.mapped, 0, 16);

    const VkDescriptorPool pool =
        bag.Keep(CreateDescriptorPool(d, 3, {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * 2 + kArray + 1}}));
    const VkDescriptorSetLayout layouts[3] = {small, big, small};
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 3;
    dsai.pSetLayouts = layouts;
    VkDescriptorSet sets[3] = {};  // native source, converted set, native destination
    if (vkAllocateDescriptorSets(d, &dsai, sets) != VK_SUCCESS) r.error = "set allocation failed";

    // One call: writes (the big set's element 7 left to the copy), then two copies.
    std::vector<VkDescriptorBufferInfo> array_infos;
    for (const HostBuffer& b : array) array_infos.push_back({b.buffer, 0, VK_WHOLE_SIZE});
    const VkDescriptorBufferInfo xy[2] = {{x.buffer, 0, VK_WHOLE_SIZE}, {y.buffer, 0, VK_WHOLE_SIZE}};
    const VkDescriptorBufferInfo sum_info{sum.buffer, 0, VK_WHOLE_SIZE};
    const VkDescriptorBufferInfo z_info{z.buffer, 0, VK_WHOLE_SIZE};
    std::vector<VkWriteDescriptorSet> writes;
    auto write = [&](VkDescriptorSet set, uint32_t binding, uint32_t element, uint32_t count,
                     const VkDescriptorBufferInfo* infos) {
      writes.push_back(BufferWrite(set, binding, element, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, infos, count));
    };
    write(sets[0], 0, 0, 2, xy);
    write(sets[1], 0, 0, 7, array_infos.data());
    write(sets[1], 0, 8, kArray - 8, array_infos.data() + 8);
    write(sets[1], 1, 0, 1, &sum_info);
    write(sets[2], 1, 0, 1, &z_info);
    VkCopyDescriptorSet copies[2] = {{VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET}};
    copies[0].srcSet = sets[0];  // native -> converted: x becomes b[7]
    copies[0].srcBinding = 0;
    copies[0].dstSet = sets[1];
    copies[0].dstBinding = 0;
    copies[0].dstArrayElement = 7;
    copies[0].descriptorCount = 1;
    copies[1].srcSet = sets[1];  // converted -> native: b[3] becomes the copy kernel's source
    copies[1].srcBinding = 0;
    copies[1].srcArrayElement = 3;
    copies[1].dstSet = sets[2];
    copies[1].dstBinding = 0;
    copies[1].descriptorCount = 1;
    if (r.error.empty()) {
      vkUpdateDescriptorSets(d, static_cast<uint32_t>(writes.size()), writes.data(), 2, copies);
      VkCommandBuffer cb = h.BeginCommands();
      RecordDispatch(cb, sum_pipeline, big_pl, {sets[1]});
      RecordDispatch(cb, copy_pipeline, small_pl, {sets[2]}, kWords / 64);
      BarrierToHost(cb);
      if (h.SubmitAndWait(cb) != VK_SUCCESS) r.error = "submit failed";
      r.sum = static_cast<const uint32_t*>(sum.mapped)[0];
      const uint32_t* p = static_cast<const uint32_t*>(z.mapped);
      r.copied.assign(p, p + kWords);
    }
    bag.DestroyAll();
    for (HostBuffer& b : array) h.Destroy(b);
    for (HostBuffer* b : {&x, &y, &z, &sum}) h.Destroy(*b);
  });
}

class MixedCopies : public testing::TestWithParam<const char*> {};

TEST_P(MixedCopies, BothDirectionsWithWritesInOneCall) {
  if (std::string(GetParam()) == "auto") {
    const uint32_t limit = DriverLimits().maxPerStageDescriptorStorageBuffers;
    ASSERT_NE(limit, 0u) << "no device to read the driver's limits from";
    if (limit >= kArray + 1) {
      GTEST_SKIP() << "the driver allows " << limit << " storage buffers per stage: the big layout would not convert "
                   << "under auto";
    }
  }
  // (No run without the layer: 41 storage buffers in one stage are beyond the driver.)
  const Result r = RunMixedCopies(GetParam());
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.validation.empty()) << r.validation;
  uint32_t expected = 0;
  for (uint32_t i = 0; i < kArray; ++i) expected += (i == 7 ? 7000u : 100 * i + 1) * (i + 1);
  EXPECT_EQ(r.sum, expected) << "the copy from the native set did not carry its buffer";
  ASSERT_EQ(r.copied.size(), kWords);
  for (uint32_t w = 0; w < kWords; ++w) {
    ASSERT_EQ(r.copied[w], (300 + w + 1) * 2 + 1) << "the copy into the native set, word " << w;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, MixedCopies, testing::Values("force", "auto"),
                         [](const testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace bindery::test
