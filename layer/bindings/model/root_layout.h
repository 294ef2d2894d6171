// Where a pipeline layout's root lies in push constants: for each set that has converted
// bindings, the 8-byte address of its argument block followed by its converted dynamic
// offsets (uint32 each), padded to 8 bytes, sets in ascending order, starting at the
// first 8-byte boundary after the application's own push-constant ranges.
//
// A set's slots depend only on the sets below it and the application's ranges, so two
// layouts the spec calls compatible for set N put set N's root in the same place. The
// push-constant range the layer adds covers [begin, max_push_bytes) for every stage, so it is
// the same in every layout with the same application ranges (compatible for push
// constants) whatever their sets.
//
// When the root does not fit in push constants, the same plan from byte 0 (no
// application range before it) lays out the root's copy in the command buffer's ring,
// read through a reserved descriptor set (root_delivery.cpp). Two layouts compatible for
// set N then agree on set N's slots too. A set bound through a layout whose root is in the
// ring and read by a pipeline whose (compatible) layout keeps its root in push constants
// (or the reverse) has its slot delivered there before the draw (DeliverMovedSlots).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bindings/model/set_layout_shadow.h"

namespace bindery::bindings {

struct SetRoot {
  std::shared_ptr<const SetLayoutShadow> layout;  // null: no layout known for this set
  uint32_t root_offset = kNoOffset;               // address of the set's block
  uint32_t dynamic_offset = kNoOffset;            // its converted dynamic offsets
  // The set is its root slot alone: every binding converted, none dynamic. A bind of such
  // sets is `slot_bytes` of root each and nothing native (bind_hooks.cpp's short path).
  bool root_only = false;
  // The slot holds the set's records themselves (16 bytes each, in block order) instead of
  // its block's address: shaders then read a buffer's address from push constants, as a
  // driver's descriptors arrive, with no dependent load of the block before the first
  // access (the fixed cost of a rewritten dispatch). Filled from the set's CPU copy of its
  // records at every bind.
  bool records_in_root = false;
  // With records_in_root: how many of the set's records (a prefix, in block order) the slot
  // holds; fewer than the layout's record_count: the block's address follows them (8 bytes).
  uint32_t root_records = 0;
  bool partial() const { return records_in_root && layout != nullptr && root_records < layout->record_count; }
  uint32_t slot_bytes = 8;  // root_offset .. root_offset + slot_bytes: the address, or the records (and the address)
};

struct RootLayout {
  std::vector<SetRoot> sets;  // by set number
  uint32_t begin = 0;         // first byte the layer's range covers
  uint32_t end = 0;           // one past the last root byte used
  bool converts = false;      // some set has converted bindings
  bool fits = true;           // the root fits where it is delivered
  // The root does not fit in push constants and lives in the ring instead
  // (root_delivery.cpp): offsets are then offsets in the ring copy of the root (begin 0).
  // Read through the reserved set: `buffer_set` (the application's set count) is the
  // reserved set's number in the shaders, `native_buffer_set` in the native layout
  // (root-only sets are left out there).
  bool in_buffer = false;
  uint32_t buffer_set = 0;         // as the rewritten shaders name it before renumbering
  uint32_t native_buffer_set = 0;  // in the native layout (after the sets sent down)
  // Or, where the driver has no set left for the reserved one (every bound set is the
  // application's: PlanRingRoot), read through its address: the ring copy's 8-byte device
  // address lies in push constants at `address_offset` (the graphics bind point's copy;
  // the compute one `compute_shift` bytes further, as a root in push constants), and the
  // shaders load the root through it (spirv::RootPlacement::kPushAddress). No reserved set.
  bool address_in_push = false;
  uint32_t address_offset = kNoOffset;
  // Some set puts converted dynamic offsets in the root (only then can a pushed range
  // hold padding or unwritten bytes; otherwise it is whole 8-byte addresses).
  bool dynamic = false;
  // Sets (bit i: set i < 32) whose slots are not where every layout compatible for them
  // keeps them: the highest sets gave up their records so that the root fits (PlanRoot),
  // which moved these. A bind through this layout leaves their slots in a shape only it
  // reads, and its pipelines get theirs delivered before each draw (root_delivery.cpp:
  // DeliverMovedSlots), as for a root in the other place.
  uint32_t reshaped_sets = 0;
  // A root in push constants has two copies in disjoint bytes: the graphics bind point's at
  // the offsets above, the compute bind point's `compute_shift` bytes further, so that a
  // compute bind's push names no graphics stage (RootPushSpace). For a root in the ring,
  // the shift of its address (address_in_push), else 0.
  uint32_t compute_shift = 0;
  // Where bind point `index` (graphics 0, compute 1) reads its root's address
  // (address_in_push).
  uint32_t AddressAt(int index) const { return address_offset + (index == 1 ? compute_shift : 0); }
};

// How push-constant space is shared on a device where layouts convert: the application's
// ranges, then from `begin` (the first 8-byte boundary after them) the root. Split (setting
// bindings_root_split): the graphics bind point's root region [begin, begin + half) and the
// compute bind point's [begin + half, begin + 2 half). Pushing to a graphics stage costs a
// compute dispatch on some drivers (the H100: a 4096-float add 4.03 -> 5.95 us when its push
// constants name every stage), so the compute root must lie in bytes no graphics stage's
// range covers. Not split: one region [begin, max) that every stage sees. Depends only on
// the application's ranges and the device: layouts compatible for push constants get the
// same space.
struct RootPushSpace {
  uint32_t begin = 0;
  uint32_t half = 0;  // bytes of each region when split (a multiple of 8)
  uint32_t max = 0;
  bool split = false;
  uint32_t graphics_end() const { return split ? begin + half : max; }
  uint32_t compute_shift() const { return split ? half : 0; }
};
RootPushSpace SplitPushSpace(uint32_t app_push_end, uint32_t max_push_bytes, bool split);

// `app_push_end`: one past the last byte of the application's push-constant ranges.
// With `records_in_root`, a set whose layout allows it (SetLayoutShadow::records_fit_root)
// gets its records in its slot when they fit with kRootReserveAfterRecords bytes to spare
// for the sets after it: a decision that depends only on the sets below it and on the
// application's ranges, so compatible layouts agree on every slot. Should the root then
// not fit where addresses alone would, the highest sets go back to addresses one by one
// until it fits; only then can two layouts compatible for set N disagree on set N's slot
// (the sets above N need nearly all of the space even as addresses): RootLayout's
// `reshaped_sets` names the sets so moved, and draws deliver them where the bound
// pipeline reads them (root_delivery.cpp).
// A set whose records do not all fit (more than kMaxRecordsInRoot, or too little room) may
// still carry a prefix of them, up to kMaxRootPrefixRecords, then its block's address, with
// kRootReserveAfterPrefix bytes to spare: the address alone of the next set (the same
// decision from the sets below; a layout needing more above gives the prefix up as above).
inline constexpr uint32_t kRootReserveAfterRecords = 32;
inline constexpr uint32_t kRootReserveAfterPrefix = 8;
RootLayout PlanRoot(std::vector<std::shared_ptr<const SetLayoutShadow>> sets, uint32_t app_push_end,
                    uint32_t max_push_bytes, bool records_in_root = false);

// The largest root the ring carries (a root that does not fit in push constants; larger
// ones fall back natively), and the range of the reserved set's descriptor
// (record/root_ring.h).
inline constexpr uint32_t kRingRootBytes = 1024;

// A root that does not fit in push constants (PlanRoot's `fits` false) laid out for the
// ring (offsets from byte 0, the same decisions as PlanRoot's, so layouts compatible for
// set N agree on its slot there too), and how shaders reach it:
//  1. the reserved set, a dynamic storage buffer after the sets sent down, where the
//     driver binds one more set than the layout's sets with native descriptors
//     (`max_bound_sets`, the driver's own limit) and the device has the reserved set's
//     layout (`reserved_set`);
//  2. else its address, 8 bytes in push constants at `space.begin` (and the compute copy
//     `space.compute_shift()` further), where those bytes exist: the layer raises
//     maxBoundDescriptorSets (root-only sets are left out of the native layout), so a
//     layout may use every set the driver has, with a root too large for push constants
//     (lavapipe with the split root forced: 8 sets and 104 bytes of root against 64 per
//     bind point, the conformance suite's descriptorset_random.sets8.*.sbolimithigh.*).
//     Its slots lie where the reserved-set plan puts them (a set bound through either is
//     read alike by the other), and nothing is bound: no full set of a pipeline running
//     natively is disturbed by its delivery.
// `fits` false: neither (`*why_not` says which limit).
RootLayout PlanRingRoot(const std::vector<std::shared_ptr<const SetLayoutShadow>>& sets, const RootPushSpace& space,
                        uint32_t max_bound_sets, bool reserved_set, const char** why_not);

// The sets whose binds a bind point follows and whose root slots a pipeline notes (bit i
// of a 32-bit mask: set i; record/bind_point_state.h).
inline constexpr uint32_t kTrackedSets = 32;

}  // namespace bindery::bindings
