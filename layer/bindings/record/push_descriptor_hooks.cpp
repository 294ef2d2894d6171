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
// Hot path: no lock but the handle maps' shards, nothing allocated (the ring lends 64 KiB
// chunks; up to kInlineWrites native writes are split on the stack).
#include "bindings/record/push_descriptor_hooks.h"

#include <algorithm>
#include <cstring>
#include <vector>

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

// A new block for a push of `layout` to `set`: the previous push's block copied, or zeros
// (a record of zeros is a null descriptor). nullptr when out of ring memory (the command
// buffer's vkEndCommandBuffer then fails).
uint8_t* NewPushBlock(BindingsCommandData& data, BindingsCommandData::BindPoint* point, const SetLayoutShadow& layout,
                      uint32_t set, VkDeviceAddress* address) {
  const uint32_t bytes = layout.record_count * kRecordBytes;
  const RingSlice slice = data.ring.Allocate(data.pool(), bytes, kRecordBytes);
  if (slice.data == nullptr) {
    data.Fail(VK_ERROR_OUT_OF_DEVICE_MEMORY);
    return nullptr;
  }
  const bool tracked = point != nullptr && set < BindingsCommandData::kMaxSets;
  if (tracked && point->push_layout[set] == &layout) {
    std::memcpy(slice.data, point->push_block[set], bytes);
  } else {
    std::memset(slice.data, 0, bytes);
    if (tracked) point->pushed_unaddressable &= ~BindPointState::SetMask(set, 1);  // no record kept
  }
  if (tracked) {
    point->push_layout[set] = &layout;
    point->push_block[set] = slice.data;
    point->push_address[set] = slice.address;
    point->sets[set] = BindingsCommandData::BoundSet{};  // a push replaces what was bound there
  }
  *address = slice.address;
  return slice.data;
}

