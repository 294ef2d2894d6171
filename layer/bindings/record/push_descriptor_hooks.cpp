// Push descriptors (VK_KHR_push_descriptor) on layouts that convert bindings: each push
// writes a fresh argument block in the command buffer's ring (root_ring.h) — a copy of the
// previous push's block for that set, so descriptors this push does not write keep their
// values — and delivers the block's address into the set's root slot; the native
// descriptors of the push go down as a push with the smaller native layout. Blocks are
// never rewritten after a draw or dispatch may have used them.
//
// A layout whose root does not fit (every pipeline of it runs natively) gets the pushes
// natively, with the full native layout. A pipeline that runs natively although its
// layout fits (the rewrite refused its shader) gets the pushes recorded while it is bound,
// natively with its full layout, and the pushes made to a set before it was bound are made
// again with its full layout at its first draw or dispatch, oldest first (pushes
// accumulate: a partial push keeps what earlier ones wrote; a push writing every
// descriptor ends the chain): every push is kept as the application made it (PushCopy;
// writes that need their pNext, such as inline uniform blocks, are not kept and do not
// reach it).
//
// Hot path: no lock (the buffers through the per-thread lookup cache, the pipeline layout
// and a converting template through the command buffer's memory of its last ones; the
// handle maps' shards only on a miss), nothing allocated (the ring lends 64 KiB chunks; up
// to kInlineWrites native writes are split on the stack; the arena of kept pushes keeps its
// capacity). Each hook finds its device, command state and layout once (PushContext).
#include "bindings/record/push_descriptor_hooks.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "bindings/record/nothing_to_prepare.h"
#include "bindings/record/record_store.h"
#include "bindings/record/root_delivery.h"
#include "bindings/record/fallback_binds.h"
#include "bindings/record/record_hooks.h"
#include "bindings/descriptors/set_records.h"
#include "bindings/descriptors/push_coverage.h"

namespace bindery::bindings {
namespace {

constexpr uint32_t kInlineWrites = 32;

// The set layout pushed to `set` of `pl`, when it converts bindings.
const SetLayoutShadow* ConvertedPushLayout(const PipelineLayoutShadow* pl, uint32_t set) {
  if (pl == nullptr || set >= pl->root.sets.size()) return nullptr;
  const SetLayoutShadow* layout = pl->root.sets[set].layout.get();
  return layout != nullptr && layout->converts() ? layout : nullptr;
}


// What a push-descriptor hook found once and hands to each of its steps: the device's
// record store, the command buffer and its state (RecordContext), the pipeline layout's
// shadow, the set, its number in the layout sent down, and the bind point's state.
struct PushContext {
  RecordContext c;
  VkPipelineBindPoint bind_point;
  VkPipelineLayout layout;
  const PipelineLayoutShadow* pl;  // nullptr: a layout the layer does not know
  uint32_t set;
  uint32_t native_set;             // the layout sent down leaves root-only sets out
  BindingsCommandData::BindPoint* point;  // nullptr: not tracked
  uint32_t binds_before;           // the bind point's binds before the push (NotePushed)
  uint32_t settled[2];             // the bind points' settled notes before the push (KeepSettled)
};

uint32_t BindsOf(const BindingsCommandData::BindPoint* point) { return point != nullptr ? point->binds : 0; }

PushContext PushContextOf(RecordStore& b, VkCommandBuffer cb, BindingsCommandData* data, VkPipelineBindPoint bind_point,
                          VkPipelineLayout layout, uint32_t set) {
  const PipelineLayoutShadow* pl = LayoutShadowOf(b, data, layout);
  uint32_t settled[2] = {0, 0};
  if (data != nullptr) {
    settled[0] = data->settled[0];
    settled[1] = data->settled[1];
    data->Unsettle();  // the next draw or dispatch looks at what this push changes (unless KeepSettled)
  }
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(bind_point) : nullptr;
  return PushContext{RecordContext{b, cb, data}, bind_point, layout, pl, set, pl != nullptr ? pl->NativeSet(set) : set,
                     point, BindsOf(point), {settled[0], settled[1]}};
}

// Visits each write of a push as WritesEveryDescriptor asks: visit(binding, element, count).
auto ForEachWriteOf(uint32_t count, const VkWriteDescriptorSet* writes) {
  return [count, writes](auto&& visit) {
    for (uint32_t i = 0; i < count; ++i) visit(writes[i].dstBinding, writes[i].dstArrayElement, writes[i].descriptorCount);
  };
}

// Whether a push writes every descriptor of its set layout (push_coverage.h), worked out
// at most once per push and only when a step asks.
template <typename ForEachWrite>
class Coverage {
 public:
  Coverage(const SetLayoutShadow& layout, ForEachWrite for_each_write)
      : layout_(layout), for_each_write_(for_each_write) {}
  bool operator()() {
    if (!known_) {
      all_ = WritesEveryDescriptor(layout_, for_each_write_);
      known_ = true;
    }
    return all_;
  }
  // Already known without the general count (WholeBindingsInOrder).
  void Know(bool all) {
    all_ = all;
    known_ = true;
  }

