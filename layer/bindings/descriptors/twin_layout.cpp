#include "bindings/descriptors/twin_layout.h"

namespace bindery::bindings {

std::shared_ptr<TwinLayout> MakeTwinLayout(const PipelineLayoutShadow& layout) {
  auto base = std::make_shared<TwinLayout>();
  base->layout.root = layout.root;
  base->layout.native_ranges = layout.native_ranges;
  base->layout.full = layout.full;
  // What a delivery of its root needs (root_delivery.cpp): the stages a root push names.
  base->layout.root_stages[0] = layout.root_stages[0];
  base->layout.root_stages[1] = layout.root_stages[1];
  base->layout.ranges_key = layout.ranges_key;
  for (const SetRoot& r : layout.root.sets) base->sets.push_back(r.layout);
  return base;
}

}  // namespace bindery::bindings
