// Descriptor-array indices broadcast from the first active lane
// (spirv/uniform_descriptor_index.h, a workaround for lavapipe's image queries on arrays
// of samplers): with the option, a fragment shader whose sampler-array index is read from
// a converted uniform buffer gets OpGroupNonUniformBroadcastFirst on that index (and only
// there: a constant index stays), the capability it needs, and stays valid; without the
// option, in a module that uses NonUniform, below SPIR-V 1.3, or in a stage the option
// does not name, nothing is broadcast.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

constexpr uint32_t kFragment = 1u << spv::ExecutionModelFragment;
constexpr uint32_t kCompute = 1u << spv::ExecutionModelGLCompute;

// textureSize(s[n], 0) + textureSize(s[2], 0), n read from a uniform buffer, with more
// capabilities and decorations; `interface`: the globals listed in the entry point (SPIR-V
// 1.4 and later).
std::string Module(bool interface, const std::string& extra_capability, const std::string& extra_decoration) {
  return std::string(R"(
               OpCapability Shader
               OpCapability ImageQuery
)") + extra_capability + R"(
               OpMemoryModel Logical GLSL450
               OpEntryPoint Fragment %main "main" %color)" +
         (interface ? " %u %s" : "") + R"(
               OpExecutionMode %main OriginUpperLeft
               OpDecorate %color Location 0
               OpMemberDecorate %U 0 Offset 0
               OpDecorate %U Block
               OpDecorate %u DescriptorSet 0
               OpDecorate %u Binding 0
               OpDecorate %s DescriptorSet 0
               OpDecorate %s Binding 1
)" + extra_decoration + R"(
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
       %uint = OpTypeInt 32 0
      %int_0 = OpConstant %int 0
      %int_2 = OpConstant %int 2
     %uint_4 = OpConstant %uint 4
      %v2int = OpTypeVector %int 2
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
          %U = OpTypeStruct %int
      %ptr_U = OpTypePointer Uniform %U
    %ptr_int = OpTypePointer Uniform %int
          %u = OpVariable %ptr_U Uniform
        %img = OpTypeImage %float 2D 0 0 0 1 Unknown
         %si = OpTypeSampledImage %img
        %arr = OpTypeArray %si %uint_4
    %ptr_arr = OpTypePointer UniformConstant %arr
     %ptr_si = OpTypePointer UniformConstant %si
          %s = OpVariable %ptr_arr UniformConstant
    %ptr_out = OpTypePointer Output %v4float
      %color = OpVariable %ptr_out Output
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %np = OpAccessChain %ptr_int %u %int_0
          %n = OpLoad %int %np
         %sp = OpAccessChain %ptr_si %s %n
         %s1 = OpLoad %si %sp
         %i1 = OpImage %img %s1
         %z1 = OpImageQuerySizeLod %v2int %i1 %int_0
         %cp = OpAccessChain %ptr_si %s %int_2
         %s2 = OpLoad %si %cp
         %i2 = OpImage %img %s2
         %z2 = OpImageQuerySizeLod %v2int %i2 %int_0
        %sum = OpIAdd %v2int %z1 %z2
          %x = OpCompositeExtract %int %sum 0
         %xf = OpConvertSToF %float %x
          %c = OpCompositeConstruct %v4float %xf %xf %xf %xf
               OpStore %color %c
               OpReturn
               OpFunctionEnd
)";
}

struct Rewritten {
  RewriteResult result;
  int broadcasts = 0;  // OpGroupNonUniformBroadcastFirst in the output
  bool ballot = false;  // CapabilityGroupNonUniformBallot declared
};

Rewritten Rewrite(const std::string& text, TargetEnv target, uint32_t models, uint32_t lane_zero_models = 0) {
  Rewritten out;
  const std::vector<uint32_t> words = test::Assemble(text, target);
  if (words.empty()) return out;
  const ModuleInfo info = Inspect(words.data(), words.size());
  RewriteOptions o = DefaultLayout(info, 0, true);  // the uniform buffer converts
  o.target = target;
  o.bounds_checks = true;
  o.broadcast_descriptor_index_models = models;
  o.lane_zero_descriptor_index_models = lane_zero_models;
  out.result = RewriteDescriptorsToPointers(words.data(), words.size(), o);
  if (!out.result.report.converted) return out;
  spirv::Module m;
  EXPECT_EQ(ParseModule(out.result.module.data(), out.result.module.size(), &m), "");
  for (const Instruction& c : m.capabilities)
    out.ballot = out.ballot || c.operand(0) == static_cast<uint32_t>(spv::CapabilityGroupNonUniformBallot);
  for (const Function& fn : m.functions) {
    for (const Instruction& inst : fn.instructions) {
      if (inst.opcode() == spv::OpGroupNonUniformBroadcastFirst) ++out.broadcasts;
    }
  }
  return out;
}

