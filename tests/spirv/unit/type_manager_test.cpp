// TypeManager: finds existing types and constants, creates each new one once.
#include <gtest/gtest.h>

#include "spirv/type_manager.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

TEST(SpirvTypeManager, FindsExistingAndDedupsNewTypes) {
  auto f = test::AllSpvFiles().front();
  Module m;
  ASSERT_EQ(ParseModule(f.words.data(), f.words.size(), &m), "");
  TypeManager types(m);
  const uint32_t u32 = types.FindType(spv::OpTypeInt, {32, 0});
  ASSERT_NE(u32, 0u) << "the shader uses uint";
  const uint32_t bound = m.bound;
  EXPECT_EQ(types.GetUintType(), u32);
  EXPECT_EQ(m.bound, bound) << "an existing type is not created again";
  const uint32_t u64 = types.GetIntType(64, false);
  EXPECT_EQ(types.GetIntType(64, false), u64);
  const uint32_t p = types.GetPointerType(spv::StorageClassPhysicalStorageBuffer, u64);
  EXPECT_EQ(types.GetPointerType(spv::StorageClassPhysicalStorageBuffer, u64), p);
  const uint32_t strided = types.GetPointerType(spv::StorageClassPhysicalStorageBuffer, u64, 8);
  EXPECT_NE(strided, p) << "ArrayStride makes a different pointer type";
  EXPECT_EQ(types.GetPointerType(spv::StorageClassPhysicalStorageBuffer, u64, 8), strided);
  const uint32_t s = types.GetStructType({u64, u64}, {0, 8}, false);
  EXPECT_EQ(types.GetStructType({u64, u64}, {0, 8}, false), s);
  EXPECT_NE(types.GetStructType({u64, u64}, {0, 16}, false), s);
  const uint32_t c = types.GetUintConstant(12345);
  EXPECT_EQ(types.GetUintConstant(12345), c);
  uint32_t v = 0;
  EXPECT_TRUE(types.GetConstantValue(c, &v));
  EXPECT_EQ(v, 12345u);
  EXPECT_EQ(types.SizeOf(s), 16u);
  EXPECT_EQ(types.ScalarAlignment(s), 8u);
  // The grown module is still a module, with a correct bound.
  std::vector<uint32_t> out = m.Write();
  EXPECT_EQ(out[3], m.bound);
  Module again;
  EXPECT_EQ(ParseModule(out.data(), out.size(), &again), "");
}

}  // namespace
}  // namespace bindery::spirv