 private:
  const SetLayoutShadow& layout_;
  ForEachWrite for_each_write_;
  bool known_ = false;
  bool all_ = false;
};

// The usual whole-set push, recognised without WritesEveryDescriptor's count: one write per
// binding of the layout, in the layout's order, each from element 0 over all of the
// binding's descriptors. False says only "not this shape".
bool WholeBindingsInOrder(const SetLayoutShadow& layout, uint32_t writeCount, const VkWriteDescriptorSet* pWrites) {
  if (writeCount != layout.app_bindings.size()) return false;
  for (uint32_t i = 0; i < writeCount; ++i) {
    const VkDescriptorSetLayoutBinding& b = layout.app_bindings[i];
    const VkWriteDescriptorSet& w = pWrites[i];
    if (w.dstBinding != b.binding || w.dstArrayElement != 0 || w.descriptorCount != b.descriptorCount) return false;
  }
  return true;
}

// A new block for a push of `layout` to `set`: the previous push's block copied, or zeros
// (a record of zeros is a null descriptor); neither when the push writes every record
// (`covers_all`): the previous block lies in GPU-visible memory, which is slow to read
// (write-combined on discrete GPUs). nullptr when out of ring memory (the command
// buffer's vkEndCommandBuffer then fails).
template <typename CoversAll>
uint8_t* NewPushBlock(BindingsCommandData& data, BindingsCommandData::BindPoint* point, const SetLayoutShadow& layout,
                      uint32_t set, CoversAll&& covers_all, VkDeviceAddress* address) {
  const uint32_t bytes = layout.record_count * kRecordBytes;
  const RingSlice slice = data.ring.Allocate(data.pool(), bytes, kRecordBytes);
  if (slice.data == nullptr) {
    data.Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    return nullptr;
  }
  const bool tracked = point != nullptr && set < BindingsCommandData::kMaxSets;
  if (tracked && point->push_layout[set] == &layout) {
    if (!covers_all()) std::memcpy(slice.data, point->push_block[set], bytes);
  } else {
    if (!covers_all()) std::memset(slice.data, 0, bytes);
    if (tracked) point->pushed_unaddressable &= ~BindPointState::SetMask(set, 1);  // no record kept
  }
  if (tracked) {
    point->push_layout[set] = &layout;
    point->push_block[set] = slice.data;
    point->push_address[set] = slice.address;
    // (What was bound there is forgotten already: NotePushed ran first.)
  }
  *address = slice.address;
  return slice.data;
}

// The block's address into the set's root slot. True when it went into push constants at a
// tracked bind point and marked nothing stale (DeliverRoot's push-constant path, telling
// that): the push may keep the bind points settled then (KeepSettled).
// Flattened: NoteRootDelivered and the bind point's notes inline (as a call, NoteRootDelivered's
// frame and its eight arguments were ~40 of its ~120 instructions per push).
[[gnu::flatten]] bool DeliverPushRoot(const PushContext& p, VkDeviceAddress address) {
  // (Only 8 bytes are written and read; the array is the size of an image because with
  // NoteRootDelivered inlined gcc 12 sees CopyPushBytes' cases for other sizes read past 8
  // bytes and, under -Werror, stops the build: -Warray-bounds.)
  alignas(8) uint8_t bytes[kPushImageBytes];
  std::memcpy(bytes, &address, 8);
  const uint32_t at = p.pl->root.sets[p.set].root_offset;
  const uint32_t mask = BindPointState::SetMask(p.set, 1);
  const int index = BindPointIndex(p.bind_point);
  BindingsCommandData* data = p.c.data;
  if (p.pl->root.in_buffer || index < 0 || data == nullptr) {
    DeliverRoot(p.c, p.bind_point, p.layout, *p.pl, at, at + 8, bytes, mask);
    return false;
  }
  const uint32_t shift = p.pl->RootShift(index);
  const VkShaderStageFlags stages = p.pl->RootStages(index);
  p.c.b.next.CmdPushConstants(p.c.cb, p.layout, stages, at + shift, 8, bytes);
  data->points[index].NoteSlotsDelivered(mask, false, p.pl->root.reshaped_sets);
  if (NoteRootDelivered(data->points, index, p.layout, p.pl->ranges_key, stages, at + shift, at + shift + 8, bytes)) {
    p.c.b.MarkStalePush();
    return false;
  }
  return true;
}

// A push that sent nothing down but its root (no native writes, no pipeline running
// natively bound) and whose root marked nothing stale (DeliverPushRoot true) gives the
// bind points back the settled notes PushContextOf took: the other bind point is untouched,
// and this one stays settled where a root-only bind would (StaysSettledAfterRoot). Its
// draws and dispatches then skip the pre-draw step, as they did before the push.
void KeepSettled(const PushContext& p) {
  const int index = BindPointIndex(p.bind_point);
  BindingsCommandData* data = p.c.data;
  if (index < 0 || data == nullptr || p.point == nullptr) return;
  data->settled[1 - index] = p.settled[1 - index];
  if (p.settled[index] != 0 && StaysSettledAfterRoot(*p.point)) data->settled[index] = p.settled[index];
}

// The fallback pipeline bound at the bind point whose full layout has `layout` at `set`.
const FallbackPipeline* BoundFallback(RecordStore& b, BindingsCommandData::BindPoint* point,
                                      const SetLayoutShadow& layout, uint32_t set) {
  if (point == nullptr || !b.any_fallback.load(std::memory_order_acquire)) return nullptr;
  const FallbackPipeline* f = point->fallback;
  // (Identically defined set layouts are compatible: a push through another layout whose
  // set layout is defined as the pipeline's reaches it natively too.)
  if (f == nullptr || set >= f->sets.size() || !SameSetLayout(f->sets[set].get(), &layout)) return nullptr;
  point->converted_disturbed = true;  // a converted pipeline bound later gets its binds back
  return f;
}

// Which array a write of `type` reads; kNone for a write that needs its pNext (inline
// uniform blocks, acceleration structures): not kept.
enum class Payload { kNone, kImage, kBuffer, kTexelView };

Payload PayloadOf(VkDescriptorType type) {
  switch (type) {
    case VK_DESCRIPTOR_TYPE_SAMPLER:
    case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
    case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
    case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
    case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
      return Payload::kImage;
    case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
      return Payload::kTexelView;
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
    case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
    case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
      return Payload::kBuffer;
    default:
      return Payload::kNone;
  }
}

size_t ElementBytes(Payload payload) {
  switch (payload) {
    case Payload::kImage:
      return sizeof(VkDescriptorImageInfo);
    case Payload::kBuffer:
      return sizeof(VkDescriptorBufferInfo);
    case Payload::kTexelView:
      return sizeof(VkBufferView);
    case Payload::kNone:
      break;
  }
  return 0;
}

const void* ElementArray(const VkWriteDescriptorSet& w, Payload payload) {
  return payload == Payload::kImage    ? static_cast<const void*>(w.pImageInfo)
         : payload == Payload::kBuffer ? static_cast<const void*>(w.pBufferInfo)
                                       : static_cast<const void*>(w.pTexelBufferView);
}

// Starts the kept copy of a push to `set` of `layout` through `app_layout`, with
// `contents` bytes for what it keeps (returned in `*out`): the set's previous copy is
// chained behind it (its header stored before the contents) when it pushed the same set
// layout and the set still holds what it wrote (PushStillHolds: not disturbed since,
// through a compatible layout), unless `covers_all()` says this push writes every
// descriptor. One growth of the arena per push (it keeps its capacity across recordings).
// Returns nullptr, keeping nothing (the set's copy invalid), where the arena cannot grow.
template <typename CoversAll>
PushCopy* BeginPushCopy(RecordStore& b, BindingsCommandData& data, BindingsCommandData::BindPoint& point,
                        uint32_t set, const SetLayoutShadow& layout, VkPipelineLayout app_layout,
                        CoversAll&& covers_all, size_t contents, uint8_t** out) {
  // (The set's copy is read in place and replaced once, whole: no copy of the prior one is
  // made unless it is chained, which the usual whole-set push never is.)
  PushCopy& copy = point.push_copy[set];
  const bool chain =
      copy.valid && copy.layout == &layout && !covers_all() && PushStillHolds(b, point, set, copy, app_layout);
  const size_t at = data.push_arena.size();
  const size_t header = chain ? sizeof(PushCopy) : 0;
  uint8_t* const appended = data.push_arena.Append(header + contents);  // (the arena is not where `copy` lies)
  if (appended == nullptr) {
    copy = {};
    return nullptr;
  }
  if (chain) std::memcpy(appended, &copy, sizeof(PushCopy));
  // Every member written in place: a copy assembled on the stack and then copied whole was
  // read back in wide loads over the narrow stores that made it (stalled store forwarding:
  // +6-11 ns per push on lavapipe's host with 10 fewer instructions).
  copy.valid = true;
  copy.layout = &layout;
  copy.previous = chain ? static_cast<uint32_t>(at) : kNoPushCopy;
  copy.app_layout = app_layout;
  copy.native_template = VK_NULL_HANDLE;
  copy.order = ++point.binds;
  copy.with_template = VK_NULL_HANDLE;
  copy.offset = static_cast<uint32_t>(at + header);
  copy.size = static_cast<uint32_t>(contents);
  copy.writes = 0;
  *out = appended + header;
  return &copy;
}

// The bytes a write and its array take in the arena; 0 for a write that cannot be kept.
size_t KeptBytes(const VkWriteDescriptorSet& w) {
  const Payload payload = PayloadOf(w.descriptorType);
  const size_t element = ElementBytes(payload);
  if (element == 0 || w.pNext != nullptr || (ElementArray(w, payload) == nullptr && w.descriptorCount != 0)) return 0;
  return sizeof(VkWriteDescriptorSet) + element * w.descriptorCount;
}

// Keeps the push as the application made it (PushCopy), for a pipeline running natively
// bound later; a push with a write that cannot be kept (one that needs its pNext) is not.
template <typename CoversAll>
void SavePush(const PushContext& p, const SetLayoutShadow& layout, CoversAll&& covers_all, uint32_t writeCount,
              const VkWriteDescriptorSet* pWrites) {
  if (p.point == nullptr || p.set >= BindingsCommandData::kMaxSets) return;
  size_t contents = 0;
  for (uint32_t i = 0; i < writeCount; ++i) {
    const size_t bytes = KeptBytes(pWrites[i]);
    if (bytes == 0) {
      p.point->push_copy[p.set] = {};
      return;
    }
    contents += bytes;
  }
  uint8_t* at = nullptr;
  PushCopy* const copy = BeginPushCopy(p.c.b, *p.c.data, *p.point, p.set, layout, p.layout, covers_all, contents, &at);
  if (copy == nullptr) return;
  copy->writes = writeCount;
  for (uint32_t i = 0; i < writeCount; ++i) {
    const VkWriteDescriptorSet& w = pWrites[i];
    const Payload payload = PayloadOf(w.descriptorType);
    const size_t array_bytes = ElementBytes(payload) * w.descriptorCount;
    std::memcpy(at, &w, sizeof(w));
    if (payload == Payload::kBuffer && w.descriptorCount == 1) {
      std::memcpy(at + sizeof(w), w.pBufferInfo, sizeof(VkDescriptorBufferInfo));  // the usual one buffer, inline
    } else if (array_bytes != 0) {
      std::memcpy(at + sizeof(w), ElementArray(w, payload), array_bytes);
    }
    at += sizeof(w) + array_bytes;
  }
}

void SaveTemplatePush(const PushContext& p, const SetLayoutShadow& layout, const TemplateShadow& t, const void* pData) {
  if (p.point == nullptr || p.set >= BindingsCommandData::kMaxSets) return;
  if (t.full == VK_NULL_HANDLE) {
    p.point->push_copy[p.set] = {};
    return;
  }
  uint8_t* at = nullptr;
  PushCopy* const copy = BeginPushCopy(p.c.b, *p.c.data, *p.point, p.set, layout, p.layout,
                                       [&] { return t.writes_every_descriptor; }, t.data_size, &at);
  if (copy == nullptr) return;
  if (t.data_size != 0) std::memcpy(at, pData, t.data_size);
  copy->native_template = t.native;
  copy->with_template = t.full;
}

// A pushed buffer without a device address: its record is null, so a rewritten pipeline
// reading the set runs its native twin (native_twin.h), which gets the pushes made again
// natively with its full layout.
void NoteUnpushable(BindingsCommandData::BindPoint* point, uint32_t set) {
  if (point != nullptr) point->pushed_unaddressable |= BindPointState::SetMask(set, 1);
}

// A push to a set layout that converts nothing, in a pipeline layout that converts: its
// pipelines that run natively use a full layout numbering and laying out sets otherwise,
// so the push is kept for them like any other (made again at their next draw or
// dispatch). Only once the device has such pipelines.
void KeepNativePush(const PushContext& p, uint32_t writeCount, const VkWriteDescriptorSet* pWrites) {
  RecordStore& b = p.c.b;
  const PipelineLayoutShadow* pl = p.pl;
  if (pl == nullptr || !pl->root.converts || !pl->root.fits || p.set >= pl->root.sets.size() ||
      !b.any_fallback.load(std::memory_order_acquire)) {
    return;
  }
  const SetLayoutShadow* set_layout = pl->root.sets[p.set].layout.get();
  if (set_layout == nullptr || p.c.data == nullptr) return;
  SavePush(p, *set_layout, Coverage(*set_layout, ForEachWriteOf(writeCount, pWrites)), writeCount, pWrites);
  // A pipeline running natively is bound: the push through the application's layout
  // disturbed its full sets, which its next draw or dispatch binds again with the pushes.
  if (BoundFallback(b, p.point, *set_layout, p.set) != nullptr) p.point->fallback_applied = false;
}

// The same for a push through a template of such a set layout (its full-layout twin was
// made with it: template_hooks.cpp).
void KeepNativeTemplatePush(const PushContext& p, VkDescriptorUpdateTemplate handle, const void* pData) {
  RecordStore& b = p.c.b;
  if (!b.any_fallback.load(std::memory_order_acquire) || p.c.data == nullptr) return;
  const TemplateShadow* t = b.native_push_templates.Find(handle);
  if (t == nullptr || t->layout == nullptr) return;
  PushContext at_template = p;  // (the template's own bind point)
  at_template.point = p.c.data->At(t->bind_point);
  SaveTemplatePush(at_template, *t->layout, *t, pData);
  if (BoundFallback(b, at_template.point, *t->layout, p.set) != nullptr) at_template.point->fallback_applied = false;
}

// Every push replaces what was bound at its set number (natively the set now holds the
// pushed descriptors) and disturbs the sets bound through layouts not compatible with its
// own, whether or not its contents were kept: noted in the bind point's state, so that
// putting the converted binds back after a pipeline that ran natively
// (RestoreConvertedBinds) never binds an older set over the push, nor sets the push
// disturbed. `binds_before`: the bind point's count of binds before the push was kept (a
// copy kept by this push has a later order).
void NotePushed(BindingsCommandData::BindPoint* point, uint32_t set, VkPipelineLayout layout, uint32_t binds_before) {
  if (point == nullptr || set >= BindingsCommandData::kMaxSets) return;
  point->sets[set].Clear();
  point->ForgetSlots(set, 1);
  PushCopy& copy = point->push_copy[set];
  if (copy.valid && copy.order > binds_before) return;  // kept by this push: its order and layout are set
  copy = {};  // an older copy is not what the set holds now
  copy.app_layout = layout;
  copy.order = ++point->binds;
}


// ---- vkCmdPushDescriptorSetKHR's steps ----

// A push to a set layout that converts nothing: down as it is, renumbered.
void PushNativeSet(const PushContext& p, uint32_t writeCount, const VkWriteDescriptorSet* pWrites) {
  p.c.b.next.CmdPushDescriptorSetKHR(p.c.cb, p.bind_point, p.layout, p.native_set, writeCount, pWrites);
  NoteSetsBound(p.c, p.bind_point, p.layout);  // a push binds a set: the reserved set may be disturbed
  KeepNativePush(p, writeCount, pWrites);
  NotePushed(p.point, p.set, p.layout, p.binds_before);
}

// A layout whose root does not fit: every pipeline of it runs natively with its full
// layout (the fallback path), and so does the push.
void PushThroughFullLayout(const PushContext& p, uint32_t writeCount, const VkWriteDescriptorSet* pWrites) {
  RecordStore& b = p.c.b;
  PipelineLayoutShadow* pl = b.pipeline_layouts.Find(p.layout);  // cold path: made on first use
  const VkPipelineLayout full = pl != nullptr ? b.FullPipelineLayout(*pl) : VK_NULL_HANDLE;
  if (full != VK_NULL_HANDLE) b.next.CmdPushDescriptorSetKHR(p.c.cb, p.bind_point, full, p.set, writeCount, pWrites);
  NoteSetsBound(p.c, p.bind_point, full);  // through a full layout: a reserved set is disturbed
  NotePushed(p.point, p.set, p.layout, p.binds_before);
}

// The converted writes' records into `block` (or none where there is no block), the
// native writes split off into `native`. Returns how many native writes there are.
uint32_t SplitWrites(const PushContext& p, const SetLayoutShadow& set_layout, uint8_t* block, uint32_t writeCount,
                     const VkWriteDescriptorSet* pWrites, VkWriteDescriptorSet* native) {
  ThreadLookups& lookups = Lookups();
  uint32_t native_count = 0;
  for (uint32_t i = 0; i < writeCount; ++i) {
    const VkWriteDescriptorSet& w = pWrites[i];
    // Bindings of one converted type roll over only into bindings of the same type: a
    // write is wholly converted or wholly native.
    if (set_layout.Find(w.dstBinding) == nullptr) {
      native[native_count++] = w;
      continue;
    }
    if (block == nullptr) continue;
    ForEachRecord(set_layout, w.dstBinding, w.dstArrayElement, w.descriptorCount, [&](uint32_t record, uint32_t k) {
      uint8_t* out = block + static_cast<size_t>(record) * kRecordBytes;
      if (w.pBufferInfo == nullptr) {
        std::memset(out, 0, kRecordBytes);  // invalid usage: a null record (the block was not cleared)
      } else if (!EncodeRecord(p.c.b, lookups, w.pBufferInfo[k], out)) {
        NoteUnpushable(p.point, p.set);
      }
    });
  }
  return native_count;
}

// A pipeline running natively bound at the bind point gets the push through its full
// layout (`push` sends it through the layout it is given); the native part went down
// through the application's layout, not compatible with the full one: it disturbed the
// full sets and the earlier pushes, which the next draw or dispatch makes again
// (BindFullSets).
template <typename Push>
void PushToBoundFallback(const PushContext& p, const SetLayoutShadow& set_layout, bool native_sent, Push&& push) {
  const FallbackPipeline* f = BoundFallback(p.c.b, p.point, set_layout, p.set);
  if (f == nullptr) return;
  const VkPipelineLayout full = push(*f);
  NoteSetsBound(p.c, p.bind_point, full);
  if (native_sent) p.point->fallback_applied = false;
}

// A push to a set layout that converts, through a layout whose root fits: the push is
// kept (SavePush), its converted writes become a new block of records in the ring whose
// address goes into the root, and its native writes go down as a push with the smaller
// native layout.
void PushConverted(const PushContext& p, const SetLayoutShadow& set_layout, uint32_t writeCount,
                   const VkWriteDescriptorSet* pWrites) {
  RecordStore& b = p.c.b;
  auto covers_all = Coverage(set_layout, ForEachWriteOf(writeCount, pWrites));
  if (WholeBindingsInOrder(set_layout, writeCount, pWrites)) covers_all.Know(true);
  SavePush(p, set_layout, covers_all, writeCount, pWrites);
  NotePushed(p.point, p.set, p.layout, p.binds_before);
  bool any_converted = false;
  for (uint32_t i = 0; i < writeCount && !any_converted; ++i) any_converted = set_layout.Find(pWrites[i].dstBinding) != nullptr;
  VkDeviceAddress address = 0;
  // A push of native descriptors only leaves the records (and the root) as they are.
  uint8_t* block = any_converted ? NewPushBlock(*p.c.data, p.point, set_layout, p.set, covers_all, &address) : nullptr;
  // A push writing every descriptor replaces a null record an earlier push left (rare: only
  // looked at while one is there).
  if (block != nullptr && p.point != nullptr && (p.point->pushed_unaddressable & BindPointState::SetMask(p.set, 1)) != 0 &&
      covers_all()) {
    p.point->pushed_unaddressable &= ~BindPointState::SetMask(p.set, 1);
  }
  VkWriteDescriptorSet inline_writes[kInlineWrites];
  std::vector<VkWriteDescriptorSet> heap_writes;  // only for pushes of more than kInlineWrites writes
  if (writeCount > kInlineWrites) heap_writes.resize(writeCount);
  VkWriteDescriptorSet* native = writeCount > kInlineWrites ? heap_writes.data() : inline_writes;
  const uint32_t native_count = SplitWrites(p, set_layout, block, writeCount, pWrites, native);
  if (native_count != 0) b.next.CmdPushDescriptorSetKHR(p.c.cb, p.bind_point, p.layout, p.native_set, native_count, native);
  bool quiet = false;
  if (block != nullptr) {
    quiet = DeliverPushRoot(p, address) && native_count == 0;
    b.counters.pushes->Add();
  }
  PushToBoundFallback(p, set_layout, native_count != 0, [&](const FallbackPipeline& f) {
    b.next.CmdPushDescriptorSetKHR(p.c.cb, p.bind_point, f.full, p.set, writeCount, pWrites);
    return f.full;
  });
  if (quiet) KeepSettled(p);
}

// ---- vkCmdPushDescriptorSetWithTemplateKHR's steps ----

// A template the layer keeps no shadow of (of a set layout that converts nothing): down as
// it is, renumbered, and kept for pipelines running natively.
void PushNativeTemplate(RecordStore& b, VkCommandBuffer cb, BindingsCommandData* data,
                        VkDescriptorUpdateTemplate handle, VkPipelineLayout layout, uint32_t set, const void* pData) {
  // (A template the layer never saw created has no known bind point: nothing is noted.)
  VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_MAX_ENUM;
  if (data != nullptr) b.native_push_bind_points.Find(handle, &bind_point);
  const PushContext p = PushContextOf(b, cb, data, bind_point, layout, set);
  // Native templates of push descriptors were made for the set's number in the layout
  // sent down (NativePushTemplateInfo).
  b.next.CmdPushDescriptorSetWithTemplateKHR(cb, handle, layout, p.native_set, pData);
  NoteSetsBound(p.c, VK_PIPELINE_BIND_POINT_GRAPHICS, layout);
  NoteSetsBound(p.c, VK_PIPELINE_BIND_POINT_COMPUTE, layout);
  KeepNativeTemplatePush(p, handle, pData);
  NotePushed(p.point, set, layout, p.binds_before);
}

// The converted entries' records of a push with template `t` into `block`.
void EncodeTemplateRecords(const PushContext& p, const SetLayoutShadow& set_layout, const TemplateShadow& t,
                           const void* pData, uint8_t* block) {
  ThreadLookups& lookups = Lookups();
  const uint8_t* bytes = static_cast<const uint8_t*>(pData);
  for (const VkDescriptorUpdateTemplateEntry& e : t.converted) {
    ForEachRecord(set_layout, e.dstBinding, e.dstArrayElement, e.descriptorCount, [&](uint32_t record, uint32_t k) {
      VkDescriptorBufferInfo info;
      std::memcpy(&info, bytes + e.offset + static_cast<size_t>(k) * e.stride, sizeof(info));
      if (!EncodeRecord(p.c.b, lookups, info, block + static_cast<size_t>(record) * kRecordBytes)) {
        NoteUnpushable(p.point, p.set);
      }
    });
  }
}

// A push with a converting template through a layout whose root fits: as PushConverted,
// the template's converted entries into the block, its native ones through its native
// template.
void PushConvertedTemplate(const PushContext& p, const SetLayoutShadow& set_layout, const TemplateShadow& t,
                           const void* pData) {
  RecordStore& b = p.c.b;
  SaveTemplatePush(p, set_layout, t, pData);
  NotePushed(p.point, p.set, p.layout, p.binds_before);
  auto covers_all = [&] { return t.writes_every_descriptor; };
  VkDeviceAddress address = 0;
  uint8_t* block =
      t.converted.empty() ? nullptr : NewPushBlock(*p.c.data, p.point, set_layout, p.set, covers_all, &address);
  if (block != nullptr && p.point != nullptr && t.writes_every_descriptor) {
    p.point->pushed_unaddressable &= ~BindPointState::SetMask(p.set, 1);
  }
  if (block != nullptr) EncodeTemplateRecords(p, set_layout, t, pData, block);
  if (t.native != VK_NULL_HANDLE) {
    b.next.CmdPushDescriptorSetWithTemplateKHR(p.c.cb, t.native, p.layout, p.native_set, pData);
  }
  bool quiet = false;
  if (block != nullptr) {
    quiet = DeliverPushRoot(p, address) && t.native == VK_NULL_HANDLE;
    b.counters.pushes->Add();
  }
  PushToBoundFallback(p, set_layout, t.native != VK_NULL_HANDLE, [&](const FallbackPipeline&) {
    b.next.CmdPushDescriptorSetWithTemplateKHR(p.c.cb, t.full, t.full_layout, p.set, pData);
    return t.full_layout;
  });
  if (quiet) KeepSettled(p);
}

}  // namespace

namespace {

// A push on a device where layouts convert, or one the device table did not answer
// (`cached` nullptr: the registry's answer then, else straight down); the device the hook
// found is handed down, last.
[[gnu::noinline]] void PushDescriptorSetSlow(VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                                             uint32_t set, uint32_t writeCount, const VkWriteDescriptorSet* pWrites,
                                             RecordStore* cached) {
  RecordStore* found = cached != nullptr ? cached : FindBindings<RecordStore>(cb);
  if (found == nullptr) return NextOf(cb).CmdPushDescriptorSetKHR(cb, bindPoint, layout, set, writeCount, pWrites);
  if (!found->Converting()) return found->next.CmdPushDescriptorSetKHR(cb, bindPoint, layout, set, writeCount, pWrites);
  PushDescriptorSetConverting(*found, cb, bindPoint, layout, set, writeCount, pWrites);
}

[[gnu::noinline]] void PushDescriptorSetWithTemplateSlow(VkCommandBuffer cb, VkDescriptorUpdateTemplate handle,
                                                         VkPipelineLayout layout, uint32_t set, const void* pData,
                                                         RecordStore* cached) {
  RecordStore* found = cached != nullptr ? cached : FindBindings<RecordStore>(cb);
  if (found == nullptr) return NextOf(cb).CmdPushDescriptorSetWithTemplateKHR(cb, handle, layout, set, pData);
  if (!found->Converting()) return found->next.CmdPushDescriptorSetWithTemplateKHR(cb, handle, layout, set, pData);
  PushDescriptorSetWithTemplateConverting(*found, cb, handle, layout, set, pData);
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetKHR(VkCommandBuffer cb, VkPipelineBindPoint bindPoint,
                                                   VkPipelineLayout layout, uint32_t set, uint32_t writeCount,
                                                   const VkWriteDescriptorSet* pWrites) {
  // No converting layout exists yet: straight down, a tail call (as every record hook).
  RecordStore* cached = FindBindingsIndexed<RecordStore>(cb);
  if (cached != nullptr && (cached->Work() & RecordStore::kWorkConverting) == 0) {
    return cached->next.CmdPushDescriptorSetKHR(cb, bindPoint, layout, set, writeCount, pWrites);
  }
  return PushDescriptorSetSlow(cb, bindPoint, layout, set, writeCount, pWrites, cached);
}

void PushDescriptorSetConverting(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint,
                                 VkPipelineLayout layout, uint32_t set, uint32_t writeCount,
                                 const VkWriteDescriptorSet* pWrites) {
  const PushContext p = PushContextOf(b, cb, CommandDataOf(b, cb), bindPoint, layout, set);  // found once
  const SetLayoutShadow* set_layout = ConvertedPushLayout(p.pl, set);
  if (set_layout == nullptr) return PushNativeSet(p, writeCount, pWrites);
  if (!p.pl->root.fits) return PushThroughFullLayout(p, writeCount, pWrites);
  if (p.c.data == nullptr) return;  // not a command buffer the layer tracks: nothing can be recorded
  PushConverted(p, *set_layout, writeCount, pWrites);
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb,
                                                               VkDescriptorUpdateTemplate descriptorUpdateTemplate,
                                                               VkPipelineLayout layout, uint32_t set,
                                                               const void* pData) {
  RecordStore* cached = FindBindingsIndexed<RecordStore>(cb);
  if (cached != nullptr && (cached->Work() & RecordStore::kWorkConverting) == 0) {
    return cached->next.CmdPushDescriptorSetWithTemplateKHR(cb, descriptorUpdateTemplate, layout, set, pData);
  }
  return PushDescriptorSetWithTemplateSlow(cb, descriptorUpdateTemplate, layout, set, pData, cached);
}

void PushDescriptorSetWithTemplateConverting(RecordStore& b, VkCommandBuffer cb,
                                             VkDescriptorUpdateTemplate descriptorUpdateTemplate,
                                             VkPipelineLayout layout, uint32_t set, const void* pData) {
  BindingsCommandData* data = CommandDataOf(b, cb);
  const TemplateShadow* t = TemplateShadowOf(b, data, descriptorUpdateTemplate);
  if (t == nullptr) return PushNativeTemplate(b, cb, data, descriptorUpdateTemplate, layout, set, pData);
  const PushContext p = PushContextOf(b, cb, data, t->bind_point, layout, set);  // found once
  const SetLayoutShadow* set_layout = ConvertedPushLayout(p.pl, set);
  if (!t->push || set_layout == nullptr) return;  // invalid usage (not a push template of this layout)
  if (!p.pl->root.fits) {
    b.next.CmdPushDescriptorSetWithTemplateKHR(cb, t->full, t->full_layout, set, pData);
    NoteSetsBound(p.c, t->bind_point, t->full_layout);
    NotePushed(p.point, set, layout, p.binds_before);
    return;
  }
  if (data == nullptr) return;
  PushConvertedTemplate(p, *set_layout, *t, pData);
}

namespace {

// Makes one kept push again: with the full layout `full` (every write), or, when `full`
// is VK_NULL_HANDLE, its native part through the application's layout as the push sent it
// down.
void RepushOne(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
               const PushCopy& copy, uint32_t set, VkPipelineLayout full) {
  const uint8_t* at = data.push_arena.data() + copy.offset;
  const PipelineLayoutShadow* pl = full == VK_NULL_HANDLE ? b.pipeline_layouts.Find(copy.app_layout) : nullptr;
  if (full == VK_NULL_HANDLE && (pl == nullptr || copy.layout == nullptr)) return;  // its layout is gone
  if (copy.with_template != VK_NULL_HANDLE) {
    if (full != VK_NULL_HANDLE) {
      b.next.CmdPushDescriptorSetWithTemplateKHR(cb, copy.with_template, full, set, at);
    } else if (copy.native_template != VK_NULL_HANDLE) {
      b.next.CmdPushDescriptorSetWithTemplateKHR(cb, copy.native_template, copy.app_layout, pl->NativeSet(set), at);
    }
    return;
  }
  // Cold path (a pipeline running natively): the writes rebuilt with their arrays.
  std::vector<VkWriteDescriptorSet> writes;
  writes.reserve(copy.writes);
  for (uint32_t i = 0; i < copy.writes; ++i) {
    VkWriteDescriptorSet w;
    std::memcpy(&w, at, sizeof(VkWriteDescriptorSet));
    const uint8_t* array = at + sizeof(VkWriteDescriptorSet);
    const Payload payload = PayloadOf(w.descriptorType);
    const size_t element = ElementBytes(payload);
    w.pImageInfo = payload == Payload::kImage ? reinterpret_cast<const VkDescriptorImageInfo*>(array) : nullptr;
    w.pBufferInfo = payload == Payload::kBuffer ? reinterpret_cast<const VkDescriptorBufferInfo*>(array) : nullptr;
    w.pTexelBufferView = payload == Payload::kTexelView ? reinterpret_cast<const VkBufferView*>(array) : nullptr;
    at = array + element * w.descriptorCount;
    if (full == VK_NULL_HANDLE && copy.layout->Find(w.dstBinding) != nullptr) continue;  // a record, not native
    writes.push_back(w);
  }
  if (writes.empty()) return;
  const uint32_t count = static_cast<uint32_t>(writes.size());
  if (full != VK_NULL_HANDLE) {
    b.next.CmdPushDescriptorSetKHR(cb, bind_point, full, set, count, writes.data());
  } else {
    b.next.CmdPushDescriptorSetKHR(cb, bind_point, copy.app_layout, pl->NativeSet(set), count, writes.data());
  }
}

// The set's chained pushes (PushCopy), oldest first.
std::vector<PushCopy> PushChain(const BindingsCommandData& data, const BindingsCommandData::BindPoint& point,
                                uint32_t set) {
  std::vector<PushCopy> chain{point.push_copy[set]};
  while (chain.back().previous != kNoPushCopy && chain.back().previous + sizeof(PushCopy) <= data.push_arena.size()) {
    PushCopy prior;
    std::memcpy(&prior, data.push_arena.data() + chain.back().previous, sizeof(PushCopy));
    chain.push_back(prior);
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

}  // namespace

bool RepushNatively(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                    BindingsCommandData::BindPoint& point, uint32_t set, const FallbackPipeline& f) {
  if (set >= BindingsCommandData::kMaxSets || f.full == VK_NULL_HANDLE) return false;
  if (!point.push_copy[set].valid) return false;
  // Cold path: each push keeps what the ones before it wrote and it does not. A push
  // through a layout not compatible with the pipeline's for this set is not what the
  // pipeline reads there (natively the set would be disturbed for it), and its template
  // cannot be used through the pipeline's layout (its full twin was made with the push's).
  for (const PushCopy& copy : PushChain(data, point, set)) {
    if (!copy.valid || copy.offset + copy.size > data.push_arena.size()) continue;
    const PipelineLayoutShadow* through = b.pipeline_layouts.Find(copy.app_layout);
    if (through != nullptr && !CompatibleWithFallback(*through, f, set)) continue;
    RepushOne(b, cb, bind_point, data, copy, set, f.full);
  }
  return true;
}

void RepushNativeParts(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
                       BindingsCommandData::BindPoint& point, uint64_t skip) {
  for (uint32_t set = 0; set < BindingsCommandData::kMaxSets; ++set) {
    const PushCopy& last = point.push_copy[set];
    if (!last.valid || last.layout == nullptr || !last.layout->has_native || ((skip >> set) & 1) != 0) continue;
    for (const PushCopy& copy : PushChain(data, point, set)) {
      if (copy.valid && copy.offset + copy.size <= data.push_arena.size()) {
        RepushOne(b, cb, bind_point, data, copy, set, VK_NULL_HANDLE);
      }
    }
  }
}

}  // namespace bindery::bindings
