// What one bind point (graphics or compute) of a command buffer has bound, and how its
// pipeline runs: the single owner of the state a draw or dispatch depends on. Hooks only
// feed it (binds, pushes, pipeline binds) and ask it, through PrepareDraw, what must go
// down before each draw or dispatch. docs/bindings-bind-points.md tells how a bind reaches
// a dispatch through it.
//
// Fixed arrays only: nothing is allocated while recording.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <vulkan/vulkan.h>

#include "bindings/model/root_layout.h"  // kTrackedSets
#include "bindings/record/root_ring.h"

namespace bindery::bindings {

struct FallbackPipeline;
struct NativeTwin;
struct RingPipeline;
struct RootPipeline;
struct SetLayoutShadow;
class RecordStore;

inline constexpr uint32_t kMaxDynamicPerSet = 16;
// Push-constant bytes a bind point keeps a copy of (maxPushConstantsSize is 128 or 256 on
// every known driver; bytes beyond are not re-sent).
inline constexpr uint32_t kPushImageBytes = 256;

// Stages a push reaches per bind point: a push names stages, not bind points.
inline constexpr VkShaderStageFlags kGraphicsPointStages =
    VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_TASK_BIT_EXT | VK_SHADER_STAGE_MESH_BIT_EXT;
inline constexpr VkShaderStageFlags kComputePointStages = VK_SHADER_STAGE_COMPUTE_BIT;

struct BoundSet {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  uint32_t dynamic_count = 0;
  uint32_t dynamic[kMaxDynamicPerSet];
  uint32_t order = 0;  // when it was bound (BindPointState::binds then): later binds may have disturbed it
  // Nothing bound (as BoundSet{}, without writing the dynamic offsets nobody reads then).
  void Clear() {
    layout = VK_NULL_HANDLE;
    set = VK_NULL_HANDLE;
    dynamic_count = 0;
    order = 0;
  }
};

inline constexpr uint32_t kNoPushCopy = UINT32_MAX;

// The last push to a set number as the application made it (in the command buffer's
// push arena), so that a pipeline running natively bound after it still gets it. Pushes
// accumulate (descriptors a push does not write keep what earlier pushes wrote), so the
// earlier pushes to the set through the same set layout are chained behind it: `previous`
// is where the copy of the one before lies in the arena (a PushCopy followed by its
// contents), kNoPushCopy after a push that wrote every descriptor.
struct PushCopy {
  bool valid = false;
  const SetLayoutShadow* layout = nullptr;  // the set layout pushed to
  uint32_t previous = kNoPushCopy;
  // The application's pipeline layout and, for a template push, the template of its native
  // entries: the native part is made again with them after a pipeline running natively.
  VkPipelineLayout app_layout = VK_NULL_HANDLE;
  VkDescriptorUpdateTemplate native_template = VK_NULL_HANDLE;
  uint32_t order = 0;  // when it was pushed (BindPointState::binds then)
  // The push template's full-layout twin (kept until the device goes, so the application
  // may destroy its template meanwhile); else `writes` raw writes.
  VkDescriptorUpdateTemplate with_template = VK_NULL_HANDLE;
  uint32_t offset = 0;  // in the push arena
  uint32_t size = 0;
  uint32_t writes = 0;
};

// Push-constant bytes copied into an image: the usual sizes (an address slot, a small
// push, a slot of 1 to 4 records) inline, others through memcpy (a call costs more than
// the copy itself).
inline void CopyPushBytes(uint8_t* to, const uint8_t* from, uint32_t n) {
  if (n == 8) {  // an address slot, the usual small push: first, not after the switch's compares
    std::memcpy(to, from, 8);
    return;
  }
  switch (n) {
    case 4: std::memcpy(to, from, 4); return;
    case 8: std::memcpy(to, from, 8); return;
    case 16: std::memcpy(to, from, 16); return;
    case 32: std::memcpy(to, from, 32); return;
    case 48: std::memcpy(to, from, 48); return;
    case 64: std::memcpy(to, from, 64); return;
    default: std::memcpy(to, from, n); return;
  }
}

// Push-constant bytes the layer keeps to send again: `bytes` over the span [lo, hi)
// recorded, of which [stale_lo, stale_hi) was overwritten since by something else pushed
// (sent again before the next draw or dispatch here, through `layout`).
struct PushedBytes {
  alignas(8) uint8_t bytes[kPushImageBytes] = {};
  uint32_t lo = UINT32_MAX;
  uint32_t hi = 0;
  uint32_t stale_lo = UINT32_MAX;
  uint32_t stale_hi = 0;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // the last layout the bytes went through
  bool Stale() const { return stale_hi > stale_lo; }
  void Fresh() {
    stale_lo = UINT32_MAX;
    stale_hi = 0;
  }
  void Widen(uint32_t from, uint32_t to) {
    lo = std::min(lo, from);
    hi = std::max(hi, to);
  }
  // Something else went over [from, to): the part of the span it covers is stale. False
  // when it covers none of it.
  bool MarkStale(uint32_t from, uint32_t to) {
    from = std::max(from, lo);
    to = std::min(to, hi);
    if (to <= from) return false;
    stale_lo = std::min(stale_lo, from);
    stale_hi = std::max(stale_hi, to);
    return true;
  }
};

// What this bind point's shader stages must see in push constants: the application's
// pushes and the roots delivered at this bind point. Push constants are one state for
// every stage of the command buffer, and a root is pushed with every stage (each stage's
// range covers it), so a root pushed at the other bind point overwrites these stages'
// bytes; `stale_lo/hi` is the span overwritten since, re-sent from `bytes` before the
// next draw or dispatch here (the layout it goes through is the last one pushed through
// at this bind point). Only bytes pushed at this bind point (`lo/hi`) are ever stale:
// the others are undefined for its stages, and re-sending them would only overwrite
// what the other bind point reads there on drivers with one array for every stage.
struct PushImage : PushedBytes {
  // Bytes [from, to) were pushed at this bind point (already copied into `bytes`).
  void Written(uint32_t from, uint32_t to) { Widen(from, to); }
  // A push of [from, end) through `through` reached this bind point: its bytes within the
  // image are kept, and a push covering the stale span makes it fresh.
  void Record(VkPipelineLayout through, uint32_t from, uint32_t end, const uint8_t* data) {
    if (from < kPushImageBytes) {
      const uint32_t to = std::min(end, kPushImageBytes);
      CopyPushBytes(bytes + from, data, to - from);
      Written(from, to);
    }
    layout = through;
    if (Stale() && from <= stale_lo && end >= stale_hi) Fresh();
  }
};

// The root bytes delivered in push constants at this bind point, kept apart from the
// application's pushes. Drivers keep one push-constant array for every stage (lavapipe,
// RADV upload it whole for each stage they refresh), and a layout's root lies after *its*
// application ranges: a push through another layout, naming any stage, may overwrite the
// root a pipeline bound here reads. Such bytes are marked stale and the root is pushed
// again before the next draw or dispatch here. `ranges_key` names the push-constant
// ranges of the layouts the root went through (layouts with the same ranges place roots
// alike); a root delivered through other ranges starts the span anew, since binding
// through such a layout disturbs every set bound before.
struct PushBytesImage : PushedBytes {
  uint64_t ranges_key = 0;
  // Bytes [from, to) went down through `through` (ranges `key`): bytes recorded through
  // other ranges are forgotten (a pipeline of these ranges does not read them); a push
  // covering the stale span makes it fresh.
  void Record(VkPipelineLayout through, uint64_t key, uint32_t from, uint32_t to, const uint8_t* data) {
    if (ranges_key != key || hi <= lo) {
      lo = UINT32_MAX;
      hi = 0;
      Fresh();
      ranges_key = key;
    }
    CopyPushBytes(bytes + from, data, to - from);
    Widen(from, to);
    layout = through;
    if (Stale() && from <= stale_lo && to >= stale_hi) Fresh();
  }
  bool MarkOverwritten(uint32_t from, uint32_t to) { return MarkStale(from, to); }
};
using RootImage = PushBytesImage;

// The application's push-constant bytes pushed at this bind point (through layouts with
// the push-constant ranges `ranges_key`): a root pushed through a layout with other
// ranges may land on them (the root lies after that layout's own ranges), and a pipeline
// of these ranges bound later reads them again. Stale bytes are re-sent before a draw or
// dispatch of a pipeline with these ranges.
using AppImage = PushBytesImage;

struct PipelineLayoutShadow;

class BindPointState {
 public:
  // vkCmdBindDescriptorSets through `layout` (`pl`: its shadow, nullptr when unknown):
  // the sets and their dynamic offsets, for pipelines that run natively and the replay
  // of the converted binds after them.
  void RecordSets(VkPipelineLayout layout, const PipelineLayoutShadow* pl, uint32_t first_set, uint32_t set_count,
                  const VkDescriptorSet* sets_bound, uint32_t dynamic_offset_count, const uint32_t* dynamic_offsets);

