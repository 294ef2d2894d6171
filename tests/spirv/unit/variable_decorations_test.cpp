// Gap 1 and 2 of the rewrite: decorations on a converted variable itself (what DXC and
// hand-written SPIR-V use; glslang decorates members) stay in effect once the variable is
// a physical pointer, and the Vulkan memory model gets its Device-scope capability.
#include <gtest/gtest.h>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

constexpr TargetEnv kTarget = TargetEnv::kVulkan1_2;

// Three buffers sharing one block type; `cv` Coherent + Volatile, `ro` NonWritable, `wo`
// NonReadable (all on the variables). MODEL and CAPS are substituted.
const char* kShared = R"(
               OpCapability Shader
               CAPS
               OpMemoryModel Logical MODEL
               OpEntryPoint GLCompute %main "main" %cv %ro %wo
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               CVDECO
               OpDecorate %cv DescriptorSet 0
               OpDecorate %cv Binding 0
               OpDecorate %ro NonWritable
               OpDecorate %ro DescriptorSet 0
               OpDecorate %ro Binding 1
               OpDecorate %wo NonReadable
               OpDecorate %wo DescriptorSet 0
               OpDecorate %wo Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
        %arr = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %arr
    %ptr_Buf = OpTypePointer StorageBuffer %Buf
   %ptr_uint = OpTypePointer StorageBuffer %uint
         %cv = OpVariable %ptr_Buf StorageBuffer
         %ro = OpVariable %ptr_Buf StorageBuffer
         %wo = OpVariable %ptr_Buf StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %p0 = OpAccessChain %ptr_uint %ro %int_0 %int_0
         %v0 = OpLoad %uint %p0
         %p1 = OpAccessChain %ptr_uint %cv %int_0 %int_1
               OpStore %p1 %v0
         %p2 = OpAccessChain %ptr_uint %cv %int_0 %int_0
         %v2 = OpLoad %uint %p2
         %p3 = OpAccessChain %ptr_uint %wo %int_0 %int_1
               OpStore %p3 %v2
               WHOLE
               OpReturn
               OpFunctionEnd
)";

std::string Shared(const std::string& model, const std::string& caps, const std::string& cv_decorations,
                   const std::string& whole = "") {
  std::string s = kShared;
  auto put = [&](const std::string& key, const std::string& value) { s.replace(s.find(key), key.size(), value); };
  put("MODEL", model);
  put("CAPS", caps);
  put("CVDECO", cv_decorations);
  put("WHOLE", whole);
  return s;
}

// The rewrite's own argument block is read-only: NonWritable on its member and on both
// members of its record struct, beside the application's buffers' decorations.
constexpr int kArgumentBlockNonWritable = 3;

RewriteResult RewriteText(const std::string& text, bool int64 = true, bool bounds = false) {
  const std::vector<uint32_t> words = test::Assemble(text, kTarget);
  return RewriteDescriptorsToPointers(words.data(), words.size(), test::LayoutFor(words, kTarget, int64, bounds));
}

TEST(SpirvVariableDecorations, Glsl450SharedBlockGetsOneDecoratedCopyPerNeed) {
  const std::string text = Shared("GLSL450", "", "OpDecorate %cv Coherent\n OpDecorate %cv Volatile");
  ASSERT_EQ(test::Validate(test::Assemble(text, kTarget), kTarget), "") << "the input validates";
  for (bool bounds : {false, true}) {
    const RewriteResult r = RewriteText(text, true, bounds);
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    EXPECT_EQ(test::Validate(r.module, kTarget), "") << test::Disassemble(r.module);
    Module m;
    ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
    // One member each in its own copy of the block: nothing is lost, nothing shared.
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationCoherent), 1);
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationVolatile), 1);
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationNonWritable), 1 + kArgumentBlockNonWritable);
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationNonReadable), 1);
    const std::string dis = test::Disassemble(r.module);
    EXPECT_EQ(dis.find("OpDecorate %cv"), std::string::npos) << "the variable is gone";
  }
}

TEST(SpirvVariableDecorations, AgreeingSharersAreDecoratedInPlace) {
  // All three NonWritable-free, Coherent only on... make every buffer Coherent: one block.
  std::string text = Shared("GLSL450", "", "OpDecorate %cv Coherent\n OpDecorate %ro Coherent\n OpDecorate %wo Coherent");
  // Drop the differing NonWritable / NonReadable so the three agree.
  for (const char* d : {"OpDecorate %ro NonWritable", "OpDecorate %wo NonReadable"}) text.erase(text.find(d), std::string(d).size());
  const RewriteResult r = RewriteText(text, false, false);
  ASSERT_TRUE(r.report.converted) << r.report.ToString();
  EXPECT_EQ(test::Validate(r.module, kTarget), "") << test::Disassemble(r.module);
  Module m;
  ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
  EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationCoherent), 1) << "the shared block, decorated once";
}

TEST(SpirvVariableDecorations, ACopyThatCannotBeRetypedIsRefused) {
  // %ro's pointer used whole (OpCopyObject) while it needs a copy of the shared block.
  const std::string text = Shared("GLSL450", "", "OpDecorate %cv Coherent", "%whole = OpCopyObject %ptr_Buf %ro");
  const std::vector<uint32_t> words = test::Assemble(text, kTarget);
  const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), test::LayoutFor(words, kTarget, true, false));
  ASSERT_EQ(r.error, "");
  EXPECT_FALSE(r.report.converted);
  EXPECT_NE(r.report.reason.find("used as a whole pointer"), std::string::npos) << r.report.reason;
  EXPECT_EQ(r.module, words);
}

TEST(SpirvVariableDecorations, VulkanModelCoherentVolatileBecomeMemoryOperandsAtDeviceScope) {
  // spirv-val bans Coherent/Volatile decorations under the Vulkan memory model; a producer
  // that writes them anyway still gets a valid module with the intent kept.
  const std::string text =
      Shared("Vulkan", "OpCapability VulkanMemoryModel", "OpDecorate %cv Coherent\n OpDecorate %cv Volatile");
  for (bool int64 : {true, false}) {
    const RewriteResult r = RewriteText(text, int64, !int64);
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    EXPECT_EQ(test::Validate(r.module, kTarget), "") << test::Disassemble(r.module);
    Module m;
    ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationCoherent), 0);
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationVolatile), 0);
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationNonWritable), 1 + kArgumentBlockNonWritable);
    EXPECT_EQ(test::CountMemberDecorations(m, spv::DecorationNonReadable), 1);
    const std::string dis = test::Disassemble(r.module);
    EXPECT_NE(dis.find("OpCapability VulkanMemoryModelDeviceScope"), std::string::npos);
    // The store to and the load from %cv; the other buffers' accesses stay plain.
    EXPECT_NE(dis.find("Volatile|Aligned|MakePointerAvailable|NonPrivatePointer 4 %uint_1"), std::string::npos) << dis;
    EXPECT_NE(dis.find("Volatile|Aligned|MakePointerVisible|NonPrivatePointer 4 %uint_1"), std::string::npos) << dis;
    int non_private = 0;
    for (size_t at = dis.find("NonPrivatePointer"); at != std::string::npos; at = dis.find("NonPrivatePointer", at + 1)) ++non_private;
    EXPECT_EQ(non_private, 2);
  }
}

}  // namespace
}  // namespace bindery::spirv
