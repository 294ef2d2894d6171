// vkUpdateDescriptorSets: writes and copies into converted bindings become records in
// the set's run of its pool's block (set_records.h), with their CPU copies; native ones go
// down together in the application's order; copies between converted and native
// bindings carry the descriptors the application wrote.
#include <algorithm>
#include <cstring>
#include <list>
#include <vector>

#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/set_records.h"
#include "bindings/model/lookup_cache.h"
#include "core/log.h"

namespace bindery::bindings {

namespace {

// A native write of buffer descriptors: kept where the set's buffer descriptors are
// (native_buffer_sets.h).
void KeepNativeWrite(DescriptorStore& b, const VkWriteDescriptorSet& w) {
  if (!IsConvertedType(w.descriptorType, b.plan.convert_uniform_buffers) || w.pBufferInfo == nullptr) return;
  NativeBufferSet* set = b.native_buffer_sets.Find(w.dstSet);
  if (set == nullptr) return;
  ForEachAppDescriptor(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                       [&](uint32_t binding, uint32_t element, uint32_t k) {
                         set->descriptors[NativeBufferSet::Key(binding, element)] = w.pBufferInfo[k];
                       });
}

// The `count` descriptors a copy reads from a native set, into `values` (unknown ones
// stay null). False when the layer never saw the set's writes.
bool ReadNativeDescriptors(DescriptorStore& b, VkDescriptorSet handle, uint32_t binding, uint32_t element, uint32_t count,
                           VkDescriptorBufferInfo* values) {
  const NativeBufferSet* set = b.native_buffer_sets.Find(handle);
  if (set == nullptr) return false;
  ForEachAppDescriptor(*set->layout, binding, element, count, [&](uint32_t bnd, uint32_t el, uint32_t k) {
    auto it = set->descriptors.find(NativeBufferSet::Key(bnd, el));
    if (it != set->descriptors.end()) values[k] = it->second;
  });
  return true;
}

// A native-to-native copy: the kept descriptors of the destination follow it.
void KeepNativeCopy(DescriptorStore& b, const VkCopyDescriptorSet& c) {
  NativeBufferSet* dst = b.native_buffer_sets.Find(c.dstSet);
  if (dst == nullptr || c.descriptorCount == 0) return;
  std::vector<VkDescriptorBufferInfo> values(c.descriptorCount, VkDescriptorBufferInfo{});
  const bool known = ReadNativeDescriptors(b, c.srcSet, c.srcBinding, c.srcArrayElement, c.descriptorCount, values.data());
  ForEachAppDescriptor(*dst->layout, c.dstBinding, c.dstArrayElement, c.descriptorCount,
                       [&](uint32_t binding, uint32_t element, uint32_t k) {
                         const uint64_t key = NativeBufferSet::Key(binding, element);
                         if (known && values[k].buffer != VK_NULL_HANDLE) {
                           dst->descriptors[key] = values[k];
                         } else {
                           dst->descriptors.erase(key);
                         }
                       });
}

// What a copy into or out of converted bindings carries: the source descriptors as the
// application wrote them. A copy must not reach the driver with a converted side: a
// converted binding does not exist in the native layout.
class CopyTranslator {
 public:
  explicit CopyTranslator(DescriptorStore& b) : b_(b) {}

  // A copy from converted records into a native set's binding: native writes of the
  // descriptors (those never written, or whose buffer is gone, are left as they are).
  void ToNative(const VkCopyDescriptorSet& c, VkDescriptorType type, const VkDescriptorBufferInfo* values) {
    NativeBufferSet* kept = b_.native_buffer_sets.Find(c.dstSet);
    // Where each descriptor lands: the destination's layout rolls over into the next
    // binding; a set whose layout the layer does not hold is taken not to.
    auto position = [&](uint32_t k, uint32_t* binding, uint32_t* element) {
      *binding = c.dstBinding;
      *element = c.dstArrayElement + k;
      if (kept == nullptr) return;
      ForEachAppDescriptor(*kept->layout, c.dstBinding, c.dstArrayElement, k + 1,
                           [&](uint32_t bnd, uint32_t el, uint32_t i) {
                             if (i != k) return;
                             *binding = bnd;
                             *element = el;
                           });
    };
    values_.emplace_back(values, values + c.descriptorCount);
    const VkDescriptorBufferInfo* stored = values_.back().data();
    for (uint32_t k = 0; k < c.descriptorCount;) {
      if (!Usable(stored[k])) {
        ++k;
        continue;
      }
      uint32_t run = 1;
      while (k + run < c.descriptorCount && Usable(stored[k + run])) ++run;
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstSet = c.dstSet;
      position(k, &w.dstBinding, &w.dstArrayElement);
      w.descriptorCount = run;
      w.descriptorType = type;
      w.pBufferInfo = stored + k;
      writes_.push_back(w);
      if (kept != nullptr) KeepNativeWrite(b_, w);
      k += run;
    }
  }

