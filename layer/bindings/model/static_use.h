// Which descriptor bindings a pipeline's shaders statically use (the spec's term: named in
// an entry point's static call tree). A pipeline that runs natively (a fallback, or a
// rewritten pipeline's native twin) has its bound sets materialised as full native sets;
// only the bindings it statically uses are written there. The others may name resources
// the application has destroyed since (valid while no bound pipeline statically uses
// them), and must never reach the driver.
#pragma once

#include <cstdint>
#include <vector>

namespace bindery::bindings {

class StaticUse {
 public:
  void Add(uint32_t set, uint32_t binding) { keys_.push_back(Key(set, binding)); }
  // Everything `other` uses (a pipeline linked from libraries uses what each of them does).
  void AddAll(const StaticUse& other) { keys_.insert(keys_.end(), other.keys_.begin(), other.keys_.end()); }
  // Sorts and removes duplicates; call once after the last Add.
  void Seal();
  bool Uses(uint32_t set, uint32_t binding) const;

 private:
  static uint64_t Key(uint32_t set, uint32_t binding) { return (uint64_t{set} << 32) | binding; }
  std::vector<uint64_t> keys_;  // sorted once sealed
};

}  // namespace bindery::bindings
