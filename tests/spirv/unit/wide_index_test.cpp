// Buffers beyond 4 GiB: with shaderInt64 the rewrite computes the address of an array
// element whose byte offset may reach 2 GiB (a dynamic index, a large constant, a dynamic
// or negative OpPtrAccessChain Element) in 64-bit integer arithmetic — the pointer to
// element 0 as an integer, plus the index converted by its signedness (OpUConvert of a
// uint index, OpSConvert of an int one) times the stride, back to a pointer — because
// drivers may form an access chain's offset in 32 bits whatever its indices' width (NVIDIA
// does; VK_EXT_shader_64bit_indexing exists for that). Small constants and struct member
// indices stay in chains, 32-bit. Without shaderInt64 nothing 64-bit appears. The H100
// test BindingsBeyond4GiB proves the effect; this proves the emitted arithmetic anywhere.
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
// order, each with how it is defined ("OpUConvert %ulong %21", "OpConstant %uint 2").
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

// How every index (not the base) of every chain yielding a buffer pointer is defined.
std::vector<std::string> AllBufferChainIndexDefinitions(const std::string& text) {
  std::vector<std::string> out;
  static const std::regex chain(R"(= Op(?:Ptr)?AccessChain %_ptr_PhysicalStorageBuffer\w* %\w+((?: %\w+)*)\n)");
  static const std::regex id(R"(%\w+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), chain); it != std::sregex_iterator(); ++it) {
    const std::string indices = (*it)[1].str();
    for (auto k = std::sregex_iterator(indices.begin(), indices.end(), id); k != std::sregex_iterator(); ++k) {
      const std::regex def(k->str() + R"( = (Op\w+ %\w+))");
      std::smatch m;
      out.push_back(std::regex_search(text, m, def) ? m[1].str() : "?");
    }
  }
  return out;
}

TEST(SpirvWideIndices, FarOffsetsAre64BitAddressArithmeticBySignedness) {
  for (bool bounds : {false, true}) {
    SCOPED_TRACE(bounds ? "bounds checks" : "no bounds checks");
    const Rewritten r = Rewrite(true, bounds);
    ASSERT_EQ(r.error, "") << r.text;
    // v[i], uint i: zero-extended, times the stride, added to element 0's address.
    EXPECT_TRUE(std::regex_search(
        r.text, std::regex(R"((%\w+) = OpUConvert %ulong %\w+\n\s*(%\w+) = OpIMul %ulong \1 %ulong_4\n\s*(%\w+) = )"
                           R"(OpConvertPtrToU %ulong %\w+\n\s*(%\w+) = OpIAdd %ulong \3 \2\n\s*%\w+ = OpConvertUToPtr )"
                           R"(%_ptr_PhysicalStorageBuffer_uint)")))
        << r.text;
    // v[k], int k: sign-extended.
    EXPECT_TRUE(std::regex_search(
        r.text, std::regex(R"((%\w+) = OpSConvert %ulong %\w+\n\s*(%\w+) = OpIMul %ulong \1 %ulong_4\n)")))
        << r.text;
    // v[0x50000000]: 5 GiB in, one 64-bit constant offset.
    EXPECT_TRUE(std::regex_search(r.text, std::regex(R"(OpIAdd %ulong %\w+ %ulong_5368709120\n)"))) << r.text;
    // OpPtrAccessChain's Element -1: minus one stride, the sign kept.
    EXPECT_TRUE(std::regex_search(r.text, std::regex(R"(OpIAdd %ulong %\w+ %ulong_18446744073709551612\n)")))
        << r.text;
    // v[2]: small, stays a 32-bit constant in the chain.
    const std::vector<std::string> d = IndexDefinitions(r.text);
    ASSERT_EQ(d.size(), 1u) << r.text;
    EXPECT_EQ(d[0], "OpConstant %uint 2") << r.text;
    // No chain to a buffer pointer is left with a dynamic index.
    for (const std::string& def : AllBufferChainIndexDefinitions(r.text)) {
      EXPECT_EQ(def.rfind("OpConstant", 0), 0u) << def << "\n" << r.text;
    }
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