  // After the application's native writes and copies: the translated ones.
  void Flush(VkDevice device) {
    if (writes_.empty()) return;
    b_.next.UpdateDescriptorSets(device, static_cast<uint32_t>(writes_.size()), writes_.data(), 0, nullptr);
  }

 private:
  bool Usable(const VkDescriptorBufferInfo& d) { return d.buffer != VK_NULL_HANDLE && b_.StillNames(d); }
  DescriptorStore& b_;
  std::vector<VkWriteDescriptorSet> writes_;
  std::list<std::vector<VkDescriptorBufferInfo>> values_;  // stable while writes_ point into them
};

// The update on a device where layouts convert (the hook hands its lookup over: six
// arguments in registers, still a tail call).
[[gnu::noinline]] void UpdateConverting(DescriptorStore& b, VkDevice device, uint32_t descriptorWriteCount,
                                        const VkWriteDescriptorSet* pDescriptorWrites, uint32_t descriptorCopyCount,
                                        const VkCopyDescriptorSet* pDescriptorCopies);

// A device the table did not answer: the registry's answer, else straight down.
[[gnu::noinline]] void UpdateDescriptorSetsUnindexed(VkDevice device, uint32_t descriptorWriteCount,
                                                     const VkWriteDescriptorSet* pDescriptorWrites,
                                                     uint32_t descriptorCopyCount,
                                                     const VkCopyDescriptorSet* pDescriptorCopies) {
  DescriptorStore* found = FindBindings<DescriptorStore>(device);
  if (found == nullptr) {
    return NextOf(device).UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                               pDescriptorCopies);
  }
  if (!found->Converting()) {
    return found->next.UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                            pDescriptorCopies);
  }
  UpdateConverting(*found, device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount, pDescriptorCopies);
}

}  // namespace

// Until a layout converts on the device, an update goes down as it is: the lookup, one
// test and a tail call, with no frame (as AllocateDescriptorSets).
VKAPI_ATTR void VKAPI_CALL UpdateDescriptorSets(VkDevice device, uint32_t descriptorWriteCount,
                                                const VkWriteDescriptorSet* pDescriptorWrites,
                                                uint32_t descriptorCopyCount,
                                                const VkCopyDescriptorSet* pDescriptorCopies) {
  DescriptorStore* cached = FindBindingsIndexed<DescriptorStore>(device);
  if (cached == nullptr) {
    return UpdateDescriptorSetsUnindexed(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                         pDescriptorCopies);
  }
  if (!cached->Converting()) {
    return cached->next.UpdateDescriptorSets(device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                                             pDescriptorCopies);
  }
  return UpdateConverting(*cached, device, descriptorWriteCount, pDescriptorWrites, descriptorCopyCount,
                          pDescriptorCopies);
}

