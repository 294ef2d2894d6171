#include "core/stats.h"

#include <algorithm>
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

Counter& CounterSet::Register(const char* name, const ReasonTally* reasons) {
  Counter& c = Register(name);
  for (std::size_t i = 0; i < size_; ++i) {
    if (&counters_[i] == &c) reasons_[i] = reasons;
  }
  return c;
}

void ReasonTally::Add(const std::string& reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [r, n] : counts_) {
    if (r == reason) {
      ++n;
      return;
    }
  }
  counts_.emplace_back(reason, 1);
}

std::string ReasonTally::Summary() const {
  std::vector<std::pair<std::string, uint64_t>> sorted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sorted = counts_;
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [reason, n] : sorted) {
    if (!out.empty()) out += "; ";
    out += reason + " \u00d7 " + std::to_string(n);
  }
  return out;
}

std::string CounterSet::Summary() const {
  if (size_ == 0) return "nothing";
  std::string out;
  for (std::size_t i = 0; i < size_; ++i) {
    if (i != 0) out += ", ";
    out += names_[i];
    out += ' ';
    out += std::to_string(counters_[i].Get());
    if (reasons_[i] != nullptr) {
      const std::string reasons = reasons_[i]->Summary();
      if (!reasons.empty()) out += ": {" + reasons + "}";
    }
  }
  return out;
}

}  // namespace bindery
