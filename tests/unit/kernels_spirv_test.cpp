// The embedded transfer kernels are valid SPIR-V for the environments the layer targets
// (checked with SPIRV-Tools, no GPU).
#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

#include <string>
#include <vector>

#include "copy_regions_comp.h"
#include "copy_shift_comp.h"
#include "copy_vec4_comp.h"
#include "fill_vec4_comp.h"
#include "transfer/kernels.h"
#include "transfer/staging.h"

namespace {

void ExpectValid(const uint32_t* words, size_t bytes, const char* name) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t&, const char* m) {
    messages += m;
    messages += "\n";
  });
  EXPECT_TRUE(tools.Validate(words, bytes / 4)) << name << ":\n" << messages;
}

TEST(TransferKernels, EmbeddedSpirvValidates) {
  ExpectValid(fill_vec4_comp, sizeof(fill_vec4_comp), "fill_vec4");
  ExpectValid(copy_vec4_comp, sizeof(copy_vec4_comp), "copy_vec4");
  ExpectValid(copy_shift_comp, sizeof(copy_shift_comp), "copy_shift");
  ExpectValid(copy_regions_comp, sizeof(copy_regions_comp), "copy_regions");
}

// What the kernels decode from their base workgroup (shaders/transfer_common.glsl, written
// out here) is the block and offset the layer named, for every block index and every
// record offset a slice can have (16-byte aligned, within the first kBlockSize bytes), and
// the bases stay within the minimum maxComputeWorkGroupCount (65535) that vkCmdDispatchBase allows.
TEST(TransferKernels, ParameterRecordNamesRoundTrip) {
  using bindery::transfer::NameParams;
  using bindery::transfer::StagingPool;
  for (uint32_t block : {0u, 1u, 77u, StagingPool::kMaxBlocks - 1}) {
    for (uint64_t offset = 0; offset + 32 <= StagingPool::kBlockSize; offset += 16 * 997) {
      const auto name = NameParams(block, offset);
      ASSERT_LT(name.base_y, 65535u);
      ASSERT_LT(name.base_z, 65535u);
      const uint32_t code = name.base_y | (name.base_z << 15);
      EXPECT_EQ(code >> 18, block);
      EXPECT_EQ(uint64_t{code & 0x3FFFFu} << 4, offset);
    }
  }
  const auto last = NameParams(StagingPool::kMaxBlocks - 1, StagingPool::kBlockSize - 32);
  EXPECT_EQ(((last.base_y | (last.base_z << 15)) & 0x3FFFFu) << 4, StagingPool::kBlockSize - 32);
}

}  // namespace
