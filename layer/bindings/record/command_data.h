// Per command buffer: the state of each bind point (bind_point_state.h), the ring its
// pushed records and ring roots live in, and the arena of kept pushes.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include <vulkan/vulkan.h>

#include "bindings/record/bind_point_state.h"
#include "bindings/record/root_ring.h"
#include "chassis/capability.h"

namespace bindery::bindings {

struct PipelineLayoutShadow;
struct TemplateShadow;

// The bytes of kept pushes (PushCopy contents) of one recording: appended to, read back,
// emptied at reset. Unlike a std::vector<uint8_t> it does not zero what it appends (every
// appended byte is written by the caller), and it keeps its capacity: nothing is
// allocated once a recording has grown it.
class PushArena {
 public:
  // `n` more bytes at the end (uninitialised), or nullptr where memory ran out.
  uint8_t* Append(size_t n) {
    if (n > capacity_ - size_) {
      if (!Grow(size_ + n)) return nullptr;
    }
    uint8_t* at = bytes_.get() + size_;
    size_ += n;
    return at;
  }
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  const uint8_t* data() const { return bytes_.get(); }
  uint8_t* data() { return bytes_.get(); }

 private:
  // Out of line: only the first recordings grow.
  [[gnu::noinline]] bool Grow(size_t needed) {
    size_t capacity = capacity_ != 0 ? capacity_ : 4096;
    while (capacity < needed) capacity *= 2;
    std::unique_ptr<uint8_t[]> bytes(new (std::nothrow) uint8_t[capacity]);
    if (bytes == nullptr) return false;
    if (size_ != 0) std::memcpy(bytes.get(), bytes_.get(), size_);
    bytes_ = std::move(bytes);
    capacity_ = capacity;
    return true;
  }
  std::unique_ptr<uint8_t[]> bytes_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Per command buffer: the state of each bind point (bind_point_state.h), the ring its
// pushed records and ring roots live in, and the arena of kept pushes. Fixed arrays and
// buffers that keep their capacity: nothing is allocated once a recording has grown them.
class BindingsCommandData : public CommandData {
 public:
  explicit BindingsCommandData(RootRingPool& pool) : pool_(pool) {}
  ~BindingsCommandData() override { ring.ReleaseAll(pool_); }
  static constexpr uint32_t kMaxSets = kTrackedSets;
  static constexpr uint32_t kMaxDynamicPerSet = bindings::kMaxDynamicPerSet;
  using BoundSet = bindings::BoundSet;
  using BindPoint = BindPointState;
  void OnReset() override {
    points[0] = BindPointState{};
    points[1] = BindPointState{};
    last_layout = VK_NULL_HANDLE;
    last_layout_shadow = nullptr;
    last_template = VK_NULL_HANDLE;
    last_template_shadow = nullptr;
    plain_layout = VK_NULL_HANDLE;
    Unsettle();
    push_arena.clear();  // keeps its capacity: no allocation once a recording has grown it
    ring.ReleaseAll(pool_);
    error = VK_SUCCESS;
  }
  VkResult RecordingError() const override { return error; }
  void Fail(VkResult result) {
    if (error == VK_SUCCESS) error = result;
  }
  // graphics 0, compute 1 (other bind points are not tracked)
  BindPointState* At(VkPipelineBindPoint bp) {
    const int i = BindPointIndex(bp);
    return i < 0 ? nullptr : &points[i];
  }
  BindPointState points[2];
  // Per bind point (graphics 0, compute 1): the device's Work() word with kSettled added,
  // written by the pre-draw step (PrepareDraw) when it found nothing to send and nothing
  // that would make it send something at the next draw or dispatch unless the recording
  // changes; 0 otherwise. A draw or dispatch finding the word equal to the device's
  // Work() | kSettled skips the step: one compare instead of its walk. Every hook that
  // records into this command buffer's bind points (binds, pushes, push descriptors,
  // pipeline binds) calls Unsettle first, and a new device-wide kind of work (a fallback
  // pipeline, a ring layout, a buffer without an address, a stale push) changes Work(),
  // so a settled word never outlives what it was settled on.
  static constexpr uint32_t kSettled = 1u << 31;
  uint32_t settled[2] = {0, 0};
  void Unsettle() {
    settled[0] = 0;
    settled[1] = 0;
  }
  // The pipeline layout of the last bind and its shadow, valid while the lookup
  // generation is this one (model/lookup_cache.h).
  VkPipelineLayout last_layout = VK_NULL_HANDLE;
  const PipelineLayoutShadow* last_layout_shadow = nullptr;
  uint64_t last_layout_generation = 0;
  // The same for the last converting update template pushed with (TemplateShadowOf).
  VkDescriptorUpdateTemplate last_template = VK_NULL_HANDLE;
  const TemplateShadow* last_template_shadow = nullptr;
  uint64_t last_template_generation = 0;
  // The last bind of one set without dynamic offsets that took a short path
  // (bind_hooks.cpp): a plain native set (BindNativeOnlySets; `plain_root` nullptr) or a
  // root-only set (BindRootOnlySets; `plain_root` the layout's shadow). A bind through the
  // same layout at the same set number, while the lookup generation is this one, takes
  // the same path again without looking the layout up or checking it (what decides the
  // path is the layout's, whatever set is bound).
  VkPipelineLayout plain_layout = VK_NULL_HANDLE;
  uint32_t plain_first_set = 0;
  uint32_t plain_native_set = 0;
  uint64_t plain_generation = 0;
  const PipelineLayoutShadow* plain_root = nullptr;
  RootRing ring;
  PushArena push_arena;  // PushCopy contents
  VkResult error = VK_SUCCESS;  // the first failure while recording (out of ring memory)
  RootRingPool& pool() { return pool_; }

 private:
  RootRingPool& pool_;
};

}  // namespace bindery::bindings
