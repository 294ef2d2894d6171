// Shapes real shaders have that the rewrite once refused for no reason or rewrote into an
// invalid module: an extended instruction whose number equals a buffer pointer's id,
// OpSpecConstantOp whose opcode equals a converted buffer's id, pointer decorations the
// module already had (Restrict / RestrictPointer), and 8/16-bit storage-only types under
// bounds checks. Every rewritten module must pass spirv-val.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

// SPIR-V 1.3: entry points list only Input/Output variables, so the texts stay short.
constexpr TargetEnv kTarget = TargetEnv::kVulkan1_1;

struct Outcome {
  RewriteResult result;
  std::string invalid;  // spirv-val's message on the rewritten module
};

Outcome RewriteAndValidate(const std::string& text, bool bounds = false, bool int64 = true, bool small_types = false) {
  const std::vector<uint32_t> words = test::Assemble(text, kTarget);
  EXPECT_EQ(test::Validate(words, kTarget), "") << "the input itself must validate";
  Outcome o;
  RewriteOptions layout = test::LayoutFor(words, kTarget, int64, bounds);
  layout.float16 = layout.int16 = layout.int8 = small_types;
  o.result = RewriteDescriptorsToPointers(words.data(), words.size(), layout);
  if (o.result.report.converted) {
    o.invalid = test::Validate(o.result.module, kTarget);
    if (!o.invalid.empty()) o.invalid += "\n" + test::Disassemble(o.result.module);
  }
  return o;
}

std::string Replace(std::string s, const std::string& key, const std::string& value) {
  const size_t at = s.find(key);
  if (at != std::string::npos) s.replace(at, key.size(), value);
  return s;
}

// One buffer of uints; BODY is the function body between the label and OpReturn.
const char* kOneBuffer = R"(
               OpCapability Shader
               CAPS
       %glsl = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %BUFID DescriptorSet 0
               OpDecorate %BUFID Binding 0
               DECORATIONS
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
        %rta = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rta
    %ptr_Buf = OpTypePointer StorageBuffer %Buf
   %ptr_uint = OpTypePointer StorageBuffer %uint
               GLOBALS
      %BUFID = OpVariable %ptr_Buf StorageBuffer
               FUNCTIONS
       %main = OpFunction %void None %fn
      %entry = OpLabel
               BODY
               OpReturn
               OpFunctionEnd
)";

std::string OneBuffer(const std::string& body, const std::string& globals = "", const std::string& decorations = "",
                      const std::string& caps = "", const std::string& functions = "", const std::string& buf = "buf") {
  std::string s = kOneBuffer;
  s = Replace(s, "CAPS", caps);
  s = Replace(s, "DECORATIONS", decorations);
  s = Replace(s, "GLOBALS", globals);
  s = Replace(s, "FUNCTIONS", functions);
  s = Replace(s, "BODY", body);
  for (size_t at; (at = s.find("BUFID")) != std::string::npos;) s.replace(at, 5, buf);
  return s;
}

// GLSL.std.450 UMin is instruction 38: an access chain with id 38 once made every UMin a
// "use" of the buffer pointer (OpExtInst's number read as an id), and the shader fell back.
TEST(SpirvFalseFallback, ExtInstNumberEqualToABufferPointerIdConverts) {
  for (const char* inst : {"UMin %a %uint_1", "UMax %a %uint_1", "FindUMsb %a"}) {
    SCOPED_TRACE(inst);
    // UMin 38, UMax 41, FindUMsb 75: give the access chain that id.
    const std::string number = std::string(inst).rfind("UMin", 0) == 0 ? "38" : std::string(inst).rfind("UMax", 0) == 0 ? "41" : "75";
    const Outcome o = RewriteAndValidate(OneBuffer(
        "%" + number + " = OpAccessChain %ptr_uint %buf %uint_0 %uint_0\n"
        "%a = OpLoad %uint %" + number + "\n"
        "%m = OpExtInst %uint %glsl " + inst + "\n"
        "%p1 = OpAccessChain %ptr_uint %buf %uint_0 %uint_1\n"
        "OpStore %p1 %m\n"));
    EXPECT_TRUE(o.result.report.converted) << o.result.report.reason;
    EXPECT_EQ(o.invalid, "");
  }
}

