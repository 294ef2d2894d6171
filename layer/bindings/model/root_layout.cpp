#include "bindings/model/root_layout.h"

#include <algorithm>

namespace bindery::bindings {
namespace {
uint32_t Align8(uint32_t v) { return (v + 7u) & ~7u; }

// Lays the slots out in set order; a set's slot holds the first `in_root(i, cursor)` of its
// records (all of them: no address after them; none: the block's address alone).
template <typename InRoot>
void LaySlots(RootLayout& root, uint32_t max_push_bytes, InRoot&& in_root) {
  uint32_t cursor = root.begin;
  root.converts = false;
  root.dynamic = false;
  for (size_t i = 0; i < root.sets.size(); ++i) {
    SetRoot& r = root.sets[i];
    r.root_offset = kNoOffset;
    r.dynamic_offset = kNoOffset;
    r.records_in_root = false;
    r.root_records = 0;
    r.slot_bytes = 8;
    if (r.layout == nullptr || !r.layout->converts()) continue;
    root.converts = true;
    r.root_offset = cursor;
    r.root_only = !r.layout->has_native && r.layout->total_dynamic == 0;
    const uint32_t records = in_root(i, cursor);
    if (records != 0) {
      r.records_in_root = true;
      r.root_records = records;
      r.slot_bytes = kRecordBytes * records + (records < r.layout->record_count ? 8 : 0);
    }
    cursor += r.slot_bytes;
    if (r.layout->converted_dynamic != 0) {
      root.dynamic = true;
      r.dynamic_offset = cursor;
      cursor += 4 * r.layout->converted_dynamic;
    }
    cursor = Align8(cursor);
  }
  root.end = cursor;
  root.fits = !root.converts || root.end <= max_push_bytes;
}
}  // namespace

RootPushSpace SplitPushSpace(uint32_t app_push_end, uint32_t max_push_bytes, bool split) {
  RootPushSpace s;
  s.begin = Align8(app_push_end);
  s.max = max_push_bytes;
  s.split = split;
  s.half = s.begin < max_push_bytes ? ((max_push_bytes - s.begin) / 2) & ~7u : 0;
  return s;
}

RootLayout PlanRoot(std::vector<std::shared_ptr<const SetLayoutShadow>> sets, uint32_t app_push_end,
                    uint32_t max_push_bytes, bool records_in_root) {
  RootLayout root;
  root.begin = Align8(app_push_end);
  root.sets.resize(sets.size());
  for (size_t i = 0; i < sets.size(); ++i) root.sets[i].layout = std::move(sets[i]);
  // Records in the root where the set allows it and they leave room for later sets (a
  // decision of the sets below it alone).
  size_t keep_below = root.sets.size();  // sets from here on keep their block's address
  auto chosen = [&](size_t i, uint32_t cursor) -> uint32_t {
    const SetLayoutShadow& l = *root.sets[i].layout;
    if (!records_in_root || i >= keep_below) return 0;
    const uint32_t dynamic = 4 * l.converted_dynamic;
    if (l.records_fit_root &&
        cursor + kRecordBytes * l.record_count + dynamic + kRootReserveAfterRecords <= max_push_bytes) {
      return l.record_count;
    }
    // A prefix of its records, then its block's address.
    const uint32_t fixed = cursor + 8 + dynamic + kRootReserveAfterPrefix;
    if (!l.records_prefix_fit_root || l.record_count < 2 || fixed >= max_push_bytes) return 0;
    return std::min({(max_push_bytes - fixed) / kRecordBytes, l.record_count - 1, kMaxRootPrefixRecords});
  };
  LaySlots(root, max_push_bytes, chosen);
  if (root.fits) return root;
  // A root that would fit with addresses only never moves to the ring for records in it:
  // the highest sets give theirs up first, so layouts that agree on the sets below keep
  // agreeing on them unless even their addresses would not fit.
  const std::vector<SetRoot> compatible = root.sets;  // where compatible layouts keep each slot
  while (!root.fits && keep_below > 0) {
    --keep_below;
    if (!root.sets[keep_below].records_in_root) continue;
    LaySlots(root, max_push_bytes, chosen);
  }
  // From the first set that moved, every slot above it lies elsewhere too.
  bool moved = false;
  for (size_t i = 0; i < root.sets.size() && i < 32; ++i) {
    const SetRoot& now = root.sets[i];
    const SetRoot& was = compatible[i];
    moved = moved || now.root_offset != was.root_offset || now.root_records != was.root_records ||
            now.dynamic_offset != was.dynamic_offset;
    if (moved && now.root_offset != kNoOffset) root.reshaped_sets |= 1u << i;
  }
  return root;
}

RootLayout PlanRingRoot(const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets, const RootPushSpace& space,
                        uint32_t max_bound_sets, bool reserved_set, const char** why_not) {
  RootLayout ring = PlanRoot(sets, 0, kRingRootBytes);
  *why_not = nullptr;
  if (!ring.fits) {
    *why_not = "the root is too large for the ring";
    return ring;
  }
  uint32_t native_sets = 0;  // sets the native layout keeps (NativeSetLayouts leaves root-only ones out)
  for (const SetRoot& r : ring.sets) native_sets += r.layout == nullptr || r.layout->has_native ? 1 : 0;
  ring.in_buffer = true;
  ring.buffer_set = static_cast<uint32_t>(sets.size());
  if (reserved_set && native_sets < max_bound_sets) return ring;
  // The address in push constants: 8 bytes in each bind point's region (split) or in the
  // one region every stage sees.
  const uint32_t region = space.graphics_end() > space.begin ? space.graphics_end() - space.begin : 0;
  if (region >= 8 && native_sets <= max_bound_sets) {
    ring.address_in_push = true;
    ring.address_offset = space.begin;
    ring.compute_shift = space.compute_shift();
    return ring;
  }
  ring.in_buffer = false;
  ring.fits = false;
  *why_not = native_sets > max_bound_sets ? "more sets with native descriptors than maxBoundDescriptorSets"
                                          : "no descriptor set left under maxBoundDescriptorSets, and no 8 bytes of "
                                            "push constants for the root's address";
  return ring;
}

}  // namespace bindery::bindings
