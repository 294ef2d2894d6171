#include "core/stats.h"

#include <cstring>

namespace bindery {

Counter& CounterSet::Register(const char* name) {
  for (std::size_t i = 0; i < size_; ++i) {
    if (std::strcmp(names_[i], name) == 0) return counters_[i];
  }
  if (size_ == kCapacity) return overflow_;
  names_[size_] = name;
  return counters_[size_++];
}

std::string CounterSet::Summary() const {
  if (size_ == 0) return "nothing";
  std::string out;
  for (std::size_t i = 0; i < size_; ++i) {
    if (i != 0) out += ", ";
    out += names_[i];
    out += ' ';
    out += std::to_string(counters_[i].Get());
  }
  return out;
}

}  // namespace bindery
