#include "bindings/model/root_layout.h"

namespace bindery::bindings {
namespace {
uint32_t Align8(uint32_t v) { return (v + 7u) & ~7u; }
}  // namespace

RootLayout PlanRoot(std::vector<std::shared_ptr<const SetLayoutShadow>> sets, uint32_t app_push_end,
                    uint32_t max_push_bytes) {
  RootLayout root;
  root.begin = Align8(app_push_end);
  uint32_t cursor = root.begin;
  root.sets.resize(sets.size());
  for (size_t i = 0; i < sets.size(); ++i) {
    SetRoot& r = root.sets[i];
    r.layout = std::move(sets[i]);
    if (r.layout == nullptr || !r.layout->converts()) continue;
    root.converts = true;
    r.root_offset = cursor;
    r.root_only = !r.layout->has_native && r.layout->total_dynamic == 0;
    cursor += 8;
    if (r.layout->converted_dynamic != 0) {
      root.dynamic = true;
      r.dynamic_offset = cursor;
      cursor += 4 * r.layout->converted_dynamic;
    }
    cursor = Align8(cursor);
  }
  root.end = cursor;
  root.fits = !root.converts || root.end <= max_push_bytes;
  return root;
}

}  // namespace bindery::bindings
