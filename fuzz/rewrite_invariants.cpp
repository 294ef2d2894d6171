#include "rewrite_invariants.h"

#include <cstring>
#include <vector>

#include <spirv-tools/libspirv.hpp>

#include "spirv/module.h"
#include "spirv/operand_kinds.h"
#include "spirv/rewrite.h"
#include "spirv/use_kinds.h"
#include "spirv/validate/module_validator.h"

namespace bindery::spirv_fuzz {
namespace {

using bindery::spirv::TargetEnv;

constexpr TargetEnv kTargets[] = {TargetEnv::kVulkan1_0, TargetEnv::kVulkan1_1, TargetEnv::kVulkan1_1Spirv1_4,
                                  TargetEnv::kVulkan1_2, TargetEnv::kVulkan1_3};
constexpr spv_target_env kEnvs[] = {SPV_ENV_VULKAN_1_0, SPV_ENV_VULKAN_1_1, SPV_ENV_VULKAN_1_1_SPIRV_1_4,
                                    SPV_ENV_VULKAN_1_2, SPV_ENV_VULKAN_1_3};

uint32_t Hash(const std::vector<uint32_t>& words) {
  uint32_t h = 2166136261u;
  for (uint32_t w : words) h = (h ^ w) * 16777619u;
  return h;
}

bool Valid(spv_target_env env, const std::vector<uint32_t>& words) {
  spvtools::SpirvTools tools(env);
  tools.SetMessageConsumer([](spv_message_level_t, const char*, const spv_position_t&, const char*) {});
  return tools.Validate(words.data(), words.size());
}

// The grammar tables on every instruction of a module: the ids a walk reports are operands
// the instruction has ("" or what broke).
std::string CheckGrammarWalk(const spirv::Module& m) {
  const spirv::ExtInstSets sets(m);
  std::string broken;
  auto walk = [&](const spirv::Instruction& inst) {
    spirv::grammar::ForEachIdOperand(inst, sets.SetOf(inst), [&](uint32_t k) {
      if (k >= inst.operand_count() && broken.empty())
        broken = "the grammar walk names operand " + std::to_string(k) + " of an instruction with " +
                 std::to_string(inst.operand_count()) + " (opcode " + std::to_string(inst.opcode()) + ")";
    });
  };
  for (const auto* section : {&m.capabilities, &m.extensions, &m.ext_inst_imports, &m.memory_model, &m.entry_points,
                              &m.execution_modes, &m.debug, &m.annotations, &m.types_values})
    for (const spirv::Instruction& inst : *section) walk(inst);
  for (const spirv::Function& f : m.functions)
    for (const spirv::Instruction& inst : f.instructions) walk(inst);
  return broken;
}

// A specialization from the input's option bits: every SpecId of the module set to one
// value (small, so array lengths stay sensible; 0 now and then).
std::vector<spirv::SpecValue> SpecializationFor(const spirv::Module& m, uint32_t bits) {
  std::vector<spirv::SpecValue> values;
  const uint32_t value = (bits >> 16) & 7u;
  for (const spirv::Instruction& a : m.annotations)
    if (a.opcode() == spv::OpDecorate && a.operand_count() >= 3 && a.operand(1) == spv::DecorationSpecId)
      values.push_back(spirv::SpecValue{a.operand(2), {value}});
  return values;
}

// The layer's own path from a VkSpecializationInfo (SpecValuesOf): one map entry per
// SpecId, of 4, 8, 1 or 2 bytes (chosen by the option bits), at 4-byte steps into a data
// blob made from the input's bytes (small values: array lengths stay sensible); now and
// then an entry reaches past the data, which the layer must skip.
std::vector<spirv::SpecValue> SpecializationFromMap(const spirv::Module& m, uint32_t bits, const uint8_t* input,
                                                    size_t input_size) {
  uint8_t data[64] = {};
  for (size_t i = 0; i < sizeof data && i < input_size; i += 4) data[i] = input[i] & 7u;
  constexpr std::size_t kSizes[4] = {4, 8, 1, 2};
  std::vector<spirv::SpecMapEntry> entries;
  uint32_t k = 0;
  for (const spirv::Instruction& a : m.annotations) {
    if (a.opcode() != spv::OpDecorate || a.operand_count() < 3 || a.operand(1) != spv::DecorationSpecId) continue;
    const std::size_t size = kSizes[(bits >> (20 + 2 * (k % 4))) & 3u];
    const uint32_t offset = ((bits >> 28) & 1u) && k == 0 ? 62u : 4u * (k % 15u);
    entries.push_back(spirv::SpecMapEntry{a.operand(2), offset, size});
    ++k;
  }
  return spirv::SpecValuesOf(entries.data(), static_cast<uint32_t>(entries.size()), data, sizeof data);
}

}  // namespace

std::string CheckRewriteInvariants(const uint8_t* data, size_t size) {
  const size_t word_count = size / 4;
  std::vector<uint32_t> words(word_count);
  if (word_count) std::memcpy(words.data(), data, word_count * 4);
  uint32_t bits = 0;
  if (size % 4) {
    for (size_t i = word_count * 4; i < size; ++i) bits = (bits << 8) | data[i];
  } else {
    bits = Hash(words);
  }

  spirv::Module parsed;
  if (spirv::ParseModule(words.data(), words.size(), &parsed).empty()) {
    const std::string broken = CheckGrammarWalk(parsed);
    if (!broken.empty()) return broken;
  }
  const spirv::ModuleInfo info = spirv::Inspect(words.data(), words.size());
  const uint32_t root_offset = (bits & 1) ? 0u : ((info.push_constant_bytes + 7u) & ~7u) + 8u * ((bits >> 1) & 3u);
  const bool ubo = (bits >> 3) & 1;
  spirv::RewriteOptions options = spirv::DefaultLayout(info, root_offset, ubo);
  const size_t target = ((bits >> 4) & 7u) % 5u;
  options.target = kTargets[target];
  options.shader_int64 = (bits >> 7) & 1;
  options.bounds_checks = (bits >> 8) & 1;
  options.convert_uniform_buffers = ubo;
  // Now and then a layout the module does not match: a dropped binding, a bigger array.
  if ((bits >> 9) & 1) {
    for (auto& set : options.sets) {
      if (!set.bindings.empty()) set.bindings.pop_back();
    }
  }
  if ((bits >> 10) & 1) {
    for (auto& set : options.sets) {
      for (auto& b : set.bindings) b.array_size += 1;
    }
  }
  // Now and then the root in a buffer (push constants full), at a set the module may
  // already use (then the rewrite must refuse, unchanged).
  if ((bits >> 11) & 1) {
    options.root_placement = spirv::RootPlacement::kStorageBuffer;
    options.root_buffer_set = (bits >> 12) & 7u;
  }

  // Now and then the rewrite for one entry point (a pipeline stage names one): the others,
  // their execution modes, the functions only they reach and the push-constant variables
  // no one names any more are left out (spirv::RewriteOptions::entry_point).
  if (((bits >> 29) & 1) && !info.entry_points.empty()) {
    options.entry_point = info.entry_points[((bits >> 30) & 3u) % info.entry_points.size()].name;
  }

  const spirv::RewriteResult r = spirv::RewriteDescriptorsToPointers(words.data(), words.size(), options);
  if (!r.error.empty()) return "";  // unreadable input: a clear error is all we ask
  if (!r.report.converted) {
    if (r.module != words) return "a refused module must come back unchanged\n" + r.report.ToString();
    return "";
  }
  const spirv::ModuleInfo after = spirv::Inspect(r.module.data(), r.module.size());
  if (!after.error.empty()) return "the rewritten module does not read back: " + after.error + "\n" + r.report.ToString();
  if (info.error.empty() && Valid(kEnvs[target], words) && !Valid(kEnvs[target], r.module)) {
    return "valid input, converted, but the output fails spirv-val\n" + r.report.ToString();
  }
  // Now and then: valid after specialization too (the input's spec constants set to one
  // value, or through the layer's VkSpecializationInfo path), wherever the specialized
  // input is valid.
  if ((bits >> 15) & 1) {
    const std::vector<spirv::SpecValue> spec =
        ((bits >> 19) & 1) ? SpecializationFromMap(parsed, bits, data, size) : SpecializationFor(parsed, bits);
    const spirv::RewriteVerdict v = spirv::JudgeRewrite(words, r.module, options.target, spec);
    if (v.rewrite_invalid) return "specialized input valid, specialized output not: " + v.message + "\n" + r.report.ToString();
  }
  return "";
}

}  // namespace bindery::spirv_fuzz