TEST(SpirvUniformDescriptorIndex, AnIndexFromAConvertedUniformBufferIsBroadcastAndTheModuleValidates) {
  for (TargetEnv target : {TargetEnv::kVulkan1_1, TargetEnv::kVulkan1_2, TargetEnv::kVulkan1_3}) {
    const bool interface = target != TargetEnv::kVulkan1_1;
    Rewritten r = Rewrite(Module(interface, "", ""), target, kFragment | kCompute);
    ASSERT_TRUE(r.result.report.converted) << r.result.report.reason;
    EXPECT_EQ(r.result.report.broadcast_indices, 1u);  // s[n], not s[2]
    EXPECT_EQ(r.broadcasts, 1);
    EXPECT_TRUE(r.ballot);
    EXPECT_EQ(test::Validate(r.result.module, target), "") << test::Disassemble(r.result.module);
    const std::string text = test::Disassemble(r.result.module);
    EXPECT_NE(text.find("OpGroupNonUniformBroadcastFirst %int %"), std::string::npos) << text;
  }
}

TEST(SpirvUniformDescriptorIndex, NothingIsBroadcastWithoutTheOptionOrOutsideItsStages) {
  Rewritten off = Rewrite(Module(true, "", ""), TargetEnv::kVulkan1_2, 0);
  ASSERT_TRUE(off.result.report.converted);
  EXPECT_EQ(off.broadcasts, 0);
  EXPECT_FALSE(off.ballot);
  Rewritten compute_only = Rewrite(Module(true, "", ""), TargetEnv::kVulkan1_2, kCompute);
  ASSERT_TRUE(compute_only.result.report.converted);
  EXPECT_EQ(compute_only.broadcasts, 0);
}

TEST(SpirvUniformDescriptorIndex, NothingIsBroadcastBelowSpirv13OrWithNonUniform) {
  // SPIR-V 1.0: no subgroup instructions.
  Rewritten old = Rewrite(Module(false, "", ""), TargetEnv::kVulkan1_0, kFragment);
  ASSERT_TRUE(old.result.report.converted);
  EXPECT_EQ(old.broadcasts, 0);
  EXPECT_EQ(test::Validate(old.result.module, TargetEnv::kVulkan1_0), "");
  // An index the module says may differ between invocations is not dynamically uniform.
  Rewritten non_uniform = Rewrite(Module(true, "               OpCapability ShaderNonUniform\n",
                                         "               OpDecorate %sp NonUniform\n"),
                                  TargetEnv::kVulkan1_2, kFragment);
  ASSERT_TRUE(non_uniform.result.report.converted) << non_uniform.result.report.reason;
  EXPECT_EQ(non_uniform.broadcasts, 0);
}

// lavapipe takes the index from lane 0 in every stage (lane_zero_descriptor_index_models):
// where the broadcast cannot apply — a stage the broadcast option does not name (vertex,
// tessellation, geometry on lavapipe), or a module below SPIR-V 1.3 — a module whose image
// index comes from a converted uniform buffer is refused (it runs natively); with the
// broadcast it converts, and an index not read from a converted uniform buffer converts too.
TEST(SpirvUniformDescriptorIndex, LaneZeroDriverRefusesAnIndexFromAConvertedUniformBufferWithoutTheBroadcast) {
  constexpr uint32_t kAll = ~0u;
  // No broadcast for fragment (a stage without ballot): refused.
  Rewritten refused = Rewrite(Module(true, "", ""), TargetEnv::kVulkan1_2, kCompute, kAll);
  EXPECT_FALSE(refused.result.report.converted);
  EXPECT_NE(refused.result.report.reason.find("descriptor-array index read from a converted uniform buffer"),
            std::string::npos)
      << refused.result.report.reason;
  // Below SPIR-V 1.3 the broadcast cannot be used: refused too.
  Rewritten old = Rewrite(Module(false, "", ""), TargetEnv::kVulkan1_0, kFragment | kCompute, kAll);
  EXPECT_FALSE(old.result.report.converted);
  // With the broadcast the module converts (and is broadcast).
  Rewritten broadcast = Rewrite(Module(true, "", ""), TargetEnv::kVulkan1_2, kFragment | kCompute, kAll);
  ASSERT_TRUE(broadcast.result.report.converted) << broadcast.result.report.reason;
  EXPECT_EQ(broadcast.broadcasts, 1);
  // On a driver without the lane-0 fault nothing changes.
  Rewritten other = Rewrite(Module(true, "", ""), TargetEnv::kVulkan1_2, 0, 0);
  EXPECT_TRUE(other.result.report.converted);
}

}  // namespace
}  // namespace bindery::spirv
