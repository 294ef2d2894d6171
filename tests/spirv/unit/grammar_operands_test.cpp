// The operand tables generated from the SPIR-V grammars (layer/spirv/operand_kinds.h)
// against SPIRV-Tools' own parser: every core instruction of the grammar, and every
// instruction of every extended set, is built with all its operands (optional ones
// present, repeated ones twice, enum values that bring operands of their own where the
// kind has any) and the word positions our walk calls ids must be exactly the ones
// spvBinaryParse calls ids.
#include <gtest/gtest.h>
#include <spirv-tools/libspirv.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "spirv/instruction.h"
#include "spirv/operand_kinds.h"

namespace bindery::spirv {
namespace {

using grammar::OperandClass;
using grammar::Quantifier;

constexpr uint32_t kIntType = 1, kValue = 2, kResult = 3, kImport = 4, kBound = 16;
constexpr uint32_t kLiteral = 7;

// Appends one operand of `kind`; `with_params`: enum values that bring operands.
void Synthesize(uint16_t kind, bool with_params, std::vector<uint32_t>* words) {
  const grammar::KindEntry& k = grammar::Kind(kind);
  switch (k.cls) {
    case OperandClass::kId: words->push_back(kValue); break;
    case OperandClass::kLiteral:
    case OperandClass::kContextNumber: words->push_back(kLiteral); break;
    case OperandClass::kString: words->push_back(0x00626100u); break;  // "ab"
    case OperandClass::kPairLiteralId: words->push_back(kLiteral); words->push_back(kValue); break;
    case OperandClass::kPairIdLiteral: words->push_back(kValue); words->push_back(kLiteral); break;
    case OperandClass::kPairIdId: words->push_back(kValue); words->push_back(kValue); break;
    case OperandClass::kValueEnum:
    case OperandClass::kBitEnum: {
      if (!with_params || k.enum_count == 0) {
        words->push_back(0);
        break;
      }
      // The first value that brings operands.
      const grammar::EnumEntry* e = grammar::EnumEntries() + k.first_enum;
      words->push_back(e->value);
      for (uint32_t p = 0; p < e->param_count; ++p) {
        const uint16_t pk = grammar::OperandKindParam(e->first_param + p);
        Synthesize(pk, false, words);
        if (e->last_repeats && p + 1 == e->param_count) Synthesize(pk, false, words);
      }
      break;
    }
  }
}

std::vector<uint32_t> SynthesizeOperands(const grammar::OperandEntry* ops, uint32_t count, bool with_params) {
  std::vector<uint32_t> words;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t times = ops[i].quantifier == Quantifier::kAny ? 2 : 1;
    for (uint32_t t = 0; t < times; ++t) Synthesize(ops[i].kind, with_params, &words);
  }
  return words;
}

// A module: an int type, a constant of it, an import of `set_name` (if any), then `inst`.
std::vector<uint32_t> ModuleAround(const std::vector<uint32_t>& inst, const std::string& set_name) {
  std::vector<uint32_t> m = {0x07230203u, 0x00010600u, 0, kBound, 0};
  if (!set_name.empty()) {
    std::vector<uint32_t> name((set_name.size() + 4) / 4, 0u);
    for (size_t i = 0; i < set_name.size(); ++i) name[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(set_name[i])) << (8 * (i % 4));
    m.push_back(static_cast<uint32_t>((2 + name.size()) << 16) | spv::OpExtInstImport);
    m.push_back(kImport);
    m.insert(m.end(), name.begin(), name.end());
  }
  m.insert(m.end(), {(4u << 16) | spv::OpTypeInt, kIntType, 32, 0});
  m.insert(m.end(), {(4u << 16) | spv::OpConstant, kIntType, kValue, 0});
  m.insert(m.end(), inst.begin(), inst.end());
  return m;
}

struct Parsed {
  bool ok = false;
  std::set<uint32_t> id_words;  // word offsets of id operands after type and result
  uint32_t first_operand = 0;
};

Parsed ParseLast(const std::vector<uint32_t>& module) {
  struct State {
    Parsed p;
  } state;
  spv_context context = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  auto on_instruction = [](void* user, const spv_parsed_instruction_t* inst) -> spv_result_t {
    auto* s = static_cast<State*>(user);
    s->p.id_words.clear();
    uint32_t first = 1 + (inst->type_id ? 1u : 0u) + (inst->result_id ? 1u : 0u);
    s->p.first_operand = first;
    for (uint16_t i = 0; i < inst->num_operands; ++i) {
      const spv_parsed_operand_t& o = inst->operands[i];
      if (o.offset < first) continue;
      switch (o.type) {
        case SPV_OPERAND_TYPE_ID: case SPV_OPERAND_TYPE_TYPE_ID: case SPV_OPERAND_TYPE_RESULT_ID:
        case SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID: case SPV_OPERAND_TYPE_SCOPE_ID:
          s->p.id_words.insert(o.offset - first);
          break;
        default: break;
      }
    }
    return SPV_SUCCESS;
  };
  spv_diagnostic diagnostic = nullptr;
  const spv_result_t r = spvBinaryParse(context, &state, module.data(), module.size(), nullptr, on_instruction, &diagnostic);
  spvDiagnosticDestroy(diagnostic);
  spvContextDestroy(context);
  state.p.ok = r == SPV_SUCCESS;
  return state.p;
}

std::set<uint32_t> OurIds(const std::vector<uint32_t>& inst_words, const grammar::ExtSetEntry* set, bool* ok) {
  const Instruction inst(inst_words);
  std::set<uint32_t> ids;
  *ok = grammar::ForEachIdOperand(inst, set, [&](uint32_t k) { ids.insert(k); });
  return ids;
}

std::vector<uint32_t> Encode(uint32_t opcode, bool has_type, bool has_result, const std::vector<uint32_t>& operands) {
  std::vector<uint32_t> w{opcode};
  if (has_type) w.push_back(kIntType);
  if (has_result) w.push_back(kResult);
  w.insert(w.end(), operands.begin(), operands.end());
  w[0] |= static_cast<uint32_t>(w.size()) << 16;
  return w;
}

TEST(SpirvGrammarOperands, EveryCoreInstructionMatchesSpirvTools) {
  uint32_t count = 0;
  const grammar::InstructionEntry* all = grammar::Instructions(&count);
  ASSERT_GT(count, 500u) << "the core grammar has hundreds of instructions";
  uint32_t compared = 0, unknown_to_spirv_tools = 0;
  std::string mismatches;
  for (uint32_t i = 0; i < count; ++i) {
    const grammar::InstructionEntry& e = all[i];
    if (e.opcode == spv::OpExtInst) continue;  // walked per set below
    bool matched_any = false, parsed_any = false;
    for (bool with_params : {true, false}) {
      const std::vector<uint32_t> inst = Encode(e.opcode, e.has_type, e.has_result,
                                                SynthesizeOperands(grammar::Operands() + e.first_operand, e.operand_count, with_params));
      const Parsed p = ParseLast(ModuleAround(inst, ""));
      if (!p.ok) continue;  // e.g. an enum value newer than SPIRV-Tools: try without
      parsed_any = true;
      bool ok = false;
      const std::set<uint32_t> ours = OurIds(inst, nullptr, &ok);
      if (ok && ours == p.id_words) {
        matched_any = true;
        ++compared;
        continue;
      }
      mismatches += std::string(e.name) + (with_params ? " (enum operands)" : "") + "\n";
    }
    if (!parsed_any) ++unknown_to_spirv_tools;
    (void)matched_any;
  }
  EXPECT_EQ(mismatches, "") << "id operands differ from SPIRV-Tools'";
  // SPIRV-Tools of the same Debian release knows nearly every instruction of the headers.
  EXPECT_LT(unknown_to_spirv_tools, count / 10) << compared << " compared";
  EXPECT_GT(compared, count / 2);
  std::printf("compared %u of %u core instructions (%u unknown to SPIRV-Tools)\n", compared, count, unknown_to_spirv_tools);
}

TEST(SpirvGrammarOperands, EveryExtendedInstructionMatchesSpirvTools) {
  uint32_t sets = 0;
  const grammar::ExtSetEntry* all = grammar::ExtSets(&sets);
  ASSERT_GE(sets, 2u) << "GLSL.std.450 and the debug-info sets at least";
  bool saw_glsl = false;
  std::string mismatches;
  uint32_t compared = 0;
  for (uint32_t s = 0; s < sets; ++s) {
    std::string name = all[s].name;
    if (name == "GLSL.std.450") saw_glsl = true;
    if (name.back() == '.') name += "5";  // a versioned set
    for (uint32_t i = 0; i < all[s].count; ++i) {
      const grammar::ExtInstructionEntry& e = grammar::ExtInstructions()[all[s].first + i];
      std::vector<uint32_t> operands{kImport, e.number};
      const std::vector<uint32_t> rest = SynthesizeOperands(grammar::Operands() + e.first_operand, e.operand_count, false);
      operands.insert(operands.end(), rest.begin(), rest.end());
      const std::vector<uint32_t> inst = Encode(spv::OpExtInst, true, true, operands);
      const Parsed p = ParseLast(ModuleAround(inst, name));
      if (!p.ok) continue;
      bool ok = false;
      const std::set<uint32_t> ours = OurIds(inst, &all[s], &ok);
      if (ok && ours == p.id_words) {
        ++compared;
      } else {
        mismatches += name + " " + e.name + "\n";
      }
    }
  }
  EXPECT_TRUE(saw_glsl);
  EXPECT_EQ(mismatches, "");
  EXPECT_GT(compared, 300u);
  std::printf("compared %u extended instructions\n", compared);
}

// The literal instruction number of an extended instruction is never an id, whatever
// its value; an unknown set's operands all count as ids (the conservative side).
TEST(SpirvGrammarOperands, ExtInstNumberIsALiteral) {
  const grammar::ExtSetEntry* glsl = grammar::FindExtSet("GLSL.std.450");
  ASSERT_NE(glsl, nullptr);
  // %r = OpExtInst %t %set UMin(38) %a %b
  const Instruction umin(std::vector<uint32_t>{(7u << 16) | spv::OpExtInst, 1, 9, 4, 38, 5, 6});
  std::vector<uint32_t> ids;
  grammar::ForEachIdOperand(umin, glsl, [&](uint32_t k) { ids.push_back(k); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 2, 3}));
  ids.clear();
  grammar::ForEachIdOperand(umin, nullptr, [&](uint32_t k) { ids.push_back(k); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(grammar::FindExtSet("NonSemantic.Unknown"), nullptr);
  EXPECT_NE(grammar::FindExtSet("NonSemantic.ClspvReflection.5"), nullptr);
  // OpSpecConstantOp's opcode is a literal.
  const Instruction spec(std::vector<uint32_t>{(6u << 16) | spv::OpSpecConstantOp, 1, 9, spv::OpIAdd, 5, 6});
  ids.clear();
  grammar::ForEachIdOperand(spec, nullptr, [&](uint32_t k) { ids.push_back(k); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2}));
  // OpLoad's Aligned literal is not an id; MakePointerVisible's scope is.
  const Instruction load(std::vector<uint32_t>{(7u << 16) | spv::OpLoad, 1, 9, 5,
                                               spv::MemoryAccessAlignedMask | spv::MemoryAccessMakePointerVisibleMask |
                                                   spv::MemoryAccessNonPrivatePointerMask, 16, 8});
  ids.clear();
  grammar::ForEachIdOperand(load, nullptr, [&](uint32_t k) { ids.push_back(k); });
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 3}));
}

}  // namespace
}  // namespace bindery::spirv
