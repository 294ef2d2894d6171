// Buffers beyond 4 GiB: with shaderInt64 the rewrite gives every dynamic array index of a
// chain on a buffer pointer a 64-bit type, by its signedness (OpUConvert of a uint index,
// OpSConvert of an int one and of OpPtrAccessChain's signed Element), and turns a constant
// index whose offset reaches 2 GiB into a 64-bit constant; small constants and struct
// member indices stay 32-bit. Without shaderInt64 nothing 64-bit appears. The H100 test
// BindingsBeyond4GiB proves the effect (a driver forming index x stride in 32 bits wraps a
// word at 4.1 GiB to 0.1 GiB); this proves the emitted arithmetic on any machine.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

constexpr TargetEnv kTarget = TargetEnv::kVulkan1_2;

// Binding 0: { uint v[]; }. v[i] (uint i), v[k] (int k), v[2] and v[0x50000000] (a
// constant 5 GiB in), and an OpPtrAccessChain stepping back one element (Element -1).
const char* kModule = R"(
               OpCapability Shader
               OpCapability VariablePointersStorageBuffer
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %id
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %id BuiltIn GlobalInvocationId
               OpDecorate %uarr ArrayStride 4
               OpDecorate %ptr_uint ArrayStride 4
               OpMemberDecorate %A 0 Offset 0
               OpDecorate %A Block
               OpDecorate %a DescriptorSet 0
               OpDecorate %a Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %uvec3 = OpTypeVector %uint 3
      %int_0 = OpConstant %int 0
     %int_m1 = OpConstant %int -1
     %uint_2 = OpConstant %uint 2
   %uint_big = OpConstant %uint 1342177280
       %uarr = OpTypeRuntimeArray %uint
          %A = OpTypeStruct %uarr
      %ptr_A = OpTypePointer StorageBuffer %A
   %ptr_uint = OpTypePointer StorageBuffer %uint
    %ptr_in3 = OpTypePointer Input %uvec3
    %ptr_in1 = OpTypePointer Input %uint
         %id = OpVariable %ptr_in3 Input
          %a = OpVariable %ptr_A StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idp = OpAccessChain %ptr_in1 %id %int_0
          %i = OpLoad %uint %idp
          %k = OpBitcast %int %i
         %p0 = OpAccessChain %ptr_uint %a %int_0 %i
         %v0 = OpLoad %uint %p0
         %p1 = OpAccessChain %ptr_uint %a %int_0 %k
         %v1 = OpLoad %uint %p1
         %p2 = OpAccessChain %ptr_uint %a %int_0 %uint_2
         %v2 = OpLoad %uint %p2
         %p3 = OpAccessChain %ptr_uint %a %int_0 %uint_big
         %v3 = OpLoad %uint %p3
         %p4 = OpPtrAccessChain %ptr_uint %p0 %int_m1
         %s0 = OpIAdd %uint %v0 %v1
         %s1 = OpIAdd %uint %s0 %v2
         %s2 = OpIAdd %uint %s1 %v3
               OpStore %p4 %s2
               OpReturn
               OpFunctionEnd
)";

struct Rewritten {
  std::string error;
  std::string text;
};

Rewritten Rewrite(bool int64, bool bounds) {
  Rewritten out;
  const std::vector<uint32_t> words = test::Assemble(kModule, kTarget);
  if (words.empty()) {
    out.error = "not assembled";
    return out;
  }
  RewriteOptions o = test::LayoutFor(words, kTarget, int64, bounds);
  const RewriteResult r = RewriteDescriptorsToPointers(words.data(), words.size(), o);
  if (!r.error.empty() || !r.report.converted) {
    out.error = "not converted: " + r.error + r.report.ToString();
    return out;
  }
  out.error = test::Validate(r.module, kTarget);
  out.text = test::Disassemble(r.module);
  return out;
}

// The index operands (last operand) of the chains yielding buffer pointers to uint, in
// order (p0..p4), each with how it is defined ("OpUConvert %ulong %21", "OpConstant %uint 2").
std::vector<std::string> IndexDefinitions(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex chain(R"(= Op(?:Ptr)?AccessChain %_ptr_PhysicalStorageBuffer_uint %\w+(?: %\w+)* (%\w+)\n)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), chain); it != std::sregex_iterator(); ++it) {
    const std::regex def((*it)[1].str() + R"( = (Op\w+ %\w+)(?: %\w+)*(?: (-?\d+))?\n)");
    std::smatch m;
    if (!std::regex_search(text, m, def)) {
      out.push_back("?");
      continue;
    }
    std::string d = m[1].str();
    if (d.rfind("OpConstant", 0) == 0) d += " " + m[2].str();
    out.push_back(d);
  }
  return out;
}

TEST(SpirvWideIndices, Int64IndicesAreWidenedBySignedness) {
  for (bool bounds : {false, true}) {
    SCOPED_TRACE(bounds ? "bounds checks" : "no bounds checks");
    const Rewritten r = Rewrite(true, bounds);
    ASSERT_EQ(r.error, "") << r.text;
    const std::vector<std::string> d = IndexDefinitions(r.text);
    ASSERT_EQ(d.size(), 5u) << r.text;
    EXPECT_EQ(d[0], "OpUConvert %ulong") << r.text;        // v[i], uint i
    EXPECT_EQ(d[1], "OpSConvert %ulong") << r.text;        // v[k], int k
    EXPECT_EQ(d[2], "OpConstant %uint 2") << r.text;       // v[2]: small, stays 32-bit
    EXPECT_EQ(d[3], "OpConstant %ulong 1342177280") << r.text;  // v[0x50000000]: 5 GiB in
    EXPECT_EQ(d[4], "OpConstant %long -1") << r.text;      // Element -1, sign kept
  }
}

TEST(SpirvWideIndices, BoundsCheckOffsetsAre64BitAndSigned) {
  const Rewritten r = Rewrite(true, true);
  ASSERT_EQ(r.error, "") << r.text;
  // The checks' byte offsets: the signed index sign-extended, multiplied in 64 bits.
  EXPECT_TRUE(std::regex_search(r.text, std::regex(R"(OpSConvert %ulong %\w+\n[^\n]*OpIMul %ulong)"))) << r.text;
  EXPECT_EQ(r.text.find("OpUMulExtended"), std::string::npos) << r.text;
}

TEST(SpirvWideIndices, WithoutInt64NothingIs64Bit) {
  for (bool bounds : {false, true}) {
    const Rewritten r = Rewrite(false, bounds);
    ASSERT_EQ(r.error, "") << r.text;
    EXPECT_EQ(r.text.find("ulong"), std::string::npos) << r.text;
    const std::vector<std::string> d = IndexDefinitions(r.text);
    ASSERT_EQ(d.size(), 5u) << r.text;
    EXPECT_EQ(d[0], "OpLoad %uint") << r.text;
  }
}

}  // namespace
}  // namespace bindery::spirv
