// Issue 9 part 3: a pipeline the rewrite refuses (a descriptor array sized by a
// specialization constant) runs natively, its sets materialised from the shadow, and the
// program gives the right result — also when converted pipelines use the same bound sets
// before and after it in one command buffer. Forced vs off: byte-identical, validation
// silent, and the summary counts one fallback and the rewritten pipelines.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>

#include "fallback_partner_comp.h"
#include "fallback_refused_comp.h"
#include "integration/test_env.h"

namespace bindery::test {
namespace {

constexpr uint32_t kWords = 256;

struct Output {
  std::string error, validation, summary;
  std::vector<uint32_t> out;
};

uint64_t Counter(const std::string& summary, const std::string& name) {
  std::smatch m;
  const std::regex re(name + " (\\d+)");
  return std::regex_search(summary, m, re) ? std::stoull(m[1]) : ~0ull;
}

Output RunInMode(const char* mode, bool validate = false) {
  ScopedEnv bindings("BINDERY_INDIRECT_BINDINGS", mode);
  ScopedEnv validation("BINDERY_BINDINGS_VALIDATE", validate ? "on" : "off");
  ScopedEnv level("BINDERY_LOG_LEVEL", "info");
  Output o;
  VkHarness h;
  if (!h.ok()) {
    o.error = h.error();
    return o;
  }
  VkDevice d = h.device();
  HostBuffer in0 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer in1 = h.CreateHostBuffer(kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  HostBuffer out = h.CreateHostBuffer(3 * kWords * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  for (uint32_t i = 0; i < kWords; ++i) {
    static_cast<uint32_t*>(in0.mapped)[i] = i + 1;
    static_cast<uint32_t*>(in1.mapped)[i] = 1000 + 3 * i;
  }
  std::memset(out.mapped, 0, 3 * kWords * 4);

  VkDescriptorSetLayoutBinding b[2] = {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                       {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = 2;
  dslci.pBindings = b;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  vkCreateDescriptorSetLayout(d, &dslci, nullptr, &set_layout);
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  vkCreatePipelineLayout(d, &plci, nullptr, &layout);

  auto pipeline = [&](const uint32_t* code, size_t bytes, uint32_t base) {
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = bytes;
    smci.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    vkCreateShaderModule(d, &smci, nullptr, &m);
    VkSpecializationMapEntry entry{1, 0, 4};
    VkSpecializationInfo spec{1, &entry, 4, &base};
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = m;
    cpci.stage.pName = "main";
    cpci.stage.pSpecializationInfo = base != 0 ? &spec : nullptr;
    cpci.layout = layout;
    VkPipeline p = VK_NULL_HANDLE;
    if (vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &cpci, nullptr, &p) != VK_SUCCESS) o.error = "pipeline creation failed";
    vkDestroyShaderModule(d, m, nullptr);
    return p;
  };
  VkPipeline refused = pipeline(fallback_refused_comp, sizeof(fallback_refused_comp), 0);
  VkPipeline before = pipeline(fallback_partner_comp, sizeof(fallback_partner_comp), kWords);
  VkPipeline after = pipeline(fallback_partner_comp, sizeof(fallback_partner_comp), 2 * kWords);

  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  vkCreateDescriptorPool(d, &dpci, nullptr, &pool);
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  vkAllocateDescriptorSets(d, &dsai, &set);
  VkDescriptorBufferInfo infos[3] = {{in0.buffer, 0, VK_WHOLE_SIZE}, {in1.buffer, 0, VK_WHOLE_SIZE}, {out.buffer, 0, VK_WHOLE_SIZE}};
  VkWriteDescriptorSet w[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
  w[0].dstSet = set;
  w[0].dstBinding = 0;
  w[0].descriptorCount = 2;
  w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w[0].pBufferInfo = infos;
  w[1] = w[0];
  w[1].dstBinding = 1;
  w[1].descriptorCount = 1;
  w[1].pBufferInfo = &infos[2];
  vkUpdateDescriptorSets(d, 2, w, 0, nullptr);

  if (o.error.empty()) {
    // Converted, fallback, converted: all from the one bind.
    VkCommandBuffer cb = h.BeginCommands();
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, before);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, refused);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, after);
    vkCmdDispatch(cb, kWords / 64, 1, 1);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
                         nullptr, 0, nullptr);
    if (h.SubmitAndWait(cb) != VK_SUCCESS) o.error = "submit failed";
    const uint32_t* p = static_cast<const uint32_t*>(out.mapped);
    o.out.assign(p, p + 3 * kWords);
  }
  for (VkPipeline p : {refused, before, after}) vkDestroyPipeline(d, p, nullptr);
  vkDestroyDescriptorPool(d, pool, nullptr);
  vkDestroyPipelineLayout(d, layout, nullptr);
  vkDestroyDescriptorSetLayout(d, set_layout, nullptr);
  for (HostBuffer* x : {&in0, &in1, &out}) h.Destroy(*x);
  h.DestroyDevice();
  o.validation = VkHarness::Format(h.ValidationProblems());
  for (const Message& m : h.BinderyMessages()) {
    if (m.id == "BINDERY-summary") o.summary = m.text;
  }
  return o;
}

TEST(BindingsFallback, RefusedShaderRunsNativelyBetweenConvertedOnes) {
  const Output native = RunInMode("off");
  const Output forced = RunInMode("force");
  ASSERT_TRUE(native.error.empty()) << native.error;
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  EXPECT_TRUE(native.validation.empty()) << native.validation;
  EXPECT_TRUE(forced.validation.empty()) << forced.validation;
  EXPECT_EQ(Counter(forced.summary, "fallen back"), 1u) << forced.summary;
  EXPECT_EQ(Counter(forced.summary, "pipelines rewritten"), 2u) << forced.summary;
  EXPECT_EQ(Counter(forced.summary, "layer-owned"), 1u) << forced.summary;  // materialised from a layer-owned set
  ASSERT_EQ(native.out.size(), 3 * kWords);
  for (uint32_t i = 0; i < kWords; ++i) {
    const uint32_t a = i + 1, b = 1000 + 3 * i;
    ASSERT_EQ(native.out[i], a + 2 * b) << i;
    ASSERT_EQ(native.out[kWords + i], 3 * a + b) << i;
    ASSERT_EQ(native.out[2 * kWords + i], 3 * a + b) << i;
  }
  EXPECT_EQ(native.out, forced.out);
}

// The summary names why the pipeline fell back, counted; and with bindings_validate on,
// every rewritten module (the partner specialized two ways) passes spirv-val, so the same
// pipelines are rewritten and the results are the same.
TEST(BindingsFallback, ReasonsAreCountedAndValidatedRewritesStand) {
  const Output forced = RunInMode("force");
  const Output validated = RunInMode("force", true);
  ASSERT_TRUE(forced.error.empty()) << forced.error;
  ASSERT_TRUE(validated.error.empty()) << validated.error;
  EXPECT_TRUE(validated.validation.empty()) << validated.validation;
  EXPECT_NE(forced.summary.find("fallen back 1: {not converted: descriptor array sized by a specialization constant \u00d7 1}"),
            std::string::npos)
      << forced.summary;
  EXPECT_EQ(Counter(validated.summary, "fallen back"), 1u) << validated.summary;
  EXPECT_EQ(Counter(validated.summary, "pipelines rewritten"), 2u) << validated.summary;
  EXPECT_EQ(validated.out, forced.out);
}

}  // namespace
}  // namespace bindery::test