  // RecordSets for sets without dynamic descriptors through a layout whose shadow covers
  // set numbers [first_set, first_set + set_count) (the caller checked both, and that
  // they are below kTrackedSets): what RecordSets records for them, without its checks.
  // Returns the sets' mask (SetMask), for the caller's NoteSlotsDelivered.
  uint32_t RecordPlainSets(VkPipelineLayout layout, uint32_t first_set, uint32_t set_count,
                           const VkDescriptorSet* sets_bound) {
    fallback_applied = false;
    const uint32_t order = ++binds;
    // (first_set + set_count <= 32: the caller checked.)
    const uint32_t mask = set_count == 0 ? 0u : (~0u >> (32 - set_count)) << first_set;
    slots_in_push &= ~mask;
    slots_in_ring &= ~mask;
    pushed_unaddressable &= ~mask;
    for (uint32_t i = 0; i < set_count; ++i) {
      BoundSet& bound = sets[first_set + i];
      bound.layout = layout;
      bound.set = sets_bound[i];
      bound.dynamic_count = 0;
      bound.order = order;
      push_copy[first_set + i].valid = false;  // a bound set replaces what was pushed there
      push_layout[first_set + i] = nullptr;
    }
    return mask;
  }

  // Sets [first, first + count) hold something new: where their root slots were delivered
  // is not known until a delivery says so (NoteSlotsDelivered).
  void ForgetSlots(uint32_t first, uint32_t count) {
    const uint32_t mask = SetMask(first, count);
    slots_in_push &= ~mask;
    slots_in_ring &= ~mask;
  }
  // The root slots of the sets in `mask` went down through a layout whose root lives in the
  // ring (`in_ring`) or in push constants. A layout with `reshaped` sets
  // (RootLayout::reshaped_sets) writes its slots from its first moved set up where no other
  // layout reads them, over bytes where other layouts keep any set from there up: those
  // slots are then not where other layouts read them (NoteReshapedWrite).
  void NoteSlotsDelivered(uint32_t mask, bool in_ring, uint32_t reshaped = 0) {
    if (in_ring) {
      slots_in_ring |= mask;
      slots_in_push &= ~mask;
    } else {
      slots_in_push |= mask;
      slots_in_ring &= ~mask;
      NoteReshapedWrite(reshaped);
    }
  }
  void NoteReshapedWrite(uint32_t reshaped) {
    // Sets below the first moved one lie where every compatible layout keeps them.
    if (reshaped != 0) slots_in_push &= (1u << __builtin_ctz(reshaped)) - 1;
  }
  static uint32_t SetMask(uint32_t first, uint32_t count) {
    if (first >= kTrackedSets || count == 0) return 0;
    const uint32_t end = std::min(first + count, kTrackedSets);
    const uint32_t high = end == 32 ? ~0u : (1u << end) - 1;
    return high & ~((1u << first) - 1);
  }

