// VK_KHR_maintenance6's descriptor commands under indirect_bindings=auto
// (docs/bindings-bind-points.md, "maintenance6"): auto keeps the extension offered, and a
// layout beyond the driver's limits converts there, so vkCmdBindDescriptorSets2KHR,
// vkCmdPushConstants2KHR, vkCmdPushDescriptorSet2KHR and
// vkCmdPushDescriptorSetWithTemplate2KHR must reach the driver translated like their
// 1-commands (no layer-owned set handle, the renumbered set, the root). Under force the
// extension is hidden (BindingsHiddenExtensions.*), so force is not run here.
//
// Lavapipe 22.3 has no maintenance6: tests/extras_layer, below Bindery and above
// validation, offers it and implements the four commands with the 1-commands below it.
// Validation (1.3.239, synchronization validation on) predates maintenance6; placed below
// the stand-in it sees only the 1-commands, so it checks what actually reaches the driver.
#include <gtest/gtest.h>

#include <regex>

#include "bind_point_rig.h"
#include "extras_layer/extras_layer.h"
#include "extras_layer/maintenance6.h"
#include "m6_over_limit_comp.h"
#include "m6_over_limit_frag.h"
#include "m6_within_limits_comp.h"
#include "m6_within_limits_frag.h"

namespace bindery::test {
namespace {

namespace m6 = bindery::maintenance6;

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

struct Program {
  bool over_limit = false;      // 33 storage buffers in set 0 (else one)
  bool maintenance6 = false;    // the 2KHR commands (else the 1-commands)
  bool graphics = false;        // a fragment shader drawn (else a compute shader dispatched)
  // Within the limits: an unused set layout beyond them beside (under auto it converts,
  // so the layer translates every command from then on; without it they go straight down).
  bool converting_beside = true;
};

struct ProgramRun {
  BindPointRun run;
  uint32_t per_stage_limit = 0;  // the driver's maxPerStageDescriptorStorageBuffers
  size_t out1 = 0, out2 = 0;     // the indices of the two output buffers
};

// Set 0 = the storage buffers (with the output), set 1 = a push-descriptor uniform buffer,
// one push constant, all of one stage (compute or fragment). Round 1: bind set 0 (A), push
// the uniform buffer directly, push constant 3, dispatch (or draw). Round 2: bind set 0 (B)
// at both bind points (stageFlags naming graphics and compute stages), push the uniform
// buffer with a template, push constant 10, dispatch (or draw). Out A = {sum, 42, 8}, out
// B = {sum, 100, 15}.
ProgramRun RunProgram(const char* mode, const Program& p) {
  ProgramRun out;
  m6::Features features;
  features.maintenance6 = VK_TRUE;
  RigOptions options;
  options.graphics = true;  // a queue of both bind points
  options.device_extensions = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME, m6::kName};
  options.device_pnext = &features;
  options.layers_between = {kExtrasLayerName};
  BindPointRig rig(mode, options);
  if (!rig.ok()) return {{rig.h().error()}};
  VkDevice d = rig.d();
  auto push = reinterpret_cast<PFN_vkCmdPushDescriptorSetKHR>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetKHR"));
  auto push_template = reinterpret_cast<PFN_vkCmdPushDescriptorSetWithTemplateKHR>(
      vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplateKHR"));
  auto bind2 = reinterpret_cast<m6::PFN_CmdBindDescriptorSets2>(vkGetDeviceProcAddr(d, "vkCmdBindDescriptorSets2KHR"));
  auto constants2 = reinterpret_cast<m6::PFN_CmdPushConstants2>(vkGetDeviceProcAddr(d, "vkCmdPushConstants2KHR"));
  auto push2 = reinterpret_cast<m6::PFN_CmdPushDescriptorSet2>(vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSet2KHR"));
  auto push_template2 = reinterpret_cast<m6::PFN_CmdPushDescriptorSetWithTemplate2>(
      vkGetDeviceProcAddr(d, "vkCmdPushDescriptorSetWithTemplate2KHR"));
  if (push == nullptr || push_template == nullptr) return {{"no VK_KHR_push_descriptor"}};
  if (bind2 == nullptr || constants2 == nullptr || push2 == nullptr || push_template2 == nullptr) {
    return {{"no maintenance6 commands (the stand-in layer below did not offer them)"}};
  }
  {
    VkHarness native({.bindery = false, .validation = false});
    VkPhysicalDeviceProperties props{};
    if (native.ok()) vkGetPhysicalDeviceProperties(native.physical_device(), &props);
    out.per_stage_limit = props.limits.maxPerStageDescriptorStorageBuffers;
  }

  const VkShaderStageFlags kStage = p.graphics ? VK_SHADER_STAGE_FRAGMENT_BIT : VK_SHADER_STAGE_COMPUTE_BIT;
  const VkPipelineBindPoint kPoint = p.graphics ? VK_PIPELINE_BIND_POINT_GRAPHICS : VK_PIPELINE_BIND_POINT_COMPUTE;
  std::vector<VkDescriptorSetLayoutBinding> storage_bindings;
  if (p.over_limit) {
    storage_bindings = {{0, kStorage, 32, kStage, nullptr}, {1, kStorage, 1, kStage, nullptr}};
  } else {
    storage_bindings = {{0, kStorage, 1, kStage, nullptr}};
  }
  if (!p.over_limit && p.converting_beside) {
    // A set layout beyond the driver's limits that nothing uses (valid natively: the
    // limits are a pipeline layout's): under auto it converts, so from then on the layer
    // translates the commands of every layout, this one's too.
    rig.SetLayout({{0, kStorage, 40, kStage, nullptr}});
  }
  VkDescriptorSetLayout storage = rig.SetLayout(storage_bindings);
  VkDescriptorSetLayout pushed =
      rig.SetLayout({{0, kUniform, 1, kStage, nullptr}}, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR);
  VkPipelineLayout layout = rig.Layout({storage, pushed}, {{kStage, 0, 4}});
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (p.graphics) {
    pipeline = p.over_limit ? rig.Graphics(m6_over_limit_frag, sizeof(m6_over_limit_frag), layout)
                            : rig.Graphics(m6_within_limits_frag, sizeof(m6_within_limits_frag), layout);
  } else {
    pipeline = p.over_limit ? rig.Compute(m6_over_limit_comp, sizeof(m6_over_limit_comp), layout)
                            : rig.Compute(m6_within_limits_comp, sizeof(m6_within_limits_comp), layout);
  }
  std::vector<VkBuffer> inputs;
  if (p.over_limit) {
    for (uint32_t i = 0; i < 32; ++i) inputs.push_back(rig.Buffer(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, i + 1));
  }
  out.out1 = inputs.size();
  out.out2 = inputs.size() + 1;
  VkBuffer out1 = rig.Buffer(), out2 = rig.Buffer();
  VkBuffer ubo1 = rig.Buffer(VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 41);
  VkBuffer ubo2 = rig.Buffer(VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, 99);
  auto make_set = [&](VkBuffer result) {
    std::vector<uint32_t> bindings, elements;
    std::vector<VkBuffer> buffers;
    for (uint32_t i = 0; i < inputs.size(); ++i) {
      bindings.push_back(0);
      elements.push_back(i);
      buffers.push_back(inputs[i]);
    }
    bindings.push_back(p.over_limit ? 1 : 0);
    elements.push_back(0);
    buffers.push_back(result);
    return rig.Set(storage, bindings, std::vector<VkDescriptorType>(buffers.size(), kStorage), buffers, elements);
  };
  VkDescriptorSet set_a = make_set(out1);
  VkDescriptorSet set_b = make_set(out2);
  VkDescriptorUpdateTemplateEntry entry{0, 0, 1, kUniform, 0, sizeof(VkDescriptorBufferInfo)};
  VkDescriptorUpdateTemplateCreateInfo tci = PushTemplateInfo(&entry, 1, kPoint, layout, 1);
  VkDescriptorUpdateTemplate update_template = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateDescriptorUpdateTemplate(d, &tci, nullptr, &update_template), VK_SUCCESS);

  // One bind of `set` per bind point `stages` names.
  auto bind = [&](VkCommandBuffer cb, VkShaderStageFlags stages, VkDescriptorSet set) {
    if (p.maintenance6) {
      m6::BindDescriptorSetsInfo info;
      info.stageFlags = stages;
      info.layout = layout;
      info.descriptorSetCount = 1;
      info.pDescriptorSets = &set;
      return bind2(cb, &info);
    }
    if ((stages & VK_SHADER_STAGE_ALL_GRAPHICS) != 0) {
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
    }
    if ((stages & VK_SHADER_STAGE_COMPUTE_BIT) != 0) {
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    }
  };
  auto constant = [&](VkCommandBuffer cb, uint32_t k) {
    if (!p.maintenance6) return vkCmdPushConstants(cb, layout, kStage, 0, 4, &k);
    m6::PushConstantsInfo info;
    info.layout = layout;
    info.stageFlags = kStage;
    info.size = 4;
    info.pValues = &k;
    constants2(cb, &info);
  };
  auto run = [&](VkCommandBuffer cb) {
    if (!p.graphics) return vkCmdDispatch(cb, 1, 1, 1);
    rig.BeginPass(cb);
    vkCmdDraw(cb, 3, 1, 0, 0);
    vkCmdEndRenderPass(cb);
  };
  VkCommandBuffer cb = rig.h().BeginCommands();
  vkCmdBindPipeline(cb, kPoint, pipeline);
  bind(cb, kStage, set_a);
  const VkDescriptorBufferInfo info1{ubo1, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  w.dstBinding = 0;
  w.descriptorCount = 1;
  w.descriptorType = kUniform;
  w.pBufferInfo = &info1;
  if (p.maintenance6) {
    m6::PushDescriptorSetInfo info;
    info.stageFlags = kStage;
    info.layout = layout;
    info.set = 1;
    info.descriptorWriteCount = 1;
    info.pDescriptorWrites = &w;
    push2(cb, &info);
  } else {
    push(cb, kPoint, layout, 1, 1, &w);
  }
  constant(cb, 3);
  run(cb);
  BindPointRig::Barrier(cb);
  bind(cb, VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT, set_b);
  const VkDescriptorBufferInfo info2{ubo2, 0, VK_WHOLE_SIZE};
  if (p.maintenance6) {
    m6::PushDescriptorSetWithTemplateInfo info;
    info.descriptorUpdateTemplate = update_template;
    info.layout = layout;
    info.set = 1;
    info.pData = &info2;
    push_template2(cb, &info);
  } else {
    push_template(cb, update_template, layout, 1, &info2);
  }
  constant(cb, 10);
  run(cb);
  BindPointRig::Barrier(cb);
  EXPECT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  vkDestroyDescriptorUpdateTemplate(d, update_template, nullptr);
  out.run = rig.Finish();
  return out;
}

void ExpectResults(const ProgramRun& r, uint32_t sum) {
  EXPECT_EQ(Word(r.run, r.out1, 0), sum);
  EXPECT_EQ(Word(r.run, r.out1, 1), 42u);
  EXPECT_EQ(Word(r.run, r.out1, 2), 8u);
  EXPECT_EQ(Word(r.run, r.out2, 0), sum);
  EXPECT_EQ(Word(r.run, r.out2, 1), 100u);
  EXPECT_EQ(Word(r.run, r.out2, 2), 15u);
}

void ExpectSameBuffers(const BindPointRun& a, const BindPointRun& b) {
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) EXPECT_EQ(a.buffers[i], b.buffers[i]) << "buffer " << i;
}

// 33 storage buffers under auto (beyond lavapipe's 32: the layout converts, set 0 becomes
// root-only and the push-descriptor set is renumbered): the 2KHR commands give what the
// 1-commands give through the layer, and what the shader computes. Natively the layout is
// beyond the driver's limits, so the reference is the layer's own 1-command path (itself
// compared with native programs by BindPoints/RenumberedPush.* and Modes/OverLimit.*).
class Maintenance6 : public testing::TestWithParam<bool> {};  // graphics (else compute)

TEST_P(Maintenance6, CommandsOfAConvertedLayoutAreTranslatedUnderAuto) {
  const bool graphics = GetParam();
  const ProgramRun one = RunProgram("auto", {.over_limit = true, .maintenance6 = false, .graphics = graphics});
  if (!one.run.skip.empty()) GTEST_SKIP() << one.run.skip;
  if (one.per_stage_limit > 33) {
    GTEST_SKIP() << "33 storage buffers are within this driver's per-stage limit (" << one.per_stage_limit
                 << "): nothing converts under auto";
  }
  const ProgramRun two = RunProgram("auto", {.over_limit = true, .maintenance6 = true, .graphics = graphics});
  ASSERT_EQ(two.run.skip, "");
  EXPECT_EQ(one.run.validation, "");
  EXPECT_EQ(two.run.validation, "");
  uint32_t sum = 0;
  for (uint32_t i = 0; i < 32; ++i) sum += (i + 1) * (i + 1);
  ExpectResults(one, sum);
  ExpectResults(two, sum);
  ExpectSameBuffers(one.run, two.run);
  EXPECT_GE(Counter(two.run.summary, "pipelines rewritten"), 1u) << two.run.summary;
  EXPECT_GE(Counter(two.run.summary, "descriptor sets converted"), 2u) << two.run.summary;
}

// Within the driver's limits, with an unused set layout beyond them (so under auto the
// layer translates every layout's commands): off with the 1-commands, off with the 2KHR
// commands (the stand-in below) and auto with the 2KHR commands are byte-identical; and
// auto without that layout (nothing converts: each command goes straight down).
TEST_P(Maintenance6, CommandsOfANativeLayoutKeepTheirMeaningUnderAuto) {
  const bool graphics = GetParam();
  const ProgramRun native = RunProgram("off", {.over_limit = false, .maintenance6 = false, .graphics = graphics});
  if (!native.run.skip.empty()) GTEST_SKIP() << native.run.skip;
  const ProgramRun native2 = RunProgram("off", {.over_limit = false, .maintenance6 = true, .graphics = graphics});
  const ProgramRun layered = RunProgram("auto", {.over_limit = false, .maintenance6 = true, .graphics = graphics});
  const ProgramRun passed = RunProgram(
      "auto", {.over_limit = false, .maintenance6 = true, .graphics = graphics, .converting_beside = false});
  for (const ProgramRun* r : {&native2, &layered, &passed}) {
    ASSERT_EQ(r->run.skip, "");
    EXPECT_EQ(r->run.validation, "");
    ExpectSameBuffers(native.run, r->run);
  }
  EXPECT_EQ(native.run.validation, "");
  ExpectResults(native, 7);
  EXPECT_FALSE(HasMessage(passed.run.bindery, "BINDERY-bindings-over-limit"));
  if (native.per_stage_limit >= 40) {
    GTEST_SKIP() << "40 storage buffers are within this driver's per-stage limit (" << native.per_stage_limit
                 << "): the layout beside does not convert under auto, so only byte identity was checked";
  }
  // The layout beside converted under auto (the commands were translated), and without
  // it nothing did (they went straight down).
  EXPECT_TRUE(HasMessage(layered.run.bindery, "BINDERY-bindings-over-limit"));
}

INSTANTIATE_TEST_SUITE_P(BindingsMaintenance6, Maintenance6, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& p) { return std::string(p.param ? "Graphics" : "Compute"); });

}  // namespace
}  // namespace bindery::test