namespace {

// The leading writes into layer-owned sets (usually all of them): records written in
// place, without the native bookkeeping (nothing of such a set goes down). Returns how
// many writes it took; the rest, and the copies, take the general path (they come after
// these writes, as the spec orders them).
uint32_t WriteLeadingOwnedSets(DescriptorStore& b, ThreadLookups& lookups, uint32_t count,
                               const VkWriteDescriptorSet* writes) {
  uint32_t done = 0;
  VkDescriptorSet last_handle = VK_NULL_HANDLE;
  SetShadow* set = nullptr;
  for (; done < count; ++done) {
    const VkWriteDescriptorSet& w = writes[done];
    if (set == nullptr || w.dstSet != last_handle) {  // writes come in runs for one set
      if ((set = OwnedSet(w.dstSet)) == nullptr) break;
      last_handle = w.dstSet;
    }
    // (MirrorWrite: the same, without the call while the set has no full native set.)
    if (set->full == VK_NULL_HANDLE || !b.MirrorWrite(*set, w)) set->full_stale = true;
    ForEachRecord(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                  [&](uint32_t record, uint32_t k) { WriteRecord(b, lookups, *set, record, w.pBufferInfo[k]); });
  }
  return done;
}

// The general path of one update call. Native writes and copies are passed down together,
// in the application's order relative to each other (records do not interact with native
// descriptors). Nothing naming a layer-owned set goes down: such a set has no native
// binding, so a write or copy there that is not a record is invalid usage, dropped. Copies
// between converted and native bindings carry the descriptors the application wrote:
// records from a native set's kept descriptors, native writes from records (after the
// native call).
class ConvertingUpdate {
 public:
  ConvertingUpdate(DescriptorStore& b, ThreadLookups& lookups)
      : b_(b), lookups_(lookups), keep_native_(b.any_native_buffer_sets.load(std::memory_order_acquire)),
        translated_(b) {}

  // Each write's records written, and the native ones kept to go down.
  void Writes(uint32_t count, const VkWriteDescriptorSet* writes) {
    if (count > kInline) {
      writes_heap_.resize(count);
      writes_ = writes_heap_.data();
    }
    VkDescriptorSet last_handle = VK_NULL_HANDLE;
    SetShadow* last = nullptr;
    bool last_owned = false;
    for (uint32_t i = 0; i < count; ++i) {
      const VkWriteDescriptorSet& w = writes[i];
      // Writes usually come in runs for one set: look it up once per run.
      if (w.dstSet != last_handle || i == 0) {
        last_handle = w.dstSet;
        last = OwnedSet(w.dstSet);
        last_owned = last != nullptr;
        if (last == nullptr) last = b_.sets.Find(w.dstSet);
      }
      SetShadow* set = last;
      if (set != nullptr && !b_.MirrorWrite(*set, w)) set->full_stale = true;
      const bool converted =
          set != nullptr && ForEachRecord(*set->layout, w.dstBinding, w.dstArrayElement, w.descriptorCount,
                                          [&](uint32_t record, uint32_t k) {
                                            WriteRecord(b_, lookups_, *set, record, w.pBufferInfo[k]);
                                          });
      if (!converted && !last_owned) {
        writes_[native_writes_++] = w;
        if (keep_native_ && set == nullptr) KeepNativeWrite(b_, w);
      }
    }
  }

  // One copy: native to native goes down; into converted bindings, records from the
  // source's descriptors; from converted into native bindings, native writes after the call.
  void Copy(const VkCopyDescriptorSet& c) {
    SetShadow* src_owned = OwnedSet(c.srcSet);
    SetShadow* dst_owned = OwnedSet(c.dstSet);
    SetShadow* src = src_owned != nullptr ? src_owned : b_.sets.Find(c.srcSet);
    SetShadow* dst = dst_owned != nullptr ? dst_owned : b_.sets.Find(c.dstSet);
    // A destination with a full native set gets what the copy changes mirrored into it
    // (as writes do): converted bindings below, native ones after the copies went down.
    const bool mirror = dst != nullptr && dst->full != VK_NULL_HANDLE;
    const ConvertedBinding* src_binding = src != nullptr ? src->layout->Find(c.srcBinding) : nullptr;
    const bool dst_converted = dst != nullptr && dst->layout->Find(c.dstBinding) != nullptr;
    if (src_binding == nullptr && !dst_converted) {
      // Native to native (a layer-owned side has no native binding: invalid, dropped).
      if (src_owned == nullptr && dst_owned == nullptr) {
        copies_.push_back(c);
        if (keep_native_) KeepNativeCopy(b_, c);
      }
      if (mirror) native_mirrors_.push_back({dst, c});
      return;
    }
    // Collect the source descriptors, then write them (a copy within one set may overlap).
    constexpr uint32_t kInlineValues = 16;
    VkDescriptorBufferInfo values_inline[kInlineValues];
    std::vector<VkDescriptorBufferInfo> values_heap;
    VkDescriptorBufferInfo* values = values_inline;
    if (c.descriptorCount > kInlineValues) {
      values_heap.resize(c.descriptorCount);
      values = values_heap.data();
    }
    ReadSource(c, src, src_owned != nullptr, src_binding, values);
    if (dst_converted) {
      ForEachRecord(*dst->layout, c.dstBinding, c.dstArrayElement, c.descriptorCount,
                    [&](uint32_t record, uint32_t k) { WriteRecord(b_, lookups_, *dst, record, values[k]); });
      if (mirror && !b_.MirrorBufferDescriptors(*dst, c.dstBinding, c.dstArrayElement,
                                                dst->layout->Find(c.dstBinding)->type, values, c.descriptorCount)) {
        dst->full_stale = true;
      }
    } else if (dst_owned == nullptr) {
      translated_.ToNative(c, src_binding->type, values);
      if (mirror) native_mirrors_.push_back({dst, c});
    }
  }