  // ---- sets bound through vkCmdBindDescriptorSets, by set number ----
  BoundSet sets[kTrackedSets];
  uint32_t binds = 0;        // binds and kept pushes recorded here (orders `sets` and `push_copy`)
  bool untrackable = false;  // a bind this state cannot hold: native runs leave the sets as they are

  // ---- push descriptors ----
  // The block of the last push to each set number (a push keeps the descriptors an
  // earlier push wrote and it does not: the new block starts as its copy).
  const SetLayoutShadow* push_layout[kTrackedSets] = {};
  const uint8_t* push_block[kTrackedSets] = {};
  VkDeviceAddress push_address[kTrackedSets] = {};  // push_block's device address
  PushCopy push_copy[kTrackedSets];
  // Sets whose pushed block holds the null record of a buffer without a device address
  // (bit i: set i): a rewritten pipeline reading it runs its native twin (native_twin.h).
  uint32_t pushed_unaddressable = 0;

  // ---- the pipeline and how it runs ----
  VkPipeline pipeline = VK_NULL_HANDLE;        // the pipeline the application bound
  const FallbackPipeline* fallback = nullptr;  // it runs natively (its shaders were not rewritten)
  bool fallback_applied = false;               // its full sets are bound
  bool converted_disturbed = false;            // full binds replaced the converted ones
  const NativeTwin* twin = nullptr;            // its native twin record (rewritten pipelines)
  bool twin_bound = false;                     // the twin is bound instead of it
  const RingPipeline* ring_pipeline = nullptr; // it reads its root from the ring
  // Where it reads each set's root slot (rewritten pipelines; looked up at its first draw
  // or dispatch on a device with a ring root: root_delivery.cpp, DeliverMovedSlots).
  const RootPipeline* pipeline_root = nullptr;
  bool pipeline_root_known = false;
  // The push-constant ranges key of the pipeline (0: unknown), looked up at its first draw
  // or dispatch with stale push bytes: which of them it reads (PrepareDraw's step 5).
  uint64_t pipeline_ranges_key = 0;
  bool pipeline_ranges_known = false;

