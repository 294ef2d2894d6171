// Malformed input found by the fuzzer reads operands past an instruction's end. The parser
// now rejects any instruction shorter than the grammar allows (instruction_shape.h), and
// the rewrite survives every instruction of real shaders losing its last word.
#include <gtest/gtest.h>

#include "spirv/instruction_shape.h"
#include "spirv/module.h"
#include "spirv/rewrite.h"
#include "spv_files.h"

namespace bindery::spirv {
namespace {

// `words` with the instruction starting at `at` one word shorter.
std::vector<uint32_t> DropLastWord(const std::vector<uint32_t>& words, size_t at) {
  const uint32_t count = words[at] >> 16;
  std::vector<uint32_t> out(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(at + count - 1));
  out[at] = ((count - 1) << 16) | (words[at] & 0xffffu);
  out.insert(out.end(), words.begin() + static_cast<std::ptrdiff_t>(at + count), words.end());
  return out;
}

TEST(SpirvShortInstruction, GrammarMinimumsAreKnown) {
  EXPECT_EQ(MinWordCount(spv::OpTypeInt), 4u);        // result, width, signedness
  EXPECT_EQ(MinWordCount(spv::OpTypePointer), 4u);    // result, storage class, type
  EXPECT_EQ(MinWordCount(spv::OpStore), 3u);          // pointer, object
  EXPECT_EQ(MinWordCount(spv::OpAccessChain), 4u);    // type, result, base
  EXPECT_EQ(MinWordCount(spv::OpEntryPoint), 4u);     // model, function, name
  EXPECT_EQ(MinWordCount(spv::OpTypeStruct), 2u);     // members are optional
  EXPECT_EQ(MinWordCount(static_cast<spv::Op>(0xfffe)), 1u);  // unknown opcode
  EXPECT_EQ(ToStorageClass(0x80000005u), spv::StorageClassMax);
  EXPECT_EQ(ToStorageClass(12), spv::StorageClassStorageBuffer);
}

TEST(SpirvShortInstruction, EveryInstructionOneWordShortIsAnErrorOrRewritesSafely) {
  size_t rejected = 0, rewritten = 0;
  for (const auto& f : test::AllSpvFiles()) {
    if (f.env != "vulkan1.2" && f.env != "vulkan1.0") continue;
    const ModuleInfo info = Inspect(f.words.data(), f.words.size());
    ASSERT_EQ(info.error, "") << f.Name();
    RewriteOptions options = DefaultLayout(info, (info.push_constant_bytes + 7u) & ~7u, true);
    options.target = test::TargetFor(f.env);
    for (size_t at = 5; at < f.words.size(); at += f.words[at] >> 16) {
      const uint32_t count = f.words[at] >> 16;
      if (count < 2) continue;
      const std::vector<uint32_t> w = DropLastWord(f.words, at);
      Module m;
      const std::string parse = ParseModule(w.data(), w.size(), &m);
      const auto op = static_cast<spv::Op>(f.words[at] & 0xffffu);
      if (count - 1 < MinWordCount(op)) {
        EXPECT_NE(parse, "") << f.Name() << " word " << at << " opcode " << op;
      }
      for (bool bounds : {false, true}) {
        options.bounds_checks = bounds;
        options.shader_int64 = !bounds;
        const RewriteResult r = RewriteDescriptorsToPointers(w.data(), w.size(), options);
        if (!r.error.empty()) {
          ++rejected;
        } else {
          ++rewritten;
          if (!r.report.converted) {
            EXPECT_EQ(r.module, w) << "a refused module comes back unchanged";
          }
        }
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(rewritten, 0u);
}

}  // namespace
}  // namespace bindery::spirv
