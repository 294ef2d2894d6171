#include "bindings/model/static_use.h"

#include <algorithm>

namespace bindery::bindings {

void StaticUse::Seal() {
  std::sort(keys_.begin(), keys_.end());
  keys_.erase(std::unique(keys_.begin(), keys_.end()), keys_.end());
}

bool StaticUse::Uses(uint32_t set, uint32_t binding) const {
  return std::binary_search(keys_.begin(), keys_.end(), Key(set, binding));
}

}  // namespace bindery::bindings
