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

}  // namespace
