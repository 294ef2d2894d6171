// Graphics stages: a vertex and a fragment shader that read and write
// storage buffers are rewritten with ONE shared layout (the argument block a pipeline
// would bind), each passes spirv-val, and lavapipe builds a graphics pipeline from the two
// rewritten modules under the validation layer: push-constant range over both stages,
// the uniform buffer left a descriptor. Not executed (that comes with the layer).
#include <gtest/gtest.h>

#include <algorithm>

#include "support/vk_objects.h"
#include "compute_run.h"
#include "corpus_entry.h"
#include "exec_device.h"
#include "rewrite_case.h"
#include "spirv_validate.h"

namespace bindery::spirv_exec {
namespace {

std::vector<uint32_t> Compiled(const std::string& file) {
  std::string error;
  return LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/" + file + ".spv", error);
}

// The union of both stages' storage buffers, one record per binding, root at offset 0.
spirv::RewriteOptions SharedLayout(const std::vector<spirv::ModuleInfo>& infos, bool int64) {
  std::vector<std::pair<uint32_t, uint32_t>> bindings;
  for (const spirv::ModuleInfo& info : infos) {
    for (const spirv::EntryPointInfo& ep : info.entry_points) {
      for (const spirv::ResourceInfo& r : ep.resources) {
        if (r.kind == spirv::ResourceKind::kStorageBuffer) bindings.emplace_back(r.set, r.binding);
      }
    }
  }
  std::sort(bindings.begin(), bindings.end());
  bindings.erase(std::unique(bindings.begin(), bindings.end()), bindings.end());
  spirv::RewriteOptions options;
  options.target = spirv::TargetEnv::kVulkan1_2;
  options.shader_int64 = int64;
  for (const auto& [set, binding] : bindings) {
    if (options.sets.empty() || options.sets.back().set != set) {
      spirv::SetLayout s;
      s.set = set;
      s.root_offset = 8 * static_cast<uint32_t>(options.sets.size());
      options.sets.push_back(s);
    }
    spirv::BindingLayout b;
    b.binding = binding;
    b.first_record = static_cast<uint32_t>(options.sets.back().bindings.size());
    options.sets.back().bindings.push_back(b);
  }
  return options;
}

class GraphicsStages : public testing::TestWithParam<bool> {};

TEST_P(GraphicsStages, RewrittenVertexAndFragmentMakeAValidPipeline) {
  const bool int64 = GetParam();
  if (LibraryIsStub()) GTEST_SKIP() << "bindery_spirv (layer/spirv/) is not in the tree yet";
  const std::vector<uint32_t> vert = Compiled("storage_rw.vert");
  const std::vector<uint32_t> frag = Compiled("storage_rw.frag");
  ASSERT_FALSE(vert.empty());
  ASSERT_FALSE(frag.empty());
  const spirv::ModuleInfo vinfo = spirv::Inspect(vert.data(), vert.size());
  const spirv::ModuleInfo finfo = spirv::Inspect(frag.data(), frag.size());
  ASSERT_TRUE(vinfo.error.empty() && finfo.error.empty()) << vinfo.error << finfo.error;
  const spirv::RewriteOptions layout = SharedLayout({vinfo, finfo}, int64);
  ASSERT_FALSE(layout.sets.empty());

  // storage_rw.frag targets SPIR-V 1.0; rewritten for Vulkan 1.2 rules it stays 1.0.
  std::vector<std::vector<uint32_t>> modules;
  uint32_t push_end = 0;
  for (const auto* words : {&vert, &frag}) {
    spirv::RewriteResult r = spirv::RewriteDescriptorsToPointers(words->data(), words->size(), layout);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    const std::string invalid = ValidateSpirv(r.module, "vulkan1.2", false);
    ASSERT_TRUE(invalid.empty()) << invalid;
    push_end = std::max(push_end, r.report.push_constant_end);
    modules.push_back(std::move(r.module));
  }

  ExecDevice& device = SharedDevice(int64);
  ASSERT_TRUE(device.ok()) << device.error();
  if (!device.features().graphics_stores || !device.features().dynamic_rendering)
    GTEST_SKIP() << "lavapipe lacks vertex/fragment stores or dynamic rendering";
  device.TakeValidationProblems();
  VkDevice dev = device.device();

  // What stays a descriptor: the vertex shader's camera uniform buffer (set 1, binding 0).
  VkDescriptorSetLayout empty = VK_NULL_HANDLE, camera = VK_NULL_HANDLE;
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  ASSERT_EQ(vkCreateDescriptorSetLayout(dev, &dslci, nullptr, &empty), VK_SUCCESS);
  const VkDescriptorSetLayoutBinding ubo{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, nullptr};
  dslci.bindingCount = 1;
  dslci.pBindings = &ubo;
  ASSERT_EQ(vkCreateDescriptorSetLayout(dev, &dslci, nullptr, &camera), VK_SUCCESS);
  const VkDescriptorSetLayout set_layouts[] = {empty, camera};
  const VkPushConstantRange range{VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, (push_end + 3) & ~3u};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 2;
  plci.pSetLayouts = set_layouts;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &range;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreatePipelineLayout(dev, &plci, nullptr, &pipeline_layout), VK_SUCCESS);

  VkShaderModule shader[2] = {};
  for (int i = 0; i < 2; ++i) {
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = modules[i].size() * 4;
    smci.pCode = modules[i].data();
    ASSERT_EQ(vkCreateShaderModule(dev, &smci, nullptr, &shader[i]), VK_SUCCESS);
  }
  VkPipeline pipeline = VK_NULL_HANDLE;
  EXPECT_EQ(test::CreateGraphicsPipeline(dev, pipeline_layout, shader[0], shader[1], 64, 64, VK_NULL_HANDLE,
                                         VK_FORMAT_R8G8B8A8_UNORM, &pipeline),
            VK_SUCCESS);
  const std::string problems = device.TakeValidationProblems();
  EXPECT_TRUE(problems.empty()) << problems;

  if (pipeline != VK_NULL_HANDLE) vkDestroyPipeline(dev, pipeline, nullptr);
  for (VkShaderModule s : shader) vkDestroyShaderModule(dev, s, nullptr);
  vkDestroyPipelineLayout(dev, pipeline_layout, nullptr);
  vkDestroyDescriptorSetLayout(dev, empty, nullptr);
  vkDestroyDescriptorSetLayout(dev, camera, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Addresses, GraphicsStages, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool>& p) { return p.param ? "int64" : "uvec2"; });

}  // namespace
}  // namespace bindery::spirv_exec
