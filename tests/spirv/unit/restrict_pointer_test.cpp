// Issue 32 part 1 (forced q4_0 at 0.82x of native on the H100): a descriptor the module
// does not declare Aliased may be assumed to alias no other buffer, which a driver uses
// (a read-only buffer's loads on its read-only path, loads moved across other buffers'
// stores); a pointer made by OpConvertUToPtr may alias anything. The rewrite keeps each
// such buffer's pointer in a Function variable decorated RestrictPointer and reads it
// back from there (RewriteOptions::restrict_pointers), and leaves an Aliased buffer's
// pointer bare.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

constexpr TargetEnv kTarget = TargetEnv::kVulkan1_2;

// `ro` read-only, `out` written, `al` declared Aliased (read and written).
const char* kThree = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %ro %out %al
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %ro NonWritable
               OpDecorate %ro DescriptorSet 0
               OpDecorate %ro Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
               OpDecorate %al Aliased
               OpDecorate %al DescriptorSet 0
               OpDecorate %al Binding 2
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
         %ro = OpVariable %ptr_Buf StorageBuffer
        %out = OpVariable %ptr_Buf StorageBuffer
         %al = OpVariable %ptr_Buf StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %p0 = OpAccessChain %ptr_uint %ro %int_0 %int_0
         %v0 = OpLoad %uint %p0
         %p1 = OpAccessChain %ptr_uint %al %int_0 %int_0
         %v1 = OpLoad %uint %p1
         %v2 = OpIAdd %uint %v0 %v1
         %p2 = OpAccessChain %ptr_uint %out %int_0 %int_1
               OpStore %p2 %v2
         %p3 = OpAccessChain %ptr_uint %al %int_0 %int_1
               OpStore %p3 %v2
               OpReturn
               OpFunctionEnd
)";

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

RewriteResult Rewrite(const std::vector<uint32_t>& words, bool restrict_pointers, bool records_in_root = false) {
  RewriteOptions o = test::LayoutFor(words, kTarget, /*int64=*/true, /*bounds=*/false);
  o.restrict_pointers = restrict_pointers;
  for (SetLayout& s : o.sets) s.records_in_root = records_in_root;
  return RewriteDescriptorsToPointers(words.data(), words.size(), o);
}

TEST(SpirvRestrictPointers, EachBufferNotDeclaredAliasedIsReadThroughARestrictPointerVariable) {
  const std::vector<uint32_t> words = test::Assemble(kThree, kTarget);
  ASSERT_EQ(test::Validate(words, kTarget), "") << "the input validates";
  for (bool in_root : {false, true}) {
    SCOPED_TRACE(in_root ? "records in the root" : "records in the block");
    const RewriteResult r = Rewrite(words, true, in_root);
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    EXPECT_EQ(test::Validate(r.module, kTarget), "") << test::Disassemble(r.module);
    const std::string text = test::Disassemble(r.module);
    // `ro` and `out`: a variable each; `al` (Aliased) keeps its bare pointer.
    EXPECT_EQ(Count(text, "RestrictPointer"), 2) << text;
    EXPECT_EQ(Count(text, "AliasedPointer"), 0) << text;
    EXPECT_EQ(Count(text, "OpVariable %_ptr_Function__ptr_PhysicalStorageBuffer"), 2) << text;
    // Stored once, read back once, in the entry block.
    EXPECT_EQ(Count(text, "OpLoad %_ptr_PhysicalStorageBuffer"), 2) << text;
  }
}

TEST(SpirvRestrictPointers, OffLeavesEveryPointerBare) {
  const std::vector<uint32_t> words = test::Assemble(kThree, kTarget);
  const RewriteResult r = Rewrite(words, false);
  ASSERT_TRUE(r.report.converted) << r.report.ToString();
  EXPECT_EQ(test::Validate(r.module, kTarget), "");
  const std::string text = test::Disassemble(r.module);
  EXPECT_EQ(Count(text, "RestrictPointer"), 0) << text;
  EXPECT_EQ(Count(text, "OpVariable %_ptr_Function__ptr_PhysicalStorageBuffer"), 0) << text;
}

// ggml's q4_0 matrix-vector kernel (the corpus' copy of what the H100 runs): its five
// buffers (the matrix through two block types on binding 0, the vector, the output, two
// fusion inputs) are declared without Aliased: six restrict variables, and it validates.
TEST(SpirvRestrictPointers, GgmlQ40MatrixVectorKernelGetsOneRestrictPointerPerBufferVariable) {
  std::ifstream in(std::string(BINDERY_CORPUS_DIR) + "/ggml_mul_mat_vec_q4_0.spvasm");
  ASSERT_TRUE(in) << "the corpus module";
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<uint32_t> words = test::Assemble(text.str(), kTarget);
  ASSERT_FALSE(words.empty());
  for (bool in_root : {false, true}) {
    const RewriteResult r = Rewrite(words, true, in_root);
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    EXPECT_EQ(test::Validate(r.module, kTarget), "");
    EXPECT_EQ(Count(test::Disassemble(r.module), "RestrictPointer"), 6);
  }
}

}  // namespace
}  // namespace bindery::spirv
