// RootPlacement::kStorageBuffer (docs/indirect-bindings.md: the root in a reserved descriptor set
// when push constants are full): every unit shader, SPIR-V 1.0 to 1.6, int64 and uvec2
// addresses, with and without bounds checks and with dynamic offsets, rewrites into a
// module spirv-val accepts, that reads its root from a read-only buffer at (set, 0) —
// StorageBuffer class from SPIR-V 1.3, Uniform + BufferBlock before — and leaves the
// module's own push constants as they were.
#include <gtest/gtest.h>

#include <algorithm>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

constexpr uint32_t kRootSet = 9;

struct Variant {
  bool int64, bounds, dynamic;
};

// The default layout with the roots from byte 0 of the buffer, and (when `dynamic`) every
// binding's dynamic offsets after the roots.
RewriteOptions RootBufferLayout(const ModuleInfo& info, const test::SpvFile& f, const Variant& v) {
  RewriteOptions o = DefaultLayout(info, 0, false);
  o.target = test::TargetFor(f.env);
  o.shader_int64 = v.int64;
  o.bounds_checks = v.bounds;
  o.root_placement = RootPlacement::kStorageBuffer;
  o.root_buffer_set = kRootSet;
  if (v.dynamic) {
    uint32_t at = 8 * static_cast<uint32_t>(o.sets.size());
    for (SetLayout& s : o.sets) {
      for (BindingLayout& b : s.bindings) {
        b.dynamic_offsets_root_offset = at;
        at += 4 * std::max(1u, b.array_size);
      }
    }
  }
  return o;
}

TEST(SpirvRootBuffer, EveryShaderReadsItsRootFromTheBufferAndValidates) {
  for (const Variant v : {Variant{true, false, false}, Variant{false, false, false}, Variant{true, true, false},
                          Variant{false, true, true}, Variant{true, false, true}}) {
    for (const auto& f : test::AllSpvFiles()) {
      SCOPED_TRACE(f.Name() + (v.int64 ? " int64" : " uvec2") + (v.bounds ? " bounds" : "") +
                   (v.dynamic ? " dynamic" : ""));
      const ModuleInfo info = Inspect(f.words.data(), f.words.size());
      ASSERT_EQ(info.error, "");
      const RewriteOptions o = RootBufferLayout(info, f, v);
      RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
      ASSERT_EQ(r.error, "");
      ASSERT_TRUE(r.report.converted) << r.report.ToString();
      EXPECT_EQ(test::Validate(r.module, o.target), "") << r.report.ToString() << test::Disassemble(r.module);
      // The module's push constants are its own; the root is in the buffer.
      EXPECT_EQ(r.report.push_constant_end, info.push_constant_bytes);
      EXPECT_GE(r.report.root_buffer_end, 8u * o.sets.size());
      Module m;
      ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &m), "");
      uint32_t root_var = 0, push_vars = 0;
      for (const Instruction& inst : m.types_values) {
        if (inst.opcode() != spv::OpVariable) continue;
        if (inst.operand(0) == spv::StorageClassPushConstant) ++push_vars;
        if (inst.operand(0) == spv::StorageClassStorageBuffer || inst.operand(0) == spv::StorageClassUniform) {
          for (const Instruction& a : m.annotations) {
            if (a.opcode() == spv::OpDecorate && a.operand(0) == inst.result_id() &&
                a.operand(1) == spv::DecorationDescriptorSet && a.operand(2) == kRootSet) {
              root_var = inst.result_id();
              EXPECT_EQ(inst.operand(0), m.version >= 0x00010300 ? spv::StorageClassStorageBuffer
                                                                 : spv::StorageClassUniform);
            }
          }
        }
      }
      EXPECT_NE(root_var, 0u) << test::Disassemble(r.module);
      EXPECT_EQ(push_vars, info.push_constant_bytes != 0 ? 1u : 0u);
    }
  }
}

TEST(SpirvRootBuffer, ABindingAlreadyAtTheRootsPlaceIsNotConverted) {
  for (const auto& f : test::AllSpvFiles()) {
    if (f.shader != "ssbo_runtime_array.comp" || f.env != "vulkan1.2") continue;
    const ModuleInfo info = Inspect(f.words.data(), f.words.size());
    // Binding 1 of set 0 converts; binding 0 stays a descriptor where the root would go.
    RewriteOptions o = RootBufferLayout(info, f, {true, false, false});
    o.root_buffer_set = 0;
    ASSERT_EQ(o.sets.size(), 1u);
    auto& bindings = o.sets[0].bindings;
    bindings.erase(std::remove_if(bindings.begin(), bindings.end(), [](const BindingLayout& b) { return b.binding == 0; }),
                   bindings.end());
    ASSERT_EQ(bindings.size(), 1u);
    RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
    EXPECT_FALSE(r.report.converted);
    EXPECT_NE(r.report.reason.find("in use"), std::string::npos) << r.report.reason;
    EXPECT_EQ(r.module, f.words);
    return;
  }
  FAIL() << "ssbo_runtime_array.comp for vulkan1.2 not found";
}

}  // namespace
}  // namespace bindery::spirv
