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
#include "twin_copy_comp.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;
constexpr VkDeviceSize kBytes = kWords * 4;
constexpr uint32_t kArray = 40;  // many_buffers.comp: b[40] at binding 0, the sum at binding 1

struct Result {
  std::string error;
  uint32_t sum = 0;              // many_buffers over the converted set
  std::vector<uint32_t> copied;  // twin_copy over the native set
};

void HostBarrier(VkCommandBuffer cb) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

VkPipeline Pipeline(VkDevice d, const uint32_t* code, size_t bytes, VkPipelineLayout layout) {
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = bytes;
  smci.pCode = code;
  VkShaderModule m = VK_NULL_HANDLE;
  vkCreateShaderModule(d, &smci, nullptr, &m);
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = m;
  cpci.stage.pName = "main";
  cpci.layout = layout;
  VkPipeline p = VK_NULL_HANDLE;
  vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &p);
  vkDestroyShaderModule(d, m, nullptr);
  return p;
}

Result RunMixedCopies(const char* mode, std::string* validation) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  auto owned = std::make_unique<VkHarness>();
  VkHarness& h = *owned;
  Result r;
  if (!h.ok()) {
    r.error = h.error();
    return r;
  }
  VkDevice d = h.device();
  // Layout "small" (native under auto): src, dst. Layout "big" (converts): b[40], out.
  const VkDescriptorSetLayoutBinding small_bindings[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  const VkDescriptorSetLayoutBinding big_bindings[2] = {
      {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kArray, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
      {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayout small = VK_NULL_HANDLE, big = VK_NULL_HANDLE;
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 2;
  dslci.pBindings = small_bindings;
  vkCreateDescriptorSetLayout(d, &dslci, nullptr, &small);
  dslci.pBindings = big_bindings;
  vkCreateDescriptorSetLayout(d, &dslci, nullptr, &big);
  VkPipelineLayout small_pl = VK_NULL_HANDLE, big_pl = VK_NULL_HANDLE;
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &small;
  vkCreatePipelineLayout(d, &plci, nullptr, &small_pl);
  plci.pSetLayouts = &big;
  vkCreatePipelineLayout(d, &plci, nullptr, &big_pl);
  VkPipeline copy_pipeline = Pipeline(d, twin_copy_comp, sizeof(twin_copy_comp), small_pl);
  VkPipeline sum_pipeline = Pipeline(d, many_buffers_comp, sizeof(many_buffers_comp), big_pl);
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

  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * 2 + kArray + 1};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 3;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vkCreateDescriptorPool(d, &dpci, nullptr, &pool);
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
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set;
    w.dstBinding = binding;
    w.dstArrayElement = element;
    w.descriptorCount = count;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = infos;
    writes.push_back(w);
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
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, sum_pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, big_pl, 0, 1, &sets[1], 0, nullptr);
    vkCmdDispatch(cb, 1, 1, 1);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, copy_pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, small_pl, 0, 1, &sets[2], 0, nullptr);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    HostBarrier(cb);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) r.error = "submit failed";
    r.sum = static_cast<const uint32_t*>(sum.mapped)[0];
    const uint32_t* p = static_cast<const uint32_t*>(z.mapped);
    r.copied.assign(p, p + kWords);
  }
  vkDestroyDescriptorPool(d, pool, nullptr);
  for (VkPipeline p : {copy_pipeline, sum_pipeline}) vkDestroyPipeline(d, p, nullptr);
  for (VkPipelineLayout l : {small_pl, big_pl}) vkDestroyPipelineLayout(d, l, nullptr);
  for (VkDescriptorSetLayout l : {small, big}) vkDestroyDescriptorSetLayout(d, l, nullptr);
  for (HostBuffer& b : array) h.Destroy(b);
  for (HostBuffer* b : {&x, &y, &z, &sum}) h.Destroy(*b);
  h.DestroyDevice();
  *validation = VkHarness::Format(h.ValidationProblems());
  return r;
}

class MixedCopies : public testing::TestWithParam<const char*> {};

TEST_P(MixedCopies, BothDirectionsWithWritesInOneCall) {
  if (std::string(GetParam()) == "auto") {
    ScopedEnv off("BINDERY_INDIRECT_BINDINGS", "off");
    VkHarness probe;
    ASSERT_TRUE(probe.ok()) << probe.error();
    VkPhysicalDeviceProperties props{};
    vkGetPhysicalDeviceProperties(probe.physical_device(), &props);
    if (props.limits.maxPerStageDescriptorStorageBuffers >= kArray + 1) {
      GTEST_SKIP() << "the driver allows " << props.limits.maxPerStageDescriptorStorageBuffers
                   << " storage buffers per stage: the big layout would not convert under auto";
    }
  }
  // (No run without the layer: 41 storage buffers in one stage are beyond the driver.)
  std::string validation;
  const Result r = RunMixedCopies(GetParam(), &validation);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(validation.empty()) << validation;
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