  // ---- the root in the ring (layouts whose root does not fit in push constants) ----
  alignas(8) uint8_t ring_root[kRingRootBytes] = {};
  bool ring_root_written = false;
  VkPipelineLayout ring_layout = VK_NULL_HANDLE;  // of the last reserved-set bind
  bool ring_disturbed = false;                    // sets bound through another layout since
  VkDeviceAddress ring_address = 0;               // the last ring root address pushed here (RootLayout::address_in_push)

  // ---- where each set's root slot went (bit i: set i) ----
  // Layouts compatible for a set may keep their roots in different places (one in push
  // constants, one in the ring: root_layout.h), and a set bound through one must reach a
  // pipeline of the other. A bit says the set's slot was last delivered to that place; a
  // pipeline reading its root from the other is given the slot there before its draw.
  uint32_t slots_in_push = 0;
  uint32_t slots_in_ring = 0;

  // ---- push constants: the root in push constants and the application's pushes ----
  PushImage image;
  RootImage root;
  AppImage app;
};

// graphics 0, compute 1; -1 for bind points the capability does not track.
inline int BindPointIndex(VkPipelineBindPoint bp) {
  return bp == VK_PIPELINE_BIND_POINT_GRAPHICS ? 0 : bp == VK_PIPELINE_BIND_POINT_COMPUTE ? 1 : -1;
}
inline VkPipelineBindPoint BindPointOf(int index) {
  return index == 0 ? VK_PIPELINE_BIND_POINT_GRAPHICS : VK_PIPELINE_BIND_POINT_COMPUTE;
}

// The stages a push must name to reach bind point `index` (graphics 0, compute 1).
inline constexpr VkShaderStageFlags BindPointStages(int index) {
  return index == 0 ? kGraphicsPointStages : kComputePointStages;
}

// A root went down in push constants at bind point `index` through `layout` with
// `stages` over [lo, hi): NoteRootPushed and NotePushConstants in one step (the root image
// and the push image of the bind point keep the bytes, the other bind point's and the
// application's bytes there are marked stale). Returns true when it marked anything stale
// (the caller then calls DeviceCore::MarkStalePush). `points`: the command buffer's
// two bind points (BindingsCommandData::points).
inline bool NoteRootDelivered(BindPointState* points, int index, VkPipelineLayout layout, uint64_t ranges_key,
                              VkShaderStageFlags stages, uint32_t lo, uint32_t hi, const uint8_t* bytes) {
  // NoteRootPushed, then NotePushConstants with the root's bind point, unrolled for the two
  // bind points (what each step does and why is told there).
  BindPointState& here = points[index];
  BindPointState& other = points[1 - index];
  bool stale = false;
  if (hi <= kPushImageBytes && hi > lo) {
    if (here.app.ranges_key != ranges_key && here.app.MarkOverwritten(lo, hi)) stale = true;
    if (other.app.ranges_key != ranges_key && other.app.MarkOverwritten(lo, hi)) stale = true;
    if (other.root.MarkOverwritten(lo, hi)) stale = true;
    here.root.Record(layout, ranges_key, lo, hi, bytes);
  }
  if ((stages & BindPointStages(1 - index)) != 0 && other.image.MarkStale(lo, hi)) stale = true;
  if ((stages & BindPointStages(index)) != 0) here.image.Record(layout, lo, hi, bytes);
  return stale;
}

// The one step before every draw and dispatch (bind_point_state.cpp) at bind point `index`
// (graphics 0, compute 1) of the command buffer whose state is `data`, on a device where
// a draw may have something to act on (DeviceCore::kWorkDraw): a pipeline running
// natively gets its sets as full native sets (and pushes made again natively), a
// rewritten one its native twin where a bound set needs it, a ring root its reserved set
// back, and push-constant bytes the other bind point overwrote are re-sent. `settled`:
// the device's Work() | BindingsCommandData::kSettled, noted for the bind point when
// nothing is left that the next draw or dispatch would act on (draw_hooks.cpp skips the
// step then, and calls it only where NothingToPrepare, nothing_to_prepare.h, said there
// was something to do). False when the command must be skipped (logged).
class BindingsCommandData;
bool PrepareDraw(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index, uint32_t settled);

// vkCmdBindPipeline: the pipeline, and how it runs (natively, with a twin, its root in
// the ring); a rewritten one gets the converted binds back after one that ran natively.
void NotePipelineBound(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, VkPipeline pipeline);

// Push constants went down through `layout` with `stages` over [lo, hi) (`bytes`: those
// hi - lo bytes): the bind points whose stages they reach keep them, and, for a root
// push (`root_at`: the bind point delivering it), the other bind point's stages are
// marked stale there. bind_point_state.cpp.
class BindingsCommandData;
// Returns true when it marked the other bind point stale (or, for an application push,
// a root of either bind point).
bool NotePushConstants(BindingsCommandData& data, VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t lo,
                       uint32_t hi, const uint8_t* bytes, int root_at);


// An application push through `layout` (push-constant ranges `ranges_key`; `known_layout`
// false when the layout has no shadow) with `stages` over [lo, hi): kept in the AppImage of
// the bind points whose stages it names, and NotePushConstants for an application push, in
// one step. Returns true when it marked a root stale (the caller then calls
// DeviceCore::MarkStalePush). `points`: the command buffer's two bind points
// (BindingsCommandData::points). Inline: every application push under a converting
// device pays it, and as a call its eight arguments cost about as much as its work.
inline bool NoteApplicationPush(BindPointState* points, VkPipelineLayout layout, uint64_t ranges_key,
                                bool known_layout, VkShaderStageFlags stages, uint32_t lo, uint32_t hi,
                                const uint8_t* bytes) {
  // The application's bytes kept in the AppImage of the bind points whose stages the push
  // names (when its layout is known), and what NotePushConstants does for an application
  // push, in one pass over the two bind points.
  // Whatever stages it names, the driver may hand its bytes to every stage. (The two bind
  // points written out: as a loop the compiler kept its counter and the stage masks.)
  const bool stale_graphics = points[0].root.MarkStale(lo, hi);
  const bool stale_compute = points[1].root.MarkStale(lo, hi);
  const bool keep_app = known_layout && hi <= kPushImageBytes && hi > lo;
  if ((stages & kComputePointStages) != 0) {
    if (keep_app) points[1].app.Record(layout, ranges_key, lo, hi, bytes);
    points[1].image.Record(layout, lo, hi, bytes);
  }
  if ((stages & kGraphicsPointStages) != 0) {
    if (keep_app) points[0].app.Record(layout, ranges_key, lo, hi, bytes);
    points[0].image.Record(layout, lo, hi, bytes);
  }
  return stale_graphics || stale_compute;
}


// A root went down in push constants at bind point `index` through `layout` (whose
// push-constant ranges are named by `ranges_key`) over [lo, hi): kept in its RootImage.
// Returns true when it marked application bytes, or the other bind point's root, stale.
bool NoteRootPushed(BindingsCommandData& data, int index, VkPipelineLayout layout, uint64_t ranges_key, uint32_t lo,
                    uint32_t hi, const uint8_t* bytes);

}  // namespace bindery::bindings
