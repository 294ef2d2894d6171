#include "wide_index_check.h"

#include <algorithm>
#include <unordered_map>

#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.hpp>

namespace bindery::spirv_exec {
namespace {

struct Def {
  spv::Op op = spv::OpNop;
  std::vector<uint32_t> operands;  // after the result id (types), or after type + result
  uint32_t type = 0;               // result type (values)
};

}  // namespace

std::vector<uint32_t> BufferPointerChains(const std::vector<uint32_t>& words) {
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> pointer_types;  // id -> (class, pointee)
  std::vector<uint32_t> out;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const auto op = static_cast<spv::Op>(words[i] & 0xffff);
    if (count == 0 || i + count > words.size()) break;
    if (op == spv::OpTypePointer && count >= 4) pointer_types[words[i + 1]] = {words[i + 2], words[i + 3]};
    if ((op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain || op == spv::OpPtrAccessChain ||
         op == spv::OpInBoundsPtrAccessChain) && count >= 4) {
      auto t = pointer_types.find(words[i + 1]);
      if (t != pointer_types.end() && t->second.first == spv::StorageClassPhysicalStorageBuffer) out.push_back(words[i + 2]);
    }
    i += count;
  }
  return out;
}

std::string NarrowBufferIndex(const std::vector<uint32_t>& words, const std::vector<uint32_t>& original) {
  // Chains that were buffer-pointer chains in the application's own module are its own.
  std::vector<uint32_t> own;
  if (!original.empty()) own = BufferPointerChains(original);
  std::unordered_map<uint32_t, Def> defs;
  std::vector<std::pair<uint32_t, size_t>> chains;  // (result id, word index)
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const auto op = static_cast<spv::Op>(words[i] & 0xffff);
    if (count == 0 || i + count > words.size()) return "malformed module";
    bool has_result = false, has_type = false;
    spv::HasResultAndType(op, &has_result, &has_type);
    if (has_result) {
      Def d;
      d.op = op;
      const size_t first = i + 1 + (has_type ? 1 : 0);
      if (has_type) d.type = words[i + 1];
      const uint32_t id = words[first];
      d.operands.assign(words.begin() + static_cast<long>(first + 1), words.begin() + static_cast<long>(i + count));
      defs[id] = std::move(d);
      if (op == spv::OpAccessChain || op == spv::OpInBoundsAccessChain || op == spv::OpPtrAccessChain ||
          op == spv::OpInBoundsPtrAccessChain)
        chains.emplace_back(id, i);
    }
    i += count;
  }
  auto def = [&](uint32_t id) -> const Def* {
    auto it = defs.find(id);
    return it == defs.end() ? nullptr : &it->second;
  };
  auto int_type = [&](uint32_t value, uint32_t* width, bool* is_signed) {
    const Def* v = def(value);
    const Def* t = v ? def(v->type) : nullptr;
    if (!t || t->op != spv::OpTypeInt || t->operands.size() < 2) return false;
    *width = t->operands[0];
    *is_signed = t->operands[1] != 0;
    return true;
  };
  for (const auto& [id, at] : chains) {
    if (std::find(own.begin(), own.end(), id) != own.end()) continue;
    const Def& chain = defs[id];
    const Def* result_type = def(chain.type);
    if (!result_type || result_type->op != spv::OpTypePointer ||
        result_type->operands[0] != spv::StorageClassPhysicalStorageBuffer)
      continue;
    const Def* base = def(chain.operands[0]);
    const Def* base_type = base ? def(base->type) : nullptr;
    if (!base_type || base_type->op != spv::OpTypePointer) continue;
    uint32_t type = base_type->operands[1];
    // Positions whose index must be wide: OpPtrAccessChain's Element, array indices.
    std::vector<uint32_t> wide_positions;
    size_t k = 1;
    if (chain.op == spv::OpPtrAccessChain || chain.op == spv::OpInBoundsPtrAccessChain) wide_positions.push_back(k++);
    for (; k < chain.operands.size(); ++k) {
      const Def* t = def(type);
      if (!t) break;
      if (t->op == spv::OpTypeStruct) {
        const Def* c = def(chain.operands[k]);
        if (!c || c->op != spv::OpConstant || c->operands.empty() || c->operands[0] >= t->operands.size()) break;
        type = t->operands[c->operands[0]];
      } else if (t->op == spv::OpTypeArray || t->op == spv::OpTypeRuntimeArray) {
        wide_positions.push_back(static_cast<uint32_t>(k));
        type = t->operands[0];
      } else {
        break;
      }
    }
    for (uint32_t p : wide_positions) {
      const uint32_t index = chain.operands[p];
      const Def* d = def(index);
      if (d && (d->op == spv::OpConstant || d->op == spv::OpConstantNull)) continue;
      uint32_t width = 0;
      bool is_signed = false;
      if (!int_type(index, &width, &is_signed)) return "%" + std::to_string(id) + ": index of unknown type";
      if (width != 64)
        return "%" + std::to_string(id) + ": index %" + std::to_string(index) + " is " + std::to_string(width) +
               "-bit on a PhysicalStorageBuffer chain";
      if (d && (d->op == spv::OpSConvert || d->op == spv::OpUConvert)) {
        uint32_t from_width = 0;
        bool from_signed = false;
        if (int_type(d->operands[0], &from_width, &from_signed) && from_signed != (d->op == spv::OpSConvert))
          return "%" + std::to_string(id) + ": index %" + std::to_string(index) + " widened by " +
                 (d->op == spv::OpSConvert ? "OpSConvert from an unsigned" : "OpUConvert from a signed") + " value";
      }
    }
  }
  return "";
}

}  // namespace bindery::spirv_exec
