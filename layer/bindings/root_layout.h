// Where a pipeline layout's root lies in push constants: for each set that has converted
// bindings, the 8-byte address of its argument block followed by its converted dynamic
// offsets (uint32 each), padded to 8 bytes, sets in ascending order, starting at the
// first 8-byte boundary after the application's own push-constant ranges.
//
// A set's slots depend only on the sets below it and the application's ranges, so two
// layouts the spec calls compatible for set N put set N's root in the same place. The
// push-constant range the layer adds covers [begin, max_push) for every stage, so it is
// the same in every layout with the same application ranges (compatible for push
// constants) whatever their sets.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bindings/set_layout_shadow.h"

namespace bindery::bindings {

struct SetRoot {
  std::shared_ptr<const SetLayoutShadow> layout;  // null: no layout known for this set
  uint32_t root_offset = kNoOffset;               // address of the set's block
  uint32_t dynamic_offset = kNoOffset;            // its converted dynamic offsets
};

struct RootLayout {
  std::vector<SetRoot> sets;  // by set number
  uint32_t begin = 0;         // first byte the layer's range covers
  uint32_t end = 0;           // one past the last root byte used
  bool converts = false;      // some set has converted bindings
  bool fits = true;           // the root fits in push-constant space
  // Some set puts converted dynamic offsets in the root (only then can a pushed range
  // hold padding or unwritten bytes; otherwise it is whole 8-byte addresses).
  bool dynamic = false;
};

// `app_push_end`: one past the last byte of the application's push-constant ranges.
RootLayout PlanRoot(std::vector<std::shared_ptr<const SetLayoutShadow>> sets, uint32_t app_push_end,
                    uint32_t max_push_bytes);

}  // namespace bindery::bindings
