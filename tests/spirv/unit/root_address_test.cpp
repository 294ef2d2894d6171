// RootPlacement::kPushAddress (docs/indirect-bindings.md: the ring root read through its
// address, for a root too large for push constants where no descriptor set is left for the
// reserved one): every unit shader, SPIR-V 1.0 to 1.6, int64 and uvec2 addresses, with and
// without bounds checks, dynamic offsets and records in the root, rewrites into a module
// spirv-val accepts, whose push constants are its own followed by the 8-byte address alone,
// and which reads the root through a PhysicalStorageBuffer pointer to a block of its own.
#include <gtest/gtest.h>

#include <algorithm>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

struct Variant {
  bool int64, bounds, dynamic, records;
};

// The default layout from byte 0 of the root's memory (records in the root: 16 bytes each,
// else the block's address), dynamic offsets after the slots; the address right after the
// module's own push constants.
RewriteOptions AddressLayout(const ModuleInfo& info, const test::SpvFile& f, const Variant& v) {
  RewriteOptions o = DefaultLayout(info, 0, false);
  o.target = test::TargetFor(f.env);
  o.shader_int64 = v.int64;
  o.bounds_checks = v.bounds;
  o.root_placement = RootPlacement::kPushAddress;
  o.root_address_offset = (info.push_constant_bytes + 7u) & ~7u;
  uint32_t at = 0;
  for (SetLayout& s : o.sets) {
    s.root_offset = at;
    s.records_in_root = v.records;
    uint32_t records = 0;
    for (const BindingLayout& b : s.bindings) records = std::max(records, b.first_record + std::max(1u, b.array_size));
    at += v.records ? 16 * records : 8;
  }
  if (v.dynamic) {
    for (SetLayout& s : o.sets) {
      for (BindingLayout& b : s.bindings) {
        b.dynamic_offsets_root_offset = at;
        at += 4 * std::max(1u, b.array_size);
      }
    }
  }
  return o;
}

TEST(SpirvRootAddress, EveryShaderReadsItsRootThroughItsAddressAndValidates) {
  for (const Variant v : {Variant{true, false, false, false}, Variant{false, false, false, false},
                          Variant{true, true, false, false}, Variant{false, true, true, false},
                          Variant{true, false, true, true}, Variant{false, true, false, true}}) {
    for (const auto& f : test::AllSpvFiles()) {
      SCOPED_TRACE(f.Name() + (v.int64 ? " int64" : " uvec2") + (v.bounds ? " bounds" : "") +
                   (v.dynamic ? " dynamic" : "") + (v.records ? " records" : ""));
      const ModuleInfo info = Inspect(f.words.data(), f.words.size());
      ASSERT_EQ(info.error, "");
      const RewriteOptions o = AddressLayout(info, f, v);
      RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
      ASSERT_EQ(r.error, "");
      ASSERT_TRUE(r.report.converted) << r.report.ToString();
      EXPECT_EQ(test::Validate(r.module, o.target), "") << r.report.ToString() << test::Disassemble(r.module);
      // Push constants: the module's own, then the address alone.
      EXPECT_EQ(r.report.push_constant_end, o.root_address_offset + 8);
      EXPECT_GE(r.report.root_buffer_end, 8u);
      // One push-constant variable; no descriptor added (the rewrite's DescriptorSet
      // decorations are at most the input's: converted buffers lose theirs).
      auto descriptor_sets = [](const Module& m) {
        uint32_t n = 0;
        for (const Instruction& a : m.annotations)
          n += a.opcode() == spv::OpDecorate && a.operand(1) == spv::DecorationDescriptorSet ? 1 : 0;
        return n;
      };
      Module in, out;
      ASSERT_EQ(ParseModule(f.words.data(), f.words.size(), &in), "");
      ASSERT_EQ(ParseModule(r.module.data(), r.module.size(), &out), "");
      uint32_t push_vars = 0, psb_root_pointers = 0;
      for (const Instruction& inst : out.types_values) {
        if (inst.opcode() == spv::OpVariable && inst.operand(0) == spv::StorageClassPushConstant) ++push_vars;
        if (inst.opcode() == spv::OpTypePointer && inst.operand(0) == spv::StorageClassPhysicalStorageBuffer) {
          ++psb_root_pointers;
        }
      }
      EXPECT_EQ(push_vars, 1u);
      EXPECT_LE(descriptor_sets(out), descriptor_sets(in)) << test::Disassemble(r.module);
      EXPECT_GE(psb_root_pointers, 1u);
    }
  }
}

}  // namespace
}  // namespace bindery::spirv
