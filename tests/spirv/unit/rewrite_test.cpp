// The descriptor-to-pointer rewrite: every rewritten module passes spirv-val for its
// target, under each option (int64 or uvec2 addresses, bounds checks, uniform buffers),
// for compute, vertex and fragment shaders compiled for SPIR-V 1.0 to 1.6.
#include <gtest/gtest.h>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

struct Variant {
  bool int64, bounds, ubo;
  std::string Name() const {
    return std::string(int64 ? "int64" : "uvec2") + (bounds ? "+bounds" : "") + (ubo ? "+ubo" : "");
  }
};

RewriteResult Rewrite(const test::SpvFile& f, const Variant& v, RewriteOptions* used = nullptr) {
  ModuleInfo info = Inspect(f.words.data(), f.words.size());
  EXPECT_EQ(info.error, "");
  RewriteOptions o = DefaultLayout(info, (info.push_constant_bytes + 7u) & ~7u, v.ubo);
  o.target = test::TargetFor(f.env);
  o.shader_int64 = v.int64;
  o.bounds_checks = v.bounds;
  if (used) *used = o;
  return RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
}

class SpirvRewriteVariants : public ::testing::TestWithParam<Variant> {};

TEST_P(SpirvRewriteVariants, EveryShaderConvertsAndValidates) {
  const Variant v = GetParam();
  for (const auto& f : test::AllSpvFiles()) {
    SCOPED_TRACE(f.Name() + " " + v.Name());
    ASSERT_EQ(test::Validate(f.words, test::TargetFor(f.env)), "") << "the input itself must validate";
    RewriteResult r = Rewrite(f, v);
    ASSERT_EQ(r.error, "");
    ASSERT_TRUE(r.report.converted) << r.report.ToString();
    std::string why = test::Validate(r.module, test::TargetFor(f.env));
    EXPECT_EQ(why, "") << r.report.ToString() << test::Disassemble(r.module);
    Module m;
    ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
    EXPECT_EQ(m.memory_model.front().operand(0), static_cast<uint32_t>(spv::AddressingModelPhysicalStorageBuffer64));
    // No storage-buffer descriptor is left.
    for (const Instruction& inst : m.types_values) {
      if (inst.opcode() != spv::OpVariable) continue;
      EXPECT_NE(inst.operand(0), static_cast<uint32_t>(spv::StorageClassStorageBuffer));
    }
    EXPECT_GT(r.report.push_constant_end, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Options, SpirvRewriteVariants,
                         ::testing::Values(Variant{true, false, false}, Variant{false, false, false},
                                           Variant{true, true, false}, Variant{false, true, false},
                                           Variant{true, false, true}, Variant{false, true, true}),
                         [](const ::testing::TestParamInfo<Variant>& p) {
                           std::string n = p.param.Name();
                           for (char& c : n) if (c == '+') c = '_';
                           return n;
                         });

const test::SpvFile& Find(const std::vector<test::SpvFile>& files, const std::string& shader, const std::string& env) {
  for (const auto& f : files)
    if (f.shader == shader && f.env == env) return f;
  ADD_FAILURE() << shader << " " << env;
  return files.front();
}

TEST(SpirvRewrite, EntryPointInterfaceFollowsTheVersion) {
  auto files = test::AllSpvFiles();
  for (std::string env : {"vulkan1.1", "spirv1.4", "vulkan1.3"}) {
    RewriteResult r = Rewrite(Find(files, "ssbo_runtime_array.comp", env), {true, false, false});
    ASSERT_TRUE(r.report.converted) << r.report.reason;
    Module m;
    ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
    uint32_t pc = 0;
    for (const Instruction& inst : m.types_values)
      if (inst.opcode() == spv::OpVariable && inst.operand(0) == spv::StorageClassPushConstant) pc = inst.result_id();
    ASSERT_NE(pc, 0u);
    const Instruction& ep = m.entry_points.front();
    bool listed = false;
    for (uint32_t k = 3; k < ep.operand_count(); ++k) listed |= ep.operand(k) == pc;
    EXPECT_EQ(listed, m.version >= 0x00010400) << env;
  }
}

TEST(SpirvRewrite, ExistingPushConstantsKeepTheirMembersAndRootFollows) {
  auto files = test::AllSpvFiles();
  const auto& f = Find(files, "push_constants.comp", "vulkan1.2");
  ModuleInfo info = Inspect(f.words.data(), f.words.size());
  EXPECT_EQ(info.push_constant_bytes, 8u);
  RewriteResult r = Rewrite(f, {true, false, false});
  ASSERT_TRUE(r.report.converted) << r.report.reason;
  EXPECT_EQ(r.report.push_constant_end, 16u);
  // The uniform buffer stays a descriptor unless asked.
  bool ubo_kept = false;
  for (const auto& b : r.report.bindings) ubo_kept |= b.outcome == BindingOutcome::kUniformBufferKept;
  EXPECT_TRUE(ubo_kept) << r.report.ToString();
}

TEST(SpirvRewrite, RootOverlappingPushConstantsIsNotConverted) {
  auto files = test::AllSpvFiles();
  const auto& f = Find(files, "push_constants.comp", "vulkan1.2");
  ModuleInfo info = Inspect(f.words.data(), f.words.size());
  RewriteOptions o = DefaultLayout(info, 0, false);
  RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
  EXPECT_FALSE(r.report.converted);
  EXPECT_EQ(r.report.reason.rfind("not converted: ", 0), 0u) << r.report.reason;
  EXPECT_EQ(r.module, f.words);
}

TEST(SpirvRewrite, EmptyLayoutLeavesTheModuleUnchanged) {
  auto files = test::AllSpvFiles();
  const auto& f = files.front();
  RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), RewriteOptions{});
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.report.converted);
  EXPECT_EQ(r.module, f.words);
}

TEST(SpirvRewrite, GarbageIsAnError) {
  std::vector<uint32_t> garbage{1, 2, 3, 4, 5, 6, 7};
  RewriteResult r = RewriteDescriptorsToPointers(garbage.data(), garbage.size(), RewriteOptions{});
  EXPECT_NE(r.error, "");
  ModuleInfo info = Inspect(garbage.data(), garbage.size());
  EXPECT_NE(info.error, "");
}

TEST(SpirvInspect, ListsEntryPointsAndResources) {
  auto files = test::AllSpvFiles();
  const auto& f = Find(files, "descriptor_array.comp", "vulkan1.2");
  ModuleInfo info = Inspect(f.words.data(), f.words.size());
  ASSERT_EQ(info.error, "");
  EXPECT_EQ(info.spirv_version, 0x00010500u);
  ASSERT_EQ(info.entry_points.size(), 1u);
  EXPECT_EQ(info.entry_points[0].execution_model, "GLCompute");
  ASSERT_EQ(info.entry_points[0].resources.size(), 2u);
  EXPECT_EQ(info.entry_points[0].resources[0].array_size, 4u);
  RewriteOptions o = DefaultLayout(info, 0, false);
  ASSERT_EQ(o.sets.size(), 2u);
  EXPECT_EQ(o.sets[0].root_offset, 0u);
  EXPECT_EQ(o.sets[1].root_offset, 8u);
  EXPECT_EQ(o.sets[0].bindings[0].array_size, 4u);
}

}  // namespace
}  // namespace bindery::spirv
