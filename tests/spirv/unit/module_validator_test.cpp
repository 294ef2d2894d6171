// The validator behind the bindings_validate setting (layer/spirv/validate/): the
// application's specialization is applied before spirv-val, and a rewrite is judged only
// when the application's own module passes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spirv/validate/module_validator.h"
#include "spvasm_module.h"

namespace bindery::spirv {
namespace {

constexpr TargetEnv kTarget = TargetEnv::kVulkan1_1;

// A workgroup array sized by spec constant 7 (default 4); EXTRA goes among the globals.
std::string Shader(const std::string& extra = "") {
  return R"(
               OpCapability Shader
               OpCapability StorageBuffer16BitAccess
               OpExtension "SPV_KHR_16bit_storage"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %n SpecId 7
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %half = OpTypeFloat 16
          %n = OpSpecConstant %uint 4
        %arr = OpTypeArray %uint %n
    %ptr_arr = OpTypePointer Workgroup %arr
     %shared = OpVariable %ptr_arr Workgroup
)" + extra + R"(
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
)";
}

TEST(SpirvModuleValidator, SpecializationIsAppliedBeforeValidation) {
  const std::vector<uint32_t> words = test::Assemble(Shader(), kTarget);
  EXPECT_EQ(ValidateSpecialized(words, kTarget, {}), "");
  EXPECT_EQ(ValidateSpecialized(words, kTarget, {SpecValue{7, {16}}}), "");
  // An array of length 0 exists only after this specialization.
  EXPECT_NE(ValidateSpecialized(words, kTarget, {SpecValue{7, {0}}}), "");
}

TEST(SpirvModuleValidator, SpecValuesFromAMap) {
  const uint32_t data[2] = {5, 0xdeadbeef};
  const SpecMapEntry entries[] = {{7, 0, 4}, {9, 4, 2}, {11, 6, 4}};  // the last reaches past the data
  const std::vector<SpecValue> v = SpecValuesOf(entries, 3, data, sizeof data);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].id, 7u);
  EXPECT_EQ(v[0].words, std::vector<uint32_t>{5});
  EXPECT_EQ(v[1].words, std::vector<uint32_t>{0xbeefu});
}

TEST(SpirvModuleValidator, OnlyTheRewriteIsBlamed) {
  const std::vector<uint32_t> original = test::Assemble(Shader(), kTarget);
  // What the rewrite once emitted for storage-only halves.
  const std::vector<uint32_t> broken = test::Assemble(Shader("%z = OpConstantNull %half\n"), kTarget);
  RewriteVerdict v = JudgeRewrite(original, broken, kTarget, {});
  EXPECT_TRUE(v.rewrite_invalid);
  EXPECT_NE(v.message.find("8- or 16-bit"), std::string::npos) << v.message;
  v = JudgeRewrite(original, original, kTarget, {});
  EXPECT_FALSE(v.rewrite_invalid);
  EXPECT_FALSE(v.original_invalid);
  // The application's module already fails (under this specialization): not judged.
  v = JudgeRewrite(original, broken, kTarget, {SpecValue{7, {0}}});
  EXPECT_FALSE(v.rewrite_invalid);
  EXPECT_TRUE(v.original_invalid);
}

}  // namespace
}  // namespace bindery::spirv
