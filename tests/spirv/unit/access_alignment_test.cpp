// The Aligned operand of accesses through converted descriptors (spirv/access_alignment.h):
// with the descriptors' base alignment known, a vec4 read from an std430 array of vec4
// states 16 (a driver then issues one 16-byte load), a member at offset 4 states 4, an
// arrayed descriptor's element counts from its own base; unknown (0), every access keeps
// its scalar alignment as before. Each rewritten module must pass spirv-val.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

constexpr TargetEnv kTarget = TargetEnv::kVulkan1_2;

// Binding 0: { float head; vec4 body[]; } (offsets 0 and 16, stride 16); binding 1: an
// array of two { vec4 v[]; } blocks; binding 2: { float a; float b; } (offsets 0 and 4).
const char* kModule = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %id
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %id BuiltIn GlobalInvocationId
               OpDecorate %vec4arr ArrayStride 16
               OpMemberDecorate %A 0 Offset 0
               OpMemberDecorate %A 1 Offset 16
               OpDecorate %A Block
               OpDecorate %a DescriptorSet 0
               OpDecorate %a Binding 0
               OpMemberDecorate %B 0 Offset 0
               OpDecorate %B Block
               OpDecorate %b DescriptorSet 0
               OpDecorate %b Binding 1
               OpMemberDecorate %C 0 Offset 0
               OpMemberDecorate %C 1 Offset 4
               OpDecorate %C Block
               OpDecorate %c DescriptorSet 0
               OpDecorate %c Binding 2
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
       %vec4 = OpTypeVector %float 4
      %uvec3 = OpTypeVector %uint 3
      %int_0 = OpConstant %int 0
      %int_1 = OpConstant %int 1
     %uint_2 = OpConstant %uint 2
    %vec4arr = OpTypeRuntimeArray %vec4
          %A = OpTypeStruct %float %vec4arr
          %B = OpTypeStruct %vec4arr
       %Barr = OpTypeArray %B %uint_2
          %C = OpTypeStruct %float %float
      %ptr_A = OpTypePointer StorageBuffer %A
   %ptr_Barr = OpTypePointer StorageBuffer %Barr
      %ptr_C = OpTypePointer StorageBuffer %C
   %ptr_vec4 = OpTypePointer StorageBuffer %vec4
  %ptr_float = OpTypePointer StorageBuffer %float
   %ptr_in3 = OpTypePointer Input %uvec3
   %ptr_in1 = OpTypePointer Input %uint
         %id = OpVariable %ptr_in3 Input
          %a = OpVariable %ptr_A StorageBuffer
          %b = OpVariable %ptr_Barr StorageBuffer
          %c = OpVariable %ptr_C StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idp = OpAccessChain %ptr_in1 %id %int_0
          %i = OpLoad %uint %idp
         %p0 = OpAccessChain %ptr_vec4 %a %int_1 %i
         %v0 = OpLoad %vec4 %p0
         %p1 = OpAccessChain %ptr_vec4 %b %int_1 %int_0 %i
         %v1 = OpLoad %vec4 %p1
         %v2 = OpFAdd %vec4 %v0 %v1
         %p2 = OpAccessChain %ptr_vec4 %a %int_1 %int_1
               OpStore %p2 %v2
         %p3 = OpAccessChain %ptr_float %c %int_1
         %f3 = OpLoad %float %p3
         %p4 = OpAccessChain %ptr_float %c %int_0
               OpStore %p4 %f3
               OpReturn
               OpFunctionEnd
)";

// The Aligned literals of the module's loads and stores of vec4 and float, in order.
std::string Alignments(const std::vector<uint32_t>& words) {
  const std::string text = test::Disassemble(words);
  static const std::regex access(R"((OpLoad %v4float %\w+|OpStore %\w+ %\w+|OpLoad %float %\w+) Aligned (\d+))");
  std::string out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), access); it != std::sregex_iterator(); ++it) {
    out += (*it)[2].str() + " ";
  }
  return out;
}

std::string RewriteWith(uint32_t base_alignment) {
  const std::vector<uint32_t> words = test::Assemble(kModule, kTarget);
  if (words.empty()) return "not assembled";
  RewriteOptions o = test::LayoutFor(words, kTarget, true, false);
  o.descriptor_base_alignment = base_alignment;
  const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
  if (!r.error.empty() || !r.report.converted) return "not converted: " + r.error + r.report.ToString();
  const std::string valid = test::Validate(r.module, kTarget);
  if (!valid.empty()) return "invalid: " + valid;
  return Alignments(r.module);
}

TEST(SpirvAccessAlignment, LayoutAndBaseAlignmentGiveTheRealAlignment) {
  // body[i] (16), b[1].v[i] (16: an element of a descriptor array has its own base),
  // body[1] store (16), c.b load (4: offset 4), c.a store (16: offset 0 of the base).
  EXPECT_EQ(RewriteWith(16), "16 16 16 4 16 ");
}

TEST(SpirvAccessAlignment, ASmallerBaseAlignmentBoundsIt) { EXPECT_EQ(RewriteWith(4), "4 4 4 4 4 "); }

TEST(SpirvAccessAlignment, UnknownBaseKeepsScalarAlignment) { EXPECT_EQ(RewriteWith(0), "4 4 4 4 4 "); }

}  // namespace
}  // namespace bindery::spirv