// The block's address into the set's root slot.
void DeliverPushRoot(const RecordContext& c, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                     const PipelineLayoutShadow& pl, uint32_t set, VkDeviceAddress address) {
  alignas(8) uint8_t bytes[8];
  std::memcpy(bytes, &address, 8);
  const uint32_t at = pl.root.sets[set].root_offset;
  DeliverRoot(c, bindPoint, layout, pl, at, at + 8, bytes, BindPointState::SetMask(set, 1));
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

// Starts the kept copy of a push to `set` of `layout` through `app_layout`: the set's
// previous copy is chained behind it (its header appended to the arena) when it pushed the
// same set layout and the set still holds what it wrote (PushStillHolds: not disturbed
// since, through a compatible layout), unless `covers_all()` says this push writes every
// descriptor. Returns the new copy, emptied, with `previous` set.
template <typename CoversAll>
PushCopy& BeginPushCopy(RecordStore& b, BindingsCommandData& data, BindingsCommandData::BindPoint& point,
                        uint32_t set, const SetLayoutShadow& layout, VkPipelineLayout app_layout,
                        CoversAll&& covers_all) {
  PushCopy& copy = point.push_copy[set];
  const PushCopy prior = copy;
  copy = {};
  if (prior.valid && prior.layout == &layout && !covers_all() && PushStillHolds(b, point, set, prior, app_layout)) {
    const size_t at = data.push_arena.size();
    data.push_arena.resize(at + sizeof(PushCopy));
    std::memcpy(data.push_arena.data() + at, &prior, sizeof(PushCopy));
    copy.previous = static_cast<uint32_t>(at);
  }
  copy.layout = &layout;
  copy.order = ++point.binds;
  return copy;
}

// Keeps the push as the application made it (PushCopy).
// The arena grows only until a recording's pushes fit; after that nothing is allocated.
void SavePush(RecordStore& b, BindingsCommandData& data, BindingsCommandData::BindPoint* point,
              VkPipelineLayout app_layout, uint32_t set, const SetLayoutShadow& layout, uint32_t writeCount,
              const VkWriteDescriptorSet* pWrites) {
  if (point == nullptr || set >= BindingsCommandData::kMaxSets) return;
  const size_t begin = data.push_arena.size();
  PushCopy& copy = BeginPushCopy(b, data, *point, set, layout, app_layout, [&] {
    return WritesEveryDescriptor(layout, [&](auto&& visit) {
      for (uint32_t i = 0; i < writeCount; ++i) visit(pWrites[i].dstBinding, pWrites[i].dstArrayElement, pWrites[i].descriptorCount);
    });
  });
  const size_t contents = data.push_arena.size();
  for (uint32_t i = 0; i < writeCount; ++i) {
    const VkWriteDescriptorSet& w = pWrites[i];
    const Payload payload = PayloadOf(w.descriptorType);
    const size_t element = ElementBytes(payload);
    const void* array = ElementArray(w, payload);
    if (element == 0 || w.pNext != nullptr || (array == nullptr && w.descriptorCount != 0)) {
      data.push_arena.resize(begin);
      copy = {};
      return;  // not kept: a pipeline running natively bound later does not get it
    }
    const size_t at = data.push_arena.size();
    data.push_arena.resize(at + sizeof(VkWriteDescriptorSet) + element * w.descriptorCount);
    std::memcpy(data.push_arena.data() + at, &w, sizeof(w));
    if (w.descriptorCount != 0) {
      std::memcpy(data.push_arena.data() + at + sizeof(w), array, element * w.descriptorCount);
    }
  }
  copy.valid = true;
  copy.app_layout = app_layout;
  copy.offset = static_cast<uint32_t>(contents);
  copy.size = static_cast<uint32_t>(data.push_arena.size() - contents);
  copy.writes = writeCount;
}

void SaveTemplatePush(RecordStore& b, BindingsCommandData& data, BindingsCommandData::BindPoint* point,
                      VkPipelineLayout app_layout, uint32_t set, const SetLayoutShadow& layout, const TemplateShadow& t,
                      const void* pData) {
  if (point == nullptr || set >= BindingsCommandData::kMaxSets) return;
  if (t.full == VK_NULL_HANDLE) {
    point->push_copy[set] = {};
    return;
  }
  PushCopy& copy = BeginPushCopy(b, data, *point, set, layout, app_layout, [&] { return t.writes_every_descriptor; });
  const size_t begin = data.push_arena.size();
  data.push_arena.resize(begin + t.data_size);
  if (t.data_size != 0) std::memcpy(data.push_arena.data() + begin, pData, t.data_size);
  copy.valid = true;
  copy.app_layout = app_layout;
  copy.native_template = t.native;
  copy.with_template = t.full;
  copy.offset = static_cast<uint32_t>(begin);
  copy.size = t.data_size;
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
void KeepNativePush(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipelineLayout layout,
                    const PipelineLayoutShadow* pl, uint32_t set, uint32_t writeCount,
                    const VkWriteDescriptorSet* pWrites) {
  if (pl == nullptr || !pl->root.converts || !pl->root.fits || set >= pl->root.sets.size() ||
      !b.any_fallback.load(std::memory_order_acquire)) {
    return;
  }
  const SetLayoutShadow* set_layout = pl->root.sets[set].layout.get();
  BindingsCommandData* data = set_layout != nullptr ? CommandDataOf(b, cb) : nullptr;
  if (data == nullptr) return;
  BindingsCommandData::BindPoint* point = data->At(bindPoint);
  SavePush(b, *data, point, layout, set, *set_layout, writeCount, pWrites);
  // A pipeline running natively is bound: the push through the application's layout
  // disturbed its full sets, which its next draw or dispatch binds again with the pushes.
  if (BoundFallback(b, point, *set_layout, set) != nullptr) point->fallback_applied = false;
}

// The same for a push through a template of such a set layout (its full-layout twin was
// made with it: template_hooks.cpp).
void KeepNativeTemplatePush(RecordStore& b, VkCommandBuffer cb, VkDescriptorUpdateTemplate handle,
                            VkPipelineLayout layout, uint32_t set, const void* pData) {
  if (!b.any_fallback.load(std::memory_order_acquire)) return;
  const TemplateShadow* t = b.native_push_templates.Find(handle);
  BindingsCommandData* data = t != nullptr && t->layout != nullptr ? CommandDataOf(b, cb) : nullptr;
  if (data == nullptr) return;
  BindingsCommandData::BindPoint* point = data->At(t->bind_point);
  SaveTemplatePush(b, *data, point, layout, set, *t->layout, *t, pData);
  if (BoundFallback(b, point, *t->layout, set) != nullptr) point->fallback_applied = false;
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
  point->sets[set] = BindingsCommandData::BoundSet{};
  point->ForgetSlots(set, 1);
  PushCopy& copy = point->push_copy[set];
  if (copy.valid && copy.order > binds_before) return;  // kept by this push: its order and layout are set
  copy = {};  // an older copy is not what the set holds now
  copy.app_layout = layout;
  copy.order = ++point->binds;
}

uint32_t BindsOf(const BindingsCommandData::BindPoint* point) { return point != nullptr ? point->binds : 0; }

}  // namespace

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetKHR(VkCommandBuffer cb, VkPipelineBindPoint bindPoint,
                                                   VkPipelineLayout layout, uint32_t set, uint32_t writeCount,
                                                   const VkWriteDescriptorSet* pWrites) {
  RecordStore* found = FindBindings<RecordStore>(cb);
  if (found == nullptr) return NextOf(cb).CmdPushDescriptorSetKHR(cb, bindPoint, layout, set, writeCount, pWrites);
  RecordStore& b = *found;
  if (!b.Converting()) return b.next.CmdPushDescriptorSetKHR(cb, bindPoint, layout, set, writeCount, pWrites);
  PipelineLayoutShadow* pl = b.pipeline_layouts.Find(layout);
  const SetLayoutShadow* set_layout = ConvertedPushLayout(pl, set);
  // The layout sent down leaves root-only sets out: the set's number there.
  const uint32_t native_set = pl != nullptr ? pl->NativeSet(set) : set;
  const RecordContext c = ContextOf(b, cb);  // the command buffer's state, once
  BindingsCommandData* data = c.data;
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(bindPoint) : nullptr;
  const uint32_t binds_before = BindsOf(point);
  if (set_layout == nullptr) {
    b.next.CmdPushDescriptorSetKHR(cb, bindPoint, layout, native_set, writeCount, pWrites);
    NoteSetsBound(c, bindPoint, layout);  // a push binds a set: the reserved set may be disturbed
    KeepNativePush(b, cb, bindPoint, layout, pl, set, writeCount, pWrites);
    NotePushed(point, set, layout, binds_before);
    return;
  }
  if (!pl->root.fits) {
    // Every pipeline of this layout runs natively with its full layout (fallback path).
    const VkPipelineLayout full = b.FullPipelineLayout(*pl);
    if (full != VK_NULL_HANDLE) b.next.CmdPushDescriptorSetKHR(cb, bindPoint, full, set, writeCount, pWrites);
    NoteSetsBound(c, bindPoint, full);  // through a full layout: a reserved set is disturbed
    NotePushed(point, set, layout, binds_before);
    return;
  }
  if (data == nullptr) return;  // not a command buffer the layer tracks: nothing can be recorded
  SavePush(b, *data, point, layout, set, *set_layout, writeCount, pWrites);
  NotePushed(point, set, layout, binds_before);
  bool any_converted = false;
  for (uint32_t i = 0; i < writeCount && !any_converted; ++i) any_converted = set_layout->Find(pWrites[i].dstBinding) != nullptr;
  VkDeviceAddress address = 0;
  // A push of native descriptors only leaves the records (and the root) as they are.
  uint8_t* block = any_converted ? NewPushBlock(*data, point, *set_layout, set, &address) : nullptr;
  // A push writing every descriptor replaces a null record an earlier push left (rare: only
  // looked at while one is there).
  if (block != nullptr && point != nullptr && (point->pushed_unaddressable & BindPointState::SetMask(set, 1)) != 0 &&
      WritesEveryDescriptor(*set_layout, [&](auto&& visit) {
        for (uint32_t i = 0; i < writeCount; ++i) {
          visit(pWrites[i].dstBinding, pWrites[i].dstArrayElement, pWrites[i].descriptorCount);
        }
      })) {
    point->pushed_unaddressable &= ~BindPointState::SetMask(set, 1);
  }

  VkWriteDescriptorSet inline_writes[kInlineWrites];
  std::vector<VkWriteDescriptorSet> heap_writes;  // only for pushes of more than kInlineWrites writes
  if (writeCount > kInlineWrites) heap_writes.resize(writeCount);
  VkWriteDescriptorSet* native = writeCount > kInlineWrites ? heap_writes.data() : inline_writes;
  uint32_t native_count = 0;
  for (uint32_t i = 0; i < writeCount; ++i) {
    const VkWriteDescriptorSet& w = pWrites[i];
    // Bindings of one converted type roll over only into bindings of the same type: a
    // write is wholly converted or wholly native.
    if (set_layout->Find(w.dstBinding) == nullptr) {
      native[native_count++] = w;
      continue;
    }
    if (block == nullptr || w.pBufferInfo == nullptr) continue;
    ForEachRecord(*set_layout, w.dstBinding, w.dstArrayElement, w.descriptorCount, [&](uint32_t record, uint32_t k) {
      if (!EncodeRecord(b, w.pBufferInfo[k], block + static_cast<size_t>(record) * kRecordBytes)) {
        NoteUnpushable(point, set);
      }
    });
  }
  if (native_count != 0) b.next.CmdPushDescriptorSetKHR(cb, bindPoint, layout, native_set, native_count, native);
  if (block != nullptr) {
    DeliverPushRoot(c, bindPoint, layout, *pl, set, address);
    b.counters.pushes->Add();
  }
  if (const FallbackPipeline* f = BoundFallback(b, point, *set_layout, set)) {
    b.next.CmdPushDescriptorSetKHR(cb, bindPoint, f->full, set, writeCount, pWrites);
    NoteSetsBound(c, bindPoint, f->full);
    // The native part went down through the application's layout, not compatible with the
    // full one: it disturbed the full sets and the earlier pushes, which the next draw or
    // dispatch makes again (BindFullSets).
    if (native_count != 0) point->fallback_applied = false;
  }
}

VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetWithTemplateKHR(VkCommandBuffer cb,
                                                               VkDescriptorUpdateTemplate descriptorUpdateTemplate,
                                                               VkPipelineLayout layout, uint32_t set,
                                                               const void* pData) {
  RecordStore* found = FindBindings<RecordStore>(cb);
  if (found == nullptr) {
    return NextOf(cb).CmdPushDescriptorSetWithTemplateKHR(cb, descriptorUpdateTemplate, layout, set, pData);
  }
  RecordStore& b = *found;
  if (!b.Converting()) return b.next.CmdPushDescriptorSetWithTemplateKHR(cb, descriptorUpdateTemplate, layout, set, pData);
  const TemplateShadow* t = b.templates.Find(descriptorUpdateTemplate);
  PipelineLayoutShadow* pl = b.pipeline_layouts.Find(layout);
  // Native templates of push descriptors were made for the set's number in the layout sent
  // down (NativePushTemplateInfo).
  const uint32_t native_set = pl != nullptr ? pl->NativeSet(set) : set;
  const RecordContext c = ContextOf(b, cb);  // the command buffer's state, once
  BindingsCommandData* data = c.data;
  if (t == nullptr) {
    b.next.CmdPushDescriptorSetWithTemplateKHR(cb, descriptorUpdateTemplate, layout, native_set, pData);
    NoteSetsBound(c, VK_PIPELINE_BIND_POINT_GRAPHICS, layout);
    NoteSetsBound(c, VK_PIPELINE_BIND_POINT_COMPUTE, layout);
    // (A template the layer never saw created has no known bind point: nothing is noted.)
    VkPipelineBindPoint bind_point = VK_PIPELINE_BIND_POINT_MAX_ENUM;
    BindingsCommandData::BindPoint* point =
        data != nullptr && b.native_push_bind_points.Find(descriptorUpdateTemplate, &bind_point) ? data->At(bind_point)
                                                                                                  : nullptr;
    const uint32_t binds_before = BindsOf(point);
    KeepNativeTemplatePush(b, cb, descriptorUpdateTemplate, layout, set, pData);
    NotePushed(point, set, layout, binds_before);
    return;
  }
  const SetLayoutShadow* set_layout = ConvertedPushLayout(pl, set);
  if (!t->push || set_layout == nullptr) return;  // invalid usage (not a push template of this layout)
  BindingsCommandData::BindPoint* point = data != nullptr ? data->At(t->bind_point) : nullptr;
  const uint32_t binds_before = BindsOf(point);
  if (!pl->root.fits) {
    b.next.CmdPushDescriptorSetWithTemplateKHR(cb, t->full, t->full_layout, set, pData);
    NoteSetsBound(c, t->bind_point, t->full_layout);
    NotePushed(point, set, layout, binds_before);
    return;
  }
  if (data == nullptr) return;
  SaveTemplatePush(b, *data, point, layout, set, *set_layout, *t, pData);
  NotePushed(point, set, layout, binds_before);
  VkDeviceAddress address = 0;
  uint8_t* block = t->converted.empty() ? nullptr : NewPushBlock(*data, point, *set_layout, set, &address);
  if (block != nullptr && point != nullptr && t->writes_every_descriptor) {
    point->pushed_unaddressable &= ~BindPointState::SetMask(set, 1);
  }
  if (block != nullptr) {
    const uint8_t* bytes = static_cast<const uint8_t*>(pData);
    for (const VkDescriptorUpdateTemplateEntry& e : t->converted) {
      ForEachRecord(*set_layout, e.dstBinding, e.dstArrayElement, e.descriptorCount, [&](uint32_t record, uint32_t k) {
        VkDescriptorBufferInfo info;
        std::memcpy(&info, bytes + e.offset + static_cast<size_t>(k) * e.stride, sizeof(info));
        if (!EncodeRecord(b, info, block + static_cast<size_t>(record) * kRecordBytes)) NoteUnpushable(point, set);
      });
    }
  }
  if (t->native != VK_NULL_HANDLE) b.next.CmdPushDescriptorSetWithTemplateKHR(cb, t->native, layout, native_set, pData);
  if (block != nullptr) {
    DeliverPushRoot(c, t->bind_point, layout, *pl, set, address);
    b.counters.pushes->Add();
  }
  if (BoundFallback(b, point, *set_layout, set) != nullptr) {
    b.next.CmdPushDescriptorSetWithTemplateKHR(cb, t->full, t->full_layout, set, pData);
    NoteSetsBound(c, t->bind_point, t->full_layout);
    if (t->native != VK_NULL_HANDLE) point->fallback_applied = false;  // as above
  }
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
