// Modules with several entry points, each with a push-constant block of its own (issue 30,
// part 2). No entry point may statically use two push-constant variables
// (VUID-StandaloneSpirv-OpEntryPoint-06674), so the root cannot join every block at once:
// the rewrite is made for the entry point a pipeline stage names
// (RewriteOptions::entry_point). The result keeps that entry point alone, its root in the
// block that entry point uses (or a new one), and validates; without a named entry point
// such a module is refused, never rewritten into an invalid one.
#include <gtest/gtest.h>

#include <string>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

// Three compute entry points: "a" and "b" with a push-constant block each, "c" with none;
// all three reach one helper that reads buffer (0, 0); each writes its own buffer.
// `version_14`: SPIR-V 1.5 (interfaces list every global), else 1.0.
std::string ThreeEntryPoints(bool version_14) {
  const std::string sc = version_14 ? "StorageBuffer" : "Uniform";
  const std::string block = version_14 ? "Block" : "BufferBlock";
  const std::string a_if = version_14 ? " %in %out_a %pc_a" : "";
  const std::string b_if = version_14 ? " %in %out_b %pc_b" : "";
  const std::string c_if = version_14 ? " %in %out_c" : "";
  return R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %a "a")" + a_if + R"(
               OpEntryPoint GLCompute %b "b")" + b_if + R"(
               OpEntryPoint GLCompute %c "c")" + c_if + R"(
               OpExecutionMode %a LocalSize 1 1 1
               OpExecutionMode %b LocalSize 2 1 1
               OpExecutionMode %c LocalSize 4 1 1
               OpName %pc_a "pc_a"
               OpName %pc_b "pc_b"
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf )" + block + R"(
               OpMemberDecorate %PcA 0 Offset 0
               OpDecorate %PcA Block
               OpMemberDecorate %PcB 0 Offset 0
               OpMemberDecorate %PcB 1 Offset 16
               OpDecorate %PcB Block
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out_a DescriptorSet 0
               OpDecorate %out_a Binding 1
               OpDecorate %out_b DescriptorSet 0
               OpDecorate %out_b Binding 2
               OpDecorate %out_c DescriptorSet 0
               OpDecorate %out_c Binding 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
    %fn_load = OpTypeFunction %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rta
        %PcA = OpTypeStruct %uint
        %PcB = OpTypeStruct %uint %uint
    %ptr_buf = OpTypePointer )" + sc + R"( %Buf
   %ptr_uint = OpTypePointer )" + sc + R"( %uint
    %ptr_pca = OpTypePointer PushConstant %PcA
    %ptr_pcb = OpTypePointer PushConstant %PcB
  %ptr_pc_u = OpTypePointer PushConstant %uint
         %in = OpVariable %ptr_buf )" + sc + R"(
      %out_a = OpVariable %ptr_buf )" + sc + R"(
      %out_b = OpVariable %ptr_buf )" + sc + R"(
      %out_c = OpVariable %ptr_buf )" + sc + R"(
       %pc_a = OpVariable %ptr_pca PushConstant
       %pc_b = OpVariable %ptr_pcb PushConstant
       %load = OpFunction %uint None %fn_load
         %l0 = OpLabel
         %pl = OpAccessChain %ptr_uint %in %uint_0 %uint_0
         %lv = OpLoad %uint %pl
               OpReturnValue %lv
               OpFunctionEnd
          %a = OpFunction %void None %fn
         %la = OpLabel
         %xa = OpFunctionCall %uint %load
        %qa = OpAccessChain %ptr_pc_u %pc_a %uint_0
         %va = OpLoad %uint %qa
         %sa = OpIAdd %uint %xa %va
        %wa = OpAccessChain %ptr_uint %out_a %uint_0 %uint_0
               OpStore %wa %sa
               OpReturn
               OpFunctionEnd
          %b = OpFunction %void None %fn
         %lb = OpLabel
         %xb = OpFunctionCall %uint %load
        %qb = OpAccessChain %ptr_pc_u %pc_b %uint_1
         %vb = OpLoad %uint %qb
         %sb = OpIAdd %uint %xb %vb
        %wb = OpAccessChain %ptr_uint %out_b %uint_0 %uint_0
               OpStore %wb %sb
               OpReturn
               OpFunctionEnd
          %c = OpFunction %void None %fn
         %lc = OpLabel
         %xc = OpFunctionCall %uint %load
        %wc = OpAccessChain %ptr_uint %out_c %uint_0 %uint_0
               OpStore %wc %xc
               OpReturn
               OpFunctionEnd
)";
}