  // What goes down, then the native writes translated from records, then the native
  // ranges copies changed mirrored into full native sets (now that the application's
  // sets hold them).
  void SendDown(VkDevice device) {
    if (native_writes_ != 0 || !copies_.empty()) {
      b_.next.UpdateDescriptorSets(device, native_writes_, writes_, static_cast<uint32_t>(copies_.size()),
                                   copies_.empty() ? nullptr : copies_.data());
    }
    translated_.Flush(device);
    for (const NativeMirror& m : native_mirrors_) {
      if (!b_.MirrorNativeRange(*m.dst, m.copy.dstSet, m.copy.dstBinding, m.copy.dstArrayElement,
                                m.copy.descriptorCount)) {
        m.dst->full_stale = true;
      }
    }
  }

 private:
  // A copy's source descriptors into values[0..descriptorCount): a converted binding's
  // CPU copies, else a native set's kept buffer descriptors (null where unknown: logged).
  void ReadSource(const VkCopyDescriptorSet& c, const SetShadow* src, bool src_owned,
                  const ConvertedBinding* src_binding, VkDescriptorBufferInfo* values) {
    std::fill(values, values + c.descriptorCount, VkDescriptorBufferInfo{});
    if (src_binding != nullptr) {
      ForEachRecord(*src->layout, c.srcBinding, c.srcArrayElement, c.descriptorCount, [&](uint32_t record, uint32_t k) {
        if (record < src->record_count) values[k] = src->descriptors[record];
      });
    } else if (!src_owned &&
               !ReadNativeDescriptors(b_, c.srcSet, c.srcBinding, c.srcArrayElement, c.descriptorCount, values)) {
      if (!b_.logged_unseen_copy.exchange(true, std::memory_order_relaxed)) {
        BINDERY_LOG(b_.device.log(), kWarn, "bindings-copy",
                    "a descriptor copy into converted bindings reads a native set whose buffer descriptors the layer "
                    "did not see (allocated before any layout converted): the copied descriptors read as null "
                    "(logged once)");
      }
    }
  }

  struct NativeMirror {
    SetShadow* dst;
    VkCopyDescriptorSet copy;
  };
  static constexpr uint32_t kInline = 16;
  DescriptorStore& b_;
  ThreadLookups& lookups_;
  const bool keep_native_;
  VkWriteDescriptorSet writes_inline_[kInline];
  std::vector<VkWriteDescriptorSet> writes_heap_;
  VkWriteDescriptorSet* writes_ = writes_inline_;
  uint32_t native_writes_ = 0;
  std::vector<VkCopyDescriptorSet> copies_;
  std::vector<NativeMirror> native_mirrors_;  // only for sets with a full native set (rare)
  CopyTranslator translated_;
};

void UpdateConverting(DescriptorStore& b, VkDevice device, uint32_t descriptorWriteCount,
                      const VkWriteDescriptorSet* pDescriptorWrites, uint32_t descriptorCopyCount,
                      const VkCopyDescriptorSet* pDescriptorCopies) {
  ThreadLookups& lookups = Lookups();
  const uint32_t done = WriteLeadingOwnedSets(b, lookups, descriptorWriteCount, pDescriptorWrites);
  if (done == descriptorWriteCount && descriptorCopyCount == 0) return;
  ConvertingUpdate update(b, lookups);
  update.Writes(descriptorWriteCount - done, pDescriptorWrites + done);
  for (uint32_t i = 0; i < descriptorCopyCount; ++i) update.Copy(pDescriptorCopies[i]);
  update.SendDown(device);
}

}  // namespace

}  // namespace bindery::bindings