// A real use of a buffer pointer by an extended instruction (Modf's out pointer) still
// falls back, and the reason names the set and the instruction.
TEST(SpirvFalseFallback, ExtInstTakingABufferPointerFallsBackWithItsName) {
  std::string text = OneBuffer(
      "%pf = OpAccessChain %ptr_float %fbuf %uint_0 %uint_0\n"
      "%m = OpExtInst %float %glsl Modf %float_1 %pf\n"
      "%pf1 = OpAccessChain %ptr_float %fbuf %uint_0 %uint_1\n"
      "OpStore %pf1 %m\n",
      "%float = OpTypeFloat 32\n%float_1 = OpConstant %float 1.5\n%rtf = OpTypeRuntimeArray %float\n"
      "%FBuf = OpTypeStruct %rtf\n%ptr_FBuf = OpTypePointer StorageBuffer %FBuf\n"
      "%ptr_float = OpTypePointer StorageBuffer %float\n%fbuf = OpVariable %ptr_FBuf StorageBuffer\n",
      "OpDecorate %rtf ArrayStride 4\nOpMemberDecorate %FBuf 0 Offset 0\nOpDecorate %FBuf Block\n"
      "OpDecorate %fbuf DescriptorSet 0\nOpDecorate %fbuf Binding 1\n");
  const Outcome o = RewriteAndValidate(text);
  EXPECT_FALSE(o.result.report.converted);
  EXPECT_NE(o.result.report.reason.find("GLSL.std.450 Modf"), std::string::npos) << o.result.report.reason;
}

// OpSpecConstantOp's first operand is an opcode (IAdd = 128), not an id: a converted
// buffer with id 128 is not "named by a global instruction".
TEST(SpirvFalseFallback, SpecConstantOpOpcodeEqualToABufferIdConverts) {
  const Outcome o = RewriteAndValidate(OneBuffer(
      "%p1 = OpAccessChain %ptr_uint %128 %uint_0 %uint_1\nOpStore %p1 %sum\n",
      "%spec = OpSpecConstant %uint 3\n%sum = OpSpecConstantOp %uint IAdd %spec %uint_1\n",
      "OpDecorate %spec SpecId 4\n", "", "", "128"));
  EXPECT_TRUE(o.result.report.converted) << o.result.report.reason;
  EXPECT_EQ(o.invalid, "");
  // The spec constant keeps its id, type, default and SpecId.
  Module m;
  ASSERT_EQ(ParseModule(o.result.module.data(), o.result.module.size(), &m), "");
  bool spec_kept = false;
  for (const Instruction& i : m.types_values)
    if (i.opcode() == spv::OpSpecConstant && i.operand(0) == 3) spec_kept = true;
  EXPECT_TRUE(spec_kept);
}

// A helper whose buffer-pointer parameter is Restrict: the rewrite must not add Aliased
// (a physical pointer parameter takes exactly one of them).
TEST(SpirvFalseFallback, RestrictParameterIsNotAlsoAliased) {
  const std::string functions = R"(
     %helper = OpFunction %void None %fn_h
         %pp = OpFunctionParameter %ptr_uint
         %hl = OpLabel
         %hv = OpLoad %uint %pp
         %hw = OpIAdd %uint %hv %uint_1
               OpStore %pp %hw
               OpReturn
               OpFunctionEnd
)";
  for (const char* decoration : {"OpDecorate %pp Restrict\n", "OpDecorate %pp Aliased\n", ""}) {
    SCOPED_TRACE(decoration);
    const Outcome o = RewriteAndValidate(
        OneBuffer("%p0 = OpAccessChain %ptr_uint %buf %uint_0 %uint_0\n%c = OpFunctionCall %void %helper %p0\n",
                  "%fn_h = OpTypeFunction %void %ptr_uint\n", decoration, "OpCapability VariablePointersStorageBuffer",
                  functions));
    EXPECT_TRUE(o.result.report.converted) << o.result.report.reason;
    EXPECT_EQ(o.invalid, "");
  }
}

// 16-bit storage without Float16 / Int16: a loaded half may only be stored or converted,
// and no constant of it may exist. Bounds checks used to put OpConstantNull %half and a
// phi of halves in the module.
const char* kStorage16 = R"(
               OpCapability Shader
               OpCapability STORAGECAP
               OpExtension "EXTENSION"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %rta_s ArrayStride SIZE
               OpDecorate %rta_v ArrayStride VSIZE
               OpDecorate %rta_f ArrayStride 4
               OpMemberDecorate %In 0 Offset 0
               OpDecorate %In Block
               OpMemberDecorate %InV 0 Offset 0
               OpDecorate %InV Block
               OpMemberDecorate %Out 0 Offset 0
               OpDecorate %Out Block
               OpMemberDecorate %Out16 0 Offset 0
               OpDecorate %Out16 Block
               OpDecorate %in DescriptorSet 0
               OpDecorate %in Binding 0
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 1
               OpDecorate %out16 DescriptorSet 0
               OpDecorate %out16 Binding 2
               OpDecorate %inv DescriptorSet 0
               OpDecorate %inv Binding 3
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
      %small = SMALLTYPE
         %v2 = OpTypeVector %small 2
        %f32 = WIDETYPE
      %f32v2 = OpTypeVector %f32 2
      %rta_s = OpTypeRuntimeArray %small
      %rta_v = OpTypeRuntimeArray %v2
      %rta_f = OpTypeRuntimeArray %f32
         %In = OpTypeStruct %rta_s
        %InV = OpTypeStruct %rta_v
        %Out = OpTypeStruct %rta_f
      %Out16 = OpTypeStruct %rta_s
     %ptr_In = OpTypePointer StorageBuffer %In
    %ptr_InV = OpTypePointer StorageBuffer %InV
    %ptr_Out = OpTypePointer StorageBuffer %Out
  %ptr_Out16 = OpTypePointer StorageBuffer %Out16
  %ptr_small = OpTypePointer StorageBuffer %small
     %ptr_v2 = OpTypePointer StorageBuffer %v2
    %ptr_f32 = OpTypePointer StorageBuffer %f32
         %in = OpVariable %ptr_In StorageBuffer
        %inv = OpVariable %ptr_InV StorageBuffer
        %out = OpVariable %ptr_Out StorageBuffer
      %out16 = OpVariable %ptr_Out16 StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %p0 = OpAccessChain %ptr_small %in %uint_0 %uint_1
         %h0 = OpLoad %small %p0
         %w0 = CONVERT %f32 %h0
         %q0 = OpAccessChain %ptr_f32 %out %uint_0 %uint_0
               OpStore %q0 %w0
         %p1 = OpAccessChain %ptr_v2 %inv %uint_0 %uint_2
         %h1 = OpLoad %v2 %p1
         %w1 = CONVERT %f32v2 %h1
         %x1 = OpCompositeExtract %f32 %w1 1
         %q1 = OpAccessChain %ptr_f32 %out %uint_0 %uint_1
               OpStore %q1 %x1
         %p2 = OpAccessChain %ptr_small %in %uint_0 %uint_2
         %h2 = OpLoad %small %p2
         %h3 = OpCopyObject %small %h2
         %q2 = OpAccessChain %ptr_small %out16 %uint_0 %uint_0
               OpStore %q2 %h3
               OpReturn
               OpFunctionEnd
)";

