// MinWordCount (instruction_shape.h): a binary search in the generated table.
#include "spirv/instruction_shape.h"

#include <algorithm>
#include <iterator>

namespace bindery::spirv {
namespace {

struct Fewest {
  uint32_t opcode;
  uint32_t words;
};

constexpr Fewest kFewest[] = {
#include "spirv_min_words.inc"
};

}  // namespace

uint32_t MinWordCount(spv::Op op) {
  const uint32_t code = static_cast<uint32_t>(op);
  const Fewest* it = std::lower_bound(std::begin(kFewest), std::end(kFewest), code,
                                      [](const Fewest& f, uint32_t c) { return f.opcode < c; });
  return (it != std::end(kFewest) && it->opcode == code) ? it->words : 1;
}

}  // namespace bindery::spirv
