#include "spvasm_module.h"

#include <gtest/gtest.h>
#include <spirv-tools/libspirv.hpp>

#include "spv_files.h"

namespace bindery::spirv::test {

std::vector<uint32_t> Assemble(const std::string& text, TargetEnv target) {
  spvtools::SpirvTools tools(SpvEnvFor(target));
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& p, const char* m) {
    messages += "line " + std::to_string(p.line) + ": " + m + "\n";
  });
  std::vector<uint32_t> words;
  if (!tools.Assemble(text, &words, SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS)) {
    ADD_FAILURE() << "does not assemble:\n" << messages;
    return {};
  }
  return words;
}

int CountMemberDecorations(const Module& module, spv::Decoration decoration) {
  int n = 0;
  for (const Instruction& a : module.annotations)
    if (a.opcode() == spv::OpMemberDecorate && a.operand(2) == static_cast<uint32_t>(decoration)) ++n;
  return n;
}

RewriteOptions LayoutFor(const std::vector<uint32_t>& words, TargetEnv target, bool int64, bool bounds) {
  const ModuleInfo info = Inspect(words.data(), words.size());
  EXPECT_EQ(info.error, "");
  RewriteOptions o = DefaultLayout(info, (info.push_constant_bytes + 7u) & ~7u, false);
  o.target = target;
  o.shader_int64 = int64;
  o.bounds_checks = bounds;
  return o;
}

}  // namespace bindery::spirv::test
