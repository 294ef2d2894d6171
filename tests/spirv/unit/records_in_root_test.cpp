// SetLayout::records_in_root: a set's records travel in the root itself (push constants, or
// the root buffer when push constants are full), so a shader reads each buffer's address
// straight from the root instead of loading its set's argument block first. Every unit
// shader, SPIR-V 1.0 to 1.6, int64 and uvec2 addresses, with and without bounds checks and
// dynamic offsets, in both root placements, rewrites into a module spirv-val accepts, and
// converts no argument-block address into a pointer (fewer pointer conversions than the
// same layout with records in blocks, where each set's block address becomes one).
#include <gtest/gtest.h>

#include <algorithm>

#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

struct Variant {
  bool int64, bounds, dynamic, in_buffer;
};

// The default layout, each set's slot sized for its records (16 bytes each) when
// `records_in_root`, else 8 bytes; dynamic offsets after the slots.
RewriteOptions Layout(const ModuleInfo& info, const test::SpvFile& f, const Variant& v, bool records_in_root) {
  const uint32_t begin = v.in_buffer ? 0 : (info.push_constant_bytes + 7u) & ~7u;
  RewriteOptions o = DefaultLayout(info, begin, false);
  o.target = test::TargetFor(f.env);
  o.shader_int64 = v.int64;
  o.bounds_checks = v.bounds;
  if (v.in_buffer) {
    o.root_placement = RootPlacement::kStorageBuffer;
    o.root_buffer_set = 9;
  }
  uint32_t at = begin;
  for (SetLayout& s : o.sets) {
    s.root_offset = at;
    s.records_in_root = records_in_root;
    uint32_t records = 0;
    for (const BindingLayout& b : s.bindings) records = std::max(records, b.first_record + std::max(1u, b.array_size));
    at += records_in_root ? 16 * records : 8;
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

uint32_t CountOpcode(const std::vector<uint32_t>& words, spv::Op op) {
  Module m;
  if (!ParseModule(words.data(), words.size(), &m).empty()) return 0;
  uint32_t n = 0;
  for (const Function& f : m.functions)
    for (const Instruction& inst : f.instructions) n += inst.opcode() == op ? 1 : 0;
  return n;
}

TEST(SpirvRecordsInRoot, EveryShaderReadsItsRecordsFromTheRootAndValidates) {
  for (const Variant v : {Variant{true, false, false, false}, Variant{false, false, false, false},
                          Variant{true, true, false, false}, Variant{false, true, true, false},
                          Variant{true, false, true, false}, Variant{true, true, true, true},
                          Variant{false, false, false, true}}) {
    for (const auto& f : test::AllSpvFiles()) {
      SCOPED_TRACE(f.Name() + (v.int64 ? " int64" : " uvec2") + (v.bounds ? " bounds" : "") +
                   (v.dynamic ? " dynamic" : "") + (v.in_buffer ? " root-buffer" : " push-constants"));
      const ModuleInfo info = Inspect(f.words.data(), f.words.size());
      ASSERT_EQ(info.error, "");
      const RewriteOptions o = Layout(info, f, v, true);
      RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
      ASSERT_EQ(r.error, "");
      ASSERT_TRUE(r.report.converted) << r.report.ToString();
      EXPECT_EQ(test::Validate(r.module, o.target), "") << r.report.ToString() << test::Disassemble(r.module);
      if (o.sets.empty() || !v.int64) continue;
      // The same layout with records in blocks converts one more address per set and function.
      const RewriteOptions blocks = Layout(info, f, v, false);
      RewriteResult rb = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), blocks);
      ASSERT_TRUE(rb.report.converted) << rb.report.ToString();
      EXPECT_LT(CountOpcode(r.module, spv::OpConvertUToPtr), CountOpcode(rb.module, spv::OpConvertUToPtr))
          << test::Disassemble(r.module);
    }
  }
}

// SetLayout::root_records: only a prefix of a set's records in the root, its block's address
// after them (the layer's layout for sets with more records than fit: ggml's 12 buffers).
// Every unit shader with a set of two or more records, each prefix length, every variant in
// push constants: valid, and it converts a block address into a pointer exactly when some
// binding it reads lies past the prefix.
TEST(SpirvRecordsInRoot, APrefixOfTheRecordsInTheRootThenTheBlocksAddressValidates) {
  uint32_t tried = 0, reading_block = 0;
  for (const Variant v : {Variant{true, false, false, false}, Variant{false, true, false, false},
                          Variant{true, true, true, false}}) {
    for (const auto& f : test::AllSpvFiles()) {
      const ModuleInfo info = Inspect(f.words.data(), f.words.size());
      ASSERT_EQ(info.error, "");
      const RewriteOptions all = Layout(info, f, v, true);
      for (uint32_t prefix = 1; prefix < 4; ++prefix) {
        RewriteOptions o = all;
        uint32_t at = (info.push_constant_bytes + 7u) & ~7u;
        bool partial = false, past = false;
        for (SetLayout& s : o.sets) {
          uint32_t records = 0;
          for (const BindingLayout& b : s.bindings) records = std::max(records, b.first_record + std::max(1u, b.array_size));
          s.root_offset = at;
          if (records > prefix) {
            s.root_records = prefix;
            partial = true;
            for (const BindingLayout& b : s.bindings) past = past || !s.BindingInRoot(b);
            at += 16 * prefix + 8;
          } else {
            at += 16 * records;
          }
        }
        if (!partial) continue;
        for (SetLayout& s : o.sets) {
          for (BindingLayout& b : s.bindings) {
            if (b.dynamic_offsets_root_offset == kNoRootOffset) continue;
            b.dynamic_offsets_root_offset = at;
            at += 4 * std::max(1u, b.array_size);
          }
        }
        SCOPED_TRACE(f.Name() + " prefix " + std::to_string(prefix) + (v.int64 ? " int64" : " uvec2") +
                     (v.bounds ? " bounds" : "") + (v.dynamic ? " dynamic" : ""));
        ++tried;
        RewriteResult r = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), o);
        ASSERT_EQ(r.error, "");
        ASSERT_TRUE(r.report.converted) << r.report.ToString();
        EXPECT_EQ(test::Validate(r.module, o.target), "") << r.report.ToString() << test::Disassemble(r.module);
        if (!v.int64) continue;
        // Addresses of records in the root are converted where used; the block's address
        // only where a binding past the prefix is read: one more conversion per function then.
        RewriteResult whole = RewriteDescriptorsToPointers(f.words.data(), f.words.size(), all);
        ASSERT_TRUE(whole.report.converted);
        const uint32_t with = CountOpcode(r.module, spv::OpConvertUToPtr);
        const uint32_t without = CountOpcode(whole.module, spv::OpConvertUToPtr);
        if (past) {
          ++reading_block;
          EXPECT_GT(with, without) << test::Disassemble(r.module);
        } else {
          EXPECT_EQ(with, without) << test::Disassemble(r.module);
        }
      }
    }
  }
  EXPECT_GT(tried, 0u);
  EXPECT_GT(reading_block, 0u);
}

}  // namespace
}  // namespace bindery::spirv
