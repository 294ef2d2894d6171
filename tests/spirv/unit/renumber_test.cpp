// RenumberDescriptorSets: DescriptorSet decorations move to the new numbers, everything
// else is left as it was, the result validates, and malformed input is refused untouched.
#include <gtest/gtest.h>

#include <spirv-tools/libspirv.hpp>

#include "spirv/renumber.h"
#include "spirv/rewrite.h"
#include "spvasm_module.h"

namespace bindery::spirv::test {
namespace {

const char* kTwoImages = R"(
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %a DescriptorSet 2
               OpDecorate %a Binding 0
               OpDecorate %b DescriptorSet 5
               OpDecorate %b Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
      %float = OpTypeFloat 32
        %img = OpTypeImage %float 2D 0 0 0 2 Rgba32f
        %ptr = OpTypePointer UniformConstant %img
          %a = OpVariable %ptr UniformConstant
          %b = OpVariable %ptr UniformConstant
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
)";

std::vector<uint32_t> SetsOf(const std::vector<uint32_t>& words) {
  std::vector<uint32_t> sets;
  for (size_t i = 5; i < words.size(); i += words[i] >> 16) {
    if ((words[i] & 0xffffu) == 71 && words[i + 2] == 34) sets.push_back(words[i + 3]);
    if ((words[i] >> 16) == 0) break;
  }
  return sets;
}

TEST(RenumberDescriptorSets, MovesOnlyTheMappedSets) {
  std::vector<uint32_t> words = Assemble(kTwoImages, TargetEnv::kVulkan1_2);
  ASSERT_FALSE(words.empty());
  const std::vector<uint32_t> before = words;
  bool changed = false;
  // Sets 0, 1, 3, 4 became roots: 2 -> 0, 5 -> 1.
  ASSERT_TRUE(RenumberDescriptorSets(words, {0, 0, 0, 1, 1, 1}, &changed));
  EXPECT_TRUE(changed);
  EXPECT_EQ(SetsOf(words), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(words.size(), before.size());
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  EXPECT_TRUE(tools.Validate(words));
  // The identity changes nothing.
  std::vector<uint32_t> same = before;
  ASSERT_TRUE(RenumberDescriptorSets(same, {0, 1, 2, 3, 4, 5}, &changed));
  EXPECT_FALSE(changed);
  EXPECT_EQ(same, before);
  // Sets beyond the map are kept.
  std::vector<uint32_t> short_map = before;
  ASSERT_TRUE(RenumberDescriptorSets(short_map, {0, 0, 1}, &changed));
  EXPECT_EQ(SetsOf(short_map), (std::vector<uint32_t>{1, 5}));
}

TEST(RenumberDescriptorSets, RefusesMalformedStreamsUntouched) {
  std::vector<uint32_t> words = Assemble(kTwoImages, TargetEnv::kVulkan1_2);
  ASSERT_GT(words.size(), 8u);
  words[7] = (200u << 16) | 71u;  // an instruction running past the end
  const std::vector<uint32_t> before = words;
  bool changed = true;
  EXPECT_FALSE(RenumberDescriptorSets(words, {0, 0, 0}, &changed));
  EXPECT_FALSE(changed);
  EXPECT_EQ(words, before);
  std::vector<uint32_t> empty;
  EXPECT_FALSE(RenumberDescriptorSets(empty, {}, &changed));
  std::vector<uint32_t> zero_count = before;
  zero_count[5] = 0;
  EXPECT_FALSE(RenumberDescriptorSets(zero_count, {0}, &changed));
}

}  // namespace
}  // namespace bindery::spirv::test
