// Gap 4: DefaultLayout for a runtime-sized descriptor array gives a documented number of
// records (kDefaultRuntimeArrayRecords) or the caller's, and packs later bindings after them.
#include <gtest/gtest.h>

#include "spirv/rewrite.h"

namespace bindery::spirv {
namespace {

ModuleInfo RuntimeArrayBetweenTwoBuffers() {
  ModuleInfo info;
  EntryPointInfo ep;
  ep.name = "main";
  ep.resources.push_back({0, 0, ResourceKind::kStorageBuffer, 1, "out"});
  ep.resources.push_back({0, 1, ResourceKind::kStorageBuffer, 0, "runtime"});  // array_size 0: runtime-sized
  ep.resources.push_back({0, 2, ResourceKind::kStorageBuffer, 3, "fixed"});
  ep.resources.push_back({1, 0, ResourceKind::kStorageBuffer, 0, "other_set"});
  info.entry_points.push_back(ep);
  return info;
}

TEST(SpirvDefaultLayout, RuntimeArrayGetsTheDocumentedDefault) {
  const RewriteOptions o = DefaultLayout(RuntimeArrayBetweenTwoBuffers(), 0, false);
  ASSERT_EQ(o.sets.size(), 2u);
  ASSERT_EQ(o.sets[0].bindings.size(), 3u);
  EXPECT_EQ(o.sets[0].bindings[1].array_size, kDefaultRuntimeArrayRecords);
  EXPECT_EQ(o.sets[0].bindings[1].first_record, 1u);
  EXPECT_EQ(o.sets[0].bindings[2].first_record, 1u + kDefaultRuntimeArrayRecords) << "packed after the runtime array";
  EXPECT_EQ(o.sets[1].bindings[0].array_size, kDefaultRuntimeArrayRecords);
  EXPECT_EQ(o.sets[1].root_offset, 8u);
}

TEST(SpirvDefaultLayout, CallerOverridesTheRuntimeArrayRecords) {
  const RewriteOptions o = DefaultLayout(RuntimeArrayBetweenTwoBuffers(), 16, false, 5);
  EXPECT_EQ(o.sets[0].root_offset, 16u);
  EXPECT_EQ(o.sets[0].bindings[1].array_size, 5u);
  EXPECT_EQ(o.sets[0].bindings[2].first_record, 6u);
  EXPECT_EQ(o.sets[0].bindings[2].array_size, 3u) << "a sized array keeps its size";
  EXPECT_EQ(DefaultLayout(RuntimeArrayBetweenTwoBuffers(), 0, false, 0).sets[0].bindings[1].array_size, 1u)
      << "never zero records";
}

}  // namespace
}  // namespace bindery::spirv
