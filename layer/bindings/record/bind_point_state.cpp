// The pre-draw step and the push-constant bookkeeping of a bind point
// (bind_point_state.h). Hot path: PrepareDraw runs only where the device has something a
// draw may act on, and not again at a bind point it left settled until something is
// recorded there (draw_hooks.cpp: the command-state lookup, through the tracking stage's
// lock-free command index, and one compare); nothing is allocated and no lock is taken
// but a handle map's shard on the rare re-send.
#include "bindings/record/bind_point_state.h"

#include <algorithm>
#include <cstring>

#include "bindings/record/record_store.h"
#include "bindings/record/root_delivery.h"
#include "bindings/record/fallback_binds.h"
#include "bindings/record/nothing_to_prepare.h"
#include "bindings/record/twin_binds.h"
#include "bindings/pipelines/native_twin.h"

namespace bindery::bindings {
namespace {

// Pushes [lo, hi) of `bytes` (indexed from 0) through `layout`, split where a range of it
// begins or ends, each piece naming every stage whose range covers it: valid for any set
// of ranges. Returns the stages named.
VkShaderStageFlags PushCovered(RecordStore& b, VkCommandBuffer cb, VkPipelineLayout layout,
                               const std::vector<VkPushConstantRange>& ranges, uint32_t lo, uint32_t hi,
                               const uint8_t* bytes) {
  VkShaderStageFlags all = 0;
  uint32_t at = lo;
  while (at < hi) {
    uint32_t piece_end = hi;
    VkShaderStageFlags stages = 0;
    for (const VkPushConstantRange& r : ranges) {
      const uint32_t end = r.offset + r.size;
      if (r.offset > at && r.offset < piece_end) piece_end = r.offset;
      if (end > at && end < piece_end) piece_end = end;
      if (r.offset <= at && at < end) stages |= r.stageFlags;
    }
    if (stages != 0) b.next.CmdPushConstants(cb, layout, stages, at, piece_end - at, bytes + at);
    all |= stages;
    at = piece_end;
  }
  return all;
}

// The stale span of `bytes` (made fresh: it is being sent again) and the shadow of the
// layout the bytes last went through. `pl` is nullptr for a layout destroyed since, which
// cannot be pushed through: its bytes then stay as they are.
struct StaleSpan {
  uint32_t lo;
  uint32_t hi;
  const PipelineLayoutShadow* pl;
};
StaleSpan TakeStale(RecordStore& b, PushedBytes& bytes) {
  const StaleSpan span{bytes.stale_lo, std::min(bytes.stale_hi, kPushImageBytes),
                       bytes.layout != VK_NULL_HANDLE ? b.pipeline_layouts.Find(bytes.layout) : nullptr};
  bytes.Fresh();
  return span;
}

// Push-constant bytes of `index`'s stages that the other bind point overwrote, sent again
// through the last layout pushed through here.
void ResendPushImage(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index) {
  PushImage& image = data.points[index].image;
  const auto [lo, hi, pl] = TakeStale(b, image);
  if (pl == nullptr || hi <= lo) return;
  const VkShaderStageFlags stages = PushCovered(b, cb, image.layout, pl->native_ranges, lo, hi, image.bytes);
  // Whatever stages it names, the driver may hand these bytes to every stage (one array
  // for all, uploaded whole to each stage it refreshes): a root of either bind point
  // there is lost, as after an application push (NotePushConstants). The other bind
  // point's root is pushed again before its next draw or dispatch, this one's in step 5.
  for (BindPointState& point : data.points) point.root.MarkOverwritten(lo, hi);
  // The re-send reaches the other bind point's stages too.
  const int other = 1 - index;
  if ((stages & BindPointStages(other)) != 0) data.points[other].image.MarkStale(lo, hi);
}

// The root bytes of `index` that application pushes overwrote, pushed again through the
// last layout a root went through here (every stage: as the root was delivered).
void ResendRoot(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index) {
  RootImage& root = data.points[index].root;
  const auto [lo, hi, pl] = TakeStale(b, root);
  // Through a layout whose root is in the ring too: the bytes went down through it in push
  // constants all the same (a ring root's address, or slots DeliverMovedSlots gave a
  // pipeline of a compatible layout whose root is in push constants: the fuzzer's
  // seed71949 under `split`, whose slots an application push of other ranges overwrote
  // and which were not sent again), and its push-constant ranges are those of every
  // layout with its application ranges.
  if (pl == nullptr || hi <= lo) return;
  // (lo, hi: where the bytes were pushed, the bind point's copy of the root already.)
  b.next.CmdPushConstants(cb, root.layout, pl->RootStages(index), lo, hi - lo, root.bytes + lo);
  NoteRootPushed(data, index, root.layout, pl->ranges_key, lo, hi, root.bytes + lo);
  NotePushConstants(data, root.layout, pl->RootStages(index), lo, hi, root.bytes + lo, index);
}

// The application's bytes of `index` that a root overwrote, pushed again through the last
// layout they went through (naming the stages whose ranges cover them).
void ResendApp(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& data, int index) {
  AppImage& app = data.points[index].app;
  const uint32_t lo = std::max(app.stale_lo, app.lo);
  const uint32_t hi = std::min({app.stale_hi, app.hi, kPushImageBytes});
  app.Fresh();
  const PipelineLayoutShadow* pl = app.layout != VK_NULL_HANDLE ? b.pipeline_layouts.Find(app.layout) : nullptr;
  if (pl == nullptr || hi <= lo) return;
  const VkShaderStageFlags stages = PushCovered(b, cb, app.layout, pl->native_ranges, lo, hi, app.bytes);
  NotePushConstants(data, app.layout, stages, lo, hi, app.bytes + lo, -1);
}

}  // namespace

void BindPointState::RecordSets(VkPipelineLayout layout, const PipelineLayoutShadow* pl, uint32_t first_set,
                                uint32_t set_count, const VkDescriptorSet* sets_bound, uint32_t dynamic_offset_count,
                                const uint32_t* dynamic_offsets) {
  fallback_applied = false;  // a pipeline running natively needs these as full sets too
  if (pl == nullptr || first_set + set_count > kTrackedSets || first_set + set_count > pl->root.sets.size()) {
    untrackable = true;
    return;
  }
  uint32_t dynamic_index = 0;
  ++binds;
  ForgetSlots(first_set, set_count);
  pushed_unaddressable &= ~SetMask(first_set, set_count);
  for (uint32_t i = 0; i < set_count; ++i) {
    BoundSet& bound = sets[first_set + i];
    const SetLayoutShadow* set_layout = pl->root.sets[first_set + i].layout.get();
    const uint32_t n = set_layout != nullptr ? set_layout->total_dynamic : 0;
    if (n > kMaxDynamicPerSet || dynamic_index + n > dynamic_offset_count) {
      untrackable = true;
      return;
    }
    bound.layout = layout;
    bound.set = sets_bound[i];
    bound.dynamic_count = n;
    bound.order = binds;
    push_copy[first_set + i].valid = false;  // a bound set replaces what was pushed there
    push_layout[first_set + i] = nullptr;
    if (n != 0) std::memcpy(bound.dynamic, dynamic_offsets + dynamic_index, 4 * n);
    dynamic_index += n;
  }
}

bool NotePushConstants(BindingsCommandData& data, VkPipelineLayout layout, VkShaderStageFlags stages, uint32_t lo,
                       uint32_t hi, const uint8_t* bytes, int root_at) {
  bool stale = false;
  if (root_at < 0) {
    // An application push: whatever stages it names, the driver may hand its bytes to
    // every stage (one array for all), so a root of either bind point there is lost.
    for (BindPointState& point : data.points) {
      RootImage& root = point.root;
      const uint32_t from = std::max(lo, root.lo);
      const uint32_t to = std::min(hi, root.hi);
      if (to <= from) continue;
      root.stale_lo = std::min(root.stale_lo, from);
      root.stale_hi = std::max(root.stale_hi, to);
      stale = true;
    }
  }
  for (int i = 0; i < 2; ++i) {
    if ((stages & BindPointStages(i)) == 0) continue;
    PushImage& image = data.points[i].image;
    if (root_at >= 0 && root_at != i) {
      // Another bind point's root: this one's stages lost their bytes there (the bytes
      // pushed here: others are undefined for them and need nothing back).
      if (image.MarkStale(lo, hi)) stale = true;
      continue;
    }
    image.Record(layout, lo, hi, bytes);
  }
  return stale;
}

bool NoteRootPushed(BindingsCommandData& data, int index, VkPipelineLayout layout, uint64_t ranges_key, uint32_t lo,
                    uint32_t hi, const uint8_t* bytes) {
  RootImage& root = data.points[index].root;
  if (hi > kPushImageBytes || hi <= lo) return false;
  bool stale = false;
  // Whatever stages a root names, the driver may hand its bytes to every stage: the
  // application's bytes of either bind point there are lost.
  for (BindPointState& point : data.points) {
    // Same ranges: a root never overlaps their bytes.
    if (point.app.ranges_key != ranges_key && point.app.MarkOverwritten(lo, hi)) stale = true;
  }
  // The other bind point's root there is lost too (a root is pushed with every stage).
  if (data.points[1 - index].root.MarkOverwritten(lo, hi)) stale = true;
  // Roots placed by other ranges: the sets they served were disturbed by this bind.
  root.Record(layout, ranges_key, lo, hi, bytes);
  return stale;
}

bool PrepareDraw(RecordStore& b, VkCommandBuffer cb, BindingsCommandData& command, int index, uint32_t settled) {
  BindingsCommandData* data = &command;
  const VkPipelineBindPoint bind_point = BindPointOf(index);
  BindPointState& point = data->points[index];
  // (The draw hooks found something to do: NothingToPrepare, draw_hooks.cpp.)
  // What follows may send something that disturbs the other bind point: both unsettled.
  data->Unsettle();
  // 1. A pipeline that runs natively: its sets as full native sets.
  const RecordContext c{b, cb, data};
  if (point.fallback != nullptr && !point.fallback_applied) BindFullSets(c, bind_point, point, *point.fallback);
  // 2. A rewritten pipeline with a set naming a buffer without an address: its twin.
  if (!ApplyTwin(b, cb, bind_point, *data, point)) return false;
  // 3. Root slots of sets bound through compatible layouts that keep their roots in the
  // other place (push constants or the ring) delivered where this pipeline reads them; a
  // root in the ring: its reserved set back if binds through other layouts moved it.
  if (b.any_ring.load(std::memory_order_acquire)) {
    DeliverMovedSlots(b, cb, bind_point, *data, point);
    RestoreRingRoot(b, cb, bind_point, *data, point);
  }
  // 4. Push constants the other bind point overwrote since.
  if (point.image.Stale()) ResendPushImage(b, cb, *data, index);
  // 5. Root bytes an application push overwrote since, and application bytes a root
  // overwrote, for the pipeline that reads them (by its push-constant ranges).
  if (point.root.Stale() || point.app.Stale()) {
    uint64_t key = 0;  // unknown: both are re-sent
    if (point.pipeline != VK_NULL_HANDLE) {
      if (!point.pipeline_ranges_known) {
        if (!b.pipeline_ranges.Find(point.pipeline, &point.pipeline_ranges_key)) point.pipeline_ranges_key = 0;
        point.pipeline_ranges_known = true;
      }
      key = point.pipeline_ranges_key;
    }
    if (point.app.Stale() && (key == 0 || key == point.app.ranges_key)) ResendApp(b, cb, *data, index);
    if (point.root.Stale() && (key == 0 || key == point.root.ranges_key)) ResendRoot(b, cb, *data, index);
  }
  if (NothingToPrepare(settled, point, index)) data->settled[index] = settled;
  return true;
}

void NotePipelineBound(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, VkPipeline pipeline) {
  // Until a pipeline runs natively, has a twin or reads a ring root, how the bound one
  // runs needs no record (and the converted binds were never replaced) but for the
  // pipeline itself: a draw re-sending push-constant bytes asks which ones it reads.
  if (!b.any_fallback.load(std::memory_order_acquire) && !NeedsTwins(b) && !b.any_ring.load(std::memory_order_acquire)) {
    if (b.Converting()) {
      BindingsCommandData* data = CommandDataOf(b, cb);
      if (data != nullptr) data->Unsettle();
      if (BindPointState* point = data != nullptr ? data->At(bind_point) : nullptr) {
        point->pipeline = pipeline;
        point->pipeline_root_known = false;  // (a ring root may come later: looked up then)
        point->pipeline_ranges_known = false;
      }
    }
    return;
  }
  BindingsCommandData* data = CommandDataOf(b, cb);
  if (data != nullptr) data->Unsettle();
  BindPointState* point = data != nullptr ? data->At(bind_point) : nullptr;
  if (point == nullptr) return;
  point->pipeline = pipeline;
  point->twin = NeedsTwins(b) ? b.twins.Find(pipeline) : nullptr;
  point->twin_bound = false;
  point->ring_pipeline = b.any_ring.load(std::memory_order_acquire) ? b.ring_pipelines.Find(pipeline) : nullptr;
  point->pipeline_root = nullptr;
  point->pipeline_root_known = false;
  point->pipeline_ranges_known = false;
  point->fallback = b.any_fallback.load(std::memory_order_acquire) ? b.fallback_pipelines.Find(pipeline) : nullptr;
  point->fallback_applied = false;
  // A rewritten pipeline after one that ran natively: the converted binds back.
  if (point->fallback == nullptr) RestoreConvertedBinds(RecordContext{b, cb, data}, bind_point, *point);
}

}  // namespace bindery::bindings