TargetEnv TargetOf(bool version_14) { return version_14 ? TargetEnv::kVulkan1_2 : TargetEnv::kVulkan1_0; }

// The push-constant variables the module's one entry point statically uses, by OpName
// ("" for an unnamed one: the rewrite's own is named "bindery_root").
std::vector<std::string> PushConstantNames(const std::vector<uint32_t>& words) {
  std::vector<std::string> names;
  const ModuleInfo info = Inspect(words.data(), words.size());
  EXPECT_EQ(info.error, "");
  EXPECT_EQ(info.entry_points.size(), 1u);
  for (const EntryPointInfo& ep : info.entry_points)
    for (const ResourceInfo& r : ep.resources)
      if (r.kind == ResourceKind::kPushConstants) names.push_back(r.name);
  return names;
}

class SpirvEntryPoints : public testing::TestWithParam<bool> {};

TEST_P(SpirvEntryPoints, EachEntryPointGetsAValidRewriteWithItsOwnBlock) {
  const bool v14 = GetParam();
  const std::vector<uint32_t> words = test::Assemble(ThreeEntryPoints(v14), TargetOf(v14));
  ASSERT_FALSE(words.empty());
  ASSERT_EQ(test::Validate(words, TargetOf(v14)), "");
  // The root after both blocks (b's ends at 20), as the layer places it after the
  // application's push-constant ranges.
  RewriteOptions o = DefaultLayout(Inspect(words.data(), words.size()), 24, false);
  o.target = TargetOf(v14);
  const struct {
    const char* entry;
    const char* block;  // the push-constant variable the root must join
  } cases[] = {{"a", "pc_a"}, {"b", "pc_b"}, {"c", "bindery_root"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.entry);
    o.entry_point = c.entry;
    o.execution_model = 5;  // GLCompute
    const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
    ASSERT_EQ(r.error, "");
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    EXPECT_EQ(test::Validate(r.module, o.target), "") << test::Disassemble(r.module);
    const ModuleInfo after = Inspect(r.module.data(), r.module.size());
    ASSERT_EQ(after.entry_points.size(), 1u);
    EXPECT_EQ(after.entry_points[0].name, c.entry);
    EXPECT_EQ(PushConstantNames(r.module), std::vector<std::string>{c.block});
    // The other entry points' execution modes, the functions only they reached and the
    // push-constant blocks only they used went with them.
    Module m;
    ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
    EXPECT_EQ(m.execution_modes.size(), 1u);
    EXPECT_EQ(m.functions.size(), 2u);  // the entry point and the helper
    int push_blocks = 0;
    for (const Instruction& inst : m.types_values)
      push_blocks += inst.opcode() == spv::OpVariable && inst.operand(0) == spv::StorageClassPushConstant ? 1 : 0;
    EXPECT_EQ(push_blocks, 1);
  }
}

TEST_P(SpirvEntryPoints, WithoutANamedEntryPointDifferentBlocksAreRefused) {
  const bool v14 = GetParam();
  const std::vector<uint32_t> words = test::Assemble(ThreeEntryPoints(v14), TargetOf(v14));
  ASSERT_FALSE(words.empty());
  RewriteOptions o = DefaultLayout(Inspect(words.data(), words.size()), 24, false);
  o.target = TargetOf(v14);
  const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
  ASSERT_EQ(r.error, "");
  EXPECT_FALSE(r.report.converted);
  EXPECT_NE(r.report.reason.find("different push-constant variables"), std::string::npos) << r.report.reason;
  EXPECT_EQ(r.module, words);
}

TEST_P(SpirvEntryPoints, AnEntryPointOfAnotherStageOrNameIsNotThere) {
  const bool v14 = GetParam();
  const std::vector<uint32_t> words = test::Assemble(ThreeEntryPoints(v14), TargetOf(v14));
  ASSERT_FALSE(words.empty());
  RewriteOptions o = DefaultLayout(Inspect(words.data(), words.size()), 24, false);
  o.target = TargetOf(v14);
  for (const auto& [name, model] : {std::pair<const char*, uint32_t>{"a", 4}, {"main", kAnyExecutionModel}}) {
    o.entry_point = name;
    o.execution_model = model;
    const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
    ASSERT_EQ(r.error, "");
    EXPECT_FALSE(r.report.converted);
    EXPECT_NE(r.report.reason.find("no entry point"), std::string::npos) << r.report.reason;
    EXPECT_EQ(r.module, words);
  }
}