std::string Storage(const std::string& cap, const std::string& ext, const std::string& small, const std::string& wide,
                    const std::string& convert, uint32_t size) {
  std::string s = kStorage16;
  s = Replace(s, "STORAGECAP", cap);
  s = Replace(s, "EXTENSION", ext);
  s = Replace(s, "SMALLTYPE", small);
  s = Replace(s, "WIDETYPE", wide);
  for (int i = 0; i < 2; ++i) s = Replace(s, "CONVERT", convert);
  s = Replace(s, "VSIZE", std::to_string(size * 2));
  s = Replace(s, "SIZE", std::to_string(size));
  return s;
}

TEST(SpirvStorageOnlyTypes, BoundsChecksNeverFormConstantsOfStorageOnlyTypes) {
  struct Case {
    const char* name;
    std::string text;
  } cases[] = {
      {"half", Storage("StorageBuffer16BitAccess", "SPV_KHR_16bit_storage", "OpTypeFloat 16", "OpTypeFloat 32", "OpFConvert", 2)},
      {"ushort", Storage("StorageBuffer16BitAccess", "SPV_KHR_16bit_storage", "OpTypeInt 16 0", "OpTypeInt 32 1", "OpSConvert", 2)},
      {"short", Storage("StorageBuffer16BitAccess", "SPV_KHR_16bit_storage", "OpTypeInt 16 1", "OpTypeInt 32 1", "OpSConvert", 2)},
      {"int8", Storage("StorageBuffer8BitAccess", "SPV_KHR_8bit_storage", "OpTypeInt 8 1", "OpTypeInt 32 1", "OpSConvert", 1)},
      {"uint8", Storage("StorageBuffer8BitAccess", "SPV_KHR_8bit_storage", "OpTypeInt 8 0", "OpTypeInt 32 1", "OpSConvert", 1)},
  };
  for (const Case& c : cases) {
    for (bool int64 : {true, false}) {
      SCOPED_TRACE(std::string(c.name) + (int64 ? " int64" : " uvec2"));
      const Outcome o = RewriteAndValidate(c.text, /*bounds=*/true, int64);
      EXPECT_EQ(o.invalid, "");
      const bool half = std::string(c.name) == "half";
      if (int64 && half) {
        // Widened by OpFConvert a signalling NaN would come back quiet (ggml's quantized
        // copies): without Float16 the load is refused; with it, it converts as it is.
        EXPECT_FALSE(o.result.report.converted);
        EXPECT_NE(o.result.report.reason.find("16-bit floats without the Float16 capability"), std::string::npos)
            << o.result.report.reason;
        const Outcome f16 = RewriteAndValidate(c.text, /*bounds=*/true, int64, /*small_types=*/true);
        EXPECT_TRUE(f16.result.report.converted) << f16.result.report.reason;
        EXPECT_EQ(f16.invalid, "");
      } else if (int64) {
        EXPECT_TRUE(o.result.report.converted) << o.result.report.reason;
      } else {
        // Addresses as uvec2 need an OpBitcast to the pointer, which spirv-val forbids
        // for pointers to storage-only types: a fallback with that reason.
        EXPECT_FALSE(o.result.report.converted);
        EXPECT_NE(o.result.report.reason.find("shaderInt64"), std::string::npos) << o.result.report.reason;
      }
    }
  }
}

}  // namespace
}  // namespace bindery::spirv
