#include "spirv/renumber.h"

#include <cstddef>

namespace bindery::spirv {
namespace {

constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kOpFunction = 54;  // decorations all come before the first function
constexpr uint32_t kDecorationDescriptorSet = 34;

}  // namespace

bool RenumberDescriptorSets(std::vector<uint32_t>& words, const std::vector<uint32_t>& new_set_of, bool* changed) {
  *changed = false;
  if (words.size() < kHeaderWords || words[0] != 0x07230203u) return false;
  // First pass: find the literals to change and check the stream; second: change them.
  std::vector<std::size_t> at;
  for (std::size_t i = kHeaderWords; i < words.size();) {
    const uint32_t count = words[i] >> 16;
    const uint32_t opcode = words[i] & 0xffffu;
    if (count == 0 || count > words.size() - i) return false;
    if (opcode == kOpFunction) break;
    if (opcode == kOpDecorate && count == 4 && words[i + 2] == kDecorationDescriptorSet) {
      const uint32_t set = words[i + 3];
      if (set < new_set_of.size() && new_set_of[set] != set) at.push_back(i + 3);
    }
    i += count;
  }
  for (std::size_t i : at) words[i] = new_set_of[words[i]];
  *changed = !at.empty();
  return true;
}

}  // namespace bindery::spirv