// One entry point named in a module of one: the same rewrite as without the name (the
// layer names it only in modules of several; either way the result is the same).
TEST(SpirvEntryPointsSingle, NamingTheOnlyEntryPointChangesNothing) {
  for (const auto& f : test::AllSpvFiles()) {
    SCOPED_TRACE(f.Name());
    RewriteOptions o = test::LayoutFor(f.words, test::TargetFor(f.env), true, false);
    const RewriteResult plain = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
    const ModuleInfo info = Inspect(f.words.data(), f.words.size());
    ASSERT_EQ(info.entry_points.size(), 1u);
    o.entry_point = info.entry_points[0].name;
    const RewriteResult named = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
    EXPECT_EQ(plain.module, named.module);
  }
}

// A literal operand equal to a global's id (here the index 4 of an OpCompositeExtract and
// push-constant variable %4 of another entry point) is no use of it: Inspect, and the
// rewrite's choice of block and its entry-point interfaces, read only id operands (the
// grammar's). Before, entry point "b" of a rewritten module was reported using both blocks
// once its rewrite carried an `Aligned 4`.
TEST(SpirvEntryPointsLiterals, ALiteralEqualToAnIdIsNotAUse) {
  const std::string text = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %1 "a" %4
               OpEntryPoint GLCompute %2 "b" %5
               OpExecutionMode %1 LocalSize 1 1 1
               OpExecutionMode %2 LocalSize 1 1 1
               OpMemberDecorate %pcs 0 Offset 0
               OpDecorate %pcs Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_5 = OpConstant %uint 5
        %arr = OpTypeArray %uint %uint_5
      %items = OpConstantComposite %arr %uint_0 %uint_0 %uint_0 %uint_0 %uint_5
        %pcs = OpTypeStruct %uint
     %ptr_pc = OpTypePointer PushConstant %pcs
  %ptr_pc_u = OpTypePointer PushConstant %uint
          %4 = OpVariable %ptr_pc PushConstant
          %5 = OpVariable %ptr_pc PushConstant
          %1 = OpFunction %void None %fn
         %la = OpLabel
         %qa = OpAccessChain %ptr_pc_u %4 %uint_0
         %va = OpLoad %uint %qa
               OpReturn
               OpFunctionEnd
          %2 = OpFunction %void None %fn
         %lb = OpLabel
         %qb = OpAccessChain %ptr_pc_u %5 %uint_0
         %vb = OpLoad %uint %qb
         %eb = OpCompositeExtract %uint %items 4
               OpReturn
               OpFunctionEnd
)";
  const std::vector<uint32_t> words = test::Assemble(text, TargetEnv::kVulkan1_2);
  ASSERT_FALSE(words.empty());
  ASSERT_EQ(test::Validate(words, TargetEnv::kVulkan1_2), "");
  const ModuleInfo info = Inspect(words.data(), words.size());
  ASSERT_EQ(info.error, "");
  ASSERT_EQ(info.entry_points.size(), 2u);
  for (const EntryPointInfo& ep : info.entry_points) {
    SCOPED_TRACE(ep.name);
    EXPECT_EQ(ep.resources.size(), 1u);
  }
}

// Modules of several entry points are often made by a linker, which ends the debug
// section with OpModuleProcessed (so does glslang with debug information). The logical
// layout puts OpName/OpMemberName before it: the rewrite's own names (the root's members,
// the root variable) go there too. Before, they were appended after it and the validation
// layer rejected the module ("MemberName is in an invalid layout section"; the API fuzzer's
// linked modules, seed 48 under indirect).
TEST(SpirvEntryPointsLinked, NamesGoBeforeModuleProcessed) {
  {
    const bool v14 = true;  // OpModuleProcessed is SPIR-V 1.1 and later
    std::string text = ThreeEntryPoints(v14);
    const std::string anchor = "               OpName %pc_b \"pc_b\"\n";
    ASSERT_NE(text.find(anchor), std::string::npos);
    text.insert(text.find(anchor) + anchor.size(), "               OpModuleProcessed \"Linked by a linker\"\n");
    const std::vector<uint32_t> words = test::Assemble(text, TargetOf(v14));
    ASSERT_FALSE(words.empty());
    ASSERT_EQ(test::Validate(words, TargetOf(v14)), "");
    RewriteOptions o = DefaultLayout(Inspect(words.data(), words.size()), 24, false);
    o.target = TargetOf(v14);
    for (const char* entry : {"a", "c"}) {
      o.entry_point = entry;
      const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
      ASSERT_TRUE(r.report.converted) << r.report.ToString();
      EXPECT_EQ(test::Validate(r.module, o.target), "") << entry;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, SpirvEntryPoints, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& p) { return p.param ? "spirv15" : "spirv10"; });

}  // namespace
}  // namespace bindery::spirv
