// The indirect-bindings capability on one device, the part every store shares: the
// device, the next layer's table, the plan, the record path's work flags, the counters and
// the gauges. Each store adds its own on top of it, one folder each (docs/architecture.md,
// "The stores of bindings/"):
//
//   DeviceCore (model/device_core.h)
//     <- DescriptorStore (descriptors/descriptor_store.h): set layouts, pipeline layouts,
//        pools, sets, templates, full native sets
//     <- PipelineStore (pipelines/pipeline_store.h): modules, the rewrite cache, fallback
//        pipelines, twins, ring and root pipelines, pipeline ranges
//     <- RecordStore (record/record_store.h): the root ring's pool
//     <- DeviceBindings (device/bindings_device.h): the capability's device
//
// A function takes the lowest store that has what it reads; a hook finds its store once
// (FindBindings<Store>) and passes it down. Written as a layer of its own
// (chassis/capability.h): it calls down through `next`; buffer addresses and sizes come
// from the chassis's shared trackers.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include <vulkan/vulkan.h>

#include "bindings/model/bindings_plan.h"
#include "bindings/model/memory_gauge.h"
#include "chassis/capability.h"
#include "chassis/state.h"
#include "chassis/trackers.h"
#include "core/dispatch_map.h"
#include "core/stats.h"

namespace bindery::bindings {

class DeviceCore : public CapabilityDevice {
 public:
  DeviceCore(DeviceState& device, const BindingsPlan& plan, const VkLayerDispatchTable& next);

  Trackers& trackers() const { return *device.trackers; }

  DeviceState& device;
  const VkLayerDispatchTable& next;
  const BindingsPlan& plan;
  uint32_t max_push_bytes = 0;
  uint32_t slot = 0;  // the capability's stack slot (its CommandData in CommandState)
  void* index_key = nullptr;  // its dispatch key in g_bindings_by_key (nullptr: not there)
  VkPhysicalDeviceMemoryProperties memory_properties{};
  uint32_t ring_alignment = 16;  // of ring root copies: minStorageBufferOffsetAlignment
  uint32_t max_bound_sets = 0;   // the driver's maxBoundDescriptorSets

  // Set once the first fallback pipeline exists: until then the draw/dispatch and
  // bind-pipeline hooks only pass the call on (no command-state lookup).
  std::atomic<bool> any_fallback{false};
  // Set once the first converting set layout exists: until then no set, pipeline layout or
  // pipeline of the device converts anything, so the allocate, update, template, bind and
  // push hooks pass every call straight on (auto on a driver where conversion does not
  // pay costs the application nothing until it goes beyond a limit).
  std::atomic<bool> any_converted{false};
  // Set once a buffer without a device address was created or written into a record:
  // from then on rewritten pipelines get native twins and draws check their sets
  // (pipelines/native_twin.h; NoteUnaddressable, descriptors/set_records.h).
  std::atomic<bool> any_unaddressable{false};
  bool Converting() const { return any_converted.load(std::memory_order_acquire); }
  // Set once the first pipeline layout with a root in the ring exists, or with slots moved
  // from where compatible layouts keep them (RootLayout::reshaped_sets): until then draws
  // and pipeline binds look neither for ring pipelines nor for root slots delivered
  // elsewhere (record/root_delivery.cpp).
  std::atomic<bool> any_ring{false};
  // Set once a root pushed at one bind point overwrote push-constant bytes the other had
  // (bind_point_state.h): until then draws and dispatches do not look for bytes to re-send.
  std::atomic<bool> any_stale_push{false};
  // Set once a pipeline layout needs the application's pushes widened: until then the
  // push-constant hook passes every push straight on (no layout lookup).
  std::atomic<bool> any_widened_pushes{false};

  // The flags above that the record path tests, gathered in one word (kWork* bits, set
  // right after the flag they stand for and never cleared), so that a hook with nothing
  // to do costs one load and one test: pass-through must cost nothing measurable.
  static constexpr uint32_t kWorkConverting = 1u << 0;      // any_converted
  static constexpr uint32_t kWorkFallback = 1u << 1;        // any_fallback
  static constexpr uint32_t kWorkTwins = 1u << 2;           // any_unaddressable
  static constexpr uint32_t kWorkRing = 1u << 3;            // any_ring
  static constexpr uint32_t kWorkStalePush = 1u << 4;       // any_stale_push
  static constexpr uint32_t kWorkWidenedPushes = 1u << 5;   // any_widened_pushes
  // What a pipeline bind must record (while layouts convert, at least the pipeline: a
  // draw re-sending push-constant bytes asks which ones it reads), and what a draw or
  // dispatch must look at.
  static constexpr uint32_t kWorkPipelineBind = kWorkConverting | kWorkFallback | kWorkTwins | kWorkRing;
  static constexpr uint32_t kWorkDraw = kWorkFallback | kWorkTwins | kWorkRing | kWorkStalePush;
  void MarkWork(uint32_t bits) { record_work.fetch_or(bits, std::memory_order_acq_rel); }
  // Push-constant bytes of a bind point were overwritten (a root over application bytes,
  // the reverse, or one bind point's root over the other's): draws look for them from now on.
  void MarkStalePush() {
    if (any_stale_push.load(std::memory_order_relaxed)) return;
    any_stale_push.store(true, std::memory_order_release);
    MarkWork(kWorkStalePush);
  }
  uint32_t Work() const { return record_work.load(std::memory_order_acquire); }
  std::atomic<uint32_t> record_work{0};

  // Why pipelines fell back, each distinct reason counted (printed with "fallen back" in
  // the device summary). Declared before `counters`, which registers it.
  ReasonTally fallback_reasons;
  struct Counters {
    Counter* rewritten;    // pipelines created from rewritten shaders
    Counter* fallen_back;  // pipelines that needed a conversion and could not have it
    Counter* sets;         // descriptor sets with argument blocks
    Counter* owned_sets;   // of them layer-owned (no native set)
    Counter* pushes;       // push-descriptor updates whose records went to the ring
    Counter* ring_bytes;   // bytes of ring blocks created (record/root_ring.h)
    Counter* block_bytes;  // argument-block device memory allocated for pools (bytes, all pools ever)
  } counters;
  // What the capability holds now and at its peak (memory_gauge.h): GPU memory (argument
  // blocks, ring blocks) and its largest host structures (records' CPU copies, owned-set
  // arenas).
  MemoryGauge gpu_bytes;
  MemoryGauge host_bytes;
  // Live ring-root layout copies (RingLayoutCopy), a count: the summary shows the peak.
  MemoryGauge ring_layout_copies;
};

// A record now names a buffer without an address (or a buffer without one was created):
// from now on twins are made and draws check their sets (logged once).
void NoteUnaddressable(DeviceCore& b, const char* what);
// Whether twins are made and looked for on this device (a buffer without an address exists).
inline bool NeedsTwins(const DeviceCore& b) { return b.any_unaddressable.load(std::memory_order_acquire); }

// The capability's stack slot (chassis/capability.h), noted when it plans an instance
// (bindings_capability.cpp), before any of its hooks can run: the lookups below find its
// state without naming the capability.
inline std::atomic<uint32_t> g_bindings_slot{0};

// The device of a command buffer, found on every recorded command: a process-wide table
// from the loader's dispatch key to the device's state, read without a lock and without
// thread-local storage (whose access in a dlopened library is a call into the dynamic
// linker: core/handle_index.h). An entry is added when the device is made and removed
// before it goes (a command buffer used after its device is destroyed is the
// application's error). A hit is a hash, two loads and one compare.
inline DispatchKeySlots<DeviceCore> g_bindings_by_key;

// The capability's state on `device`, nullptr where indirect bindings are off on it.
// Entry points are per device, but applications call one device's with another device's
// handles (the conformance suite's multi-device cases do; drivers tolerate it): such a
// call reaches these hooks on a device where the capability may have no state, and each
// hook then passes it unchanged to that device's next layer (NextOf). The registry's
// lookup, behind the table's (FindBindings).
DeviceCore* FindBindingsUnindexed(VkDevice device);
DeviceCore* FindBindingsUnindexed(VkCommandBuffer cb);
const VkLayerDispatchTable& NextOf(VkDevice device);
const VkLayerDispatchTable& NextOf(VkCommandBuffer cb);

// The state on `handle`'s device as the store `Store` (a DeviceCore's every store is one
// object: DeviceBindings), nullptr where it has none. The table answers unless another
// device took the slot of this one's key or the device has no indirect bindings; then the
// registry does. Every object made from a VkDevice shares its dispatch key, so the table
// answers for devices and command buffers alike.
// (A null VkDevice is passed on to the registry, which answers nullptr; command buffers
// are never null on the record path.)
template <typename Store, typename Handle>
inline Store* FindBindings(Handle handle) {
  if (std::is_same_v<Handle, VkCommandBuffer> || handle != VK_NULL_HANDLE) {
    if (DeviceCore* b = g_bindings_by_key.Find(DispatchKey(handle))) return static_cast<Store*>(b);
  }
  return static_cast<Store*>(FindBindingsUnindexed(handle));
}

// The table's answer alone (nullptr where it has none: the caller then takes its slow path,
// which asks FindBindings). A hook's pass-through makes no call before its tail call, so
// it saves no register and sets up no frame.
template <typename Store, typename Handle>
inline Store* FindBindingsIndexed(Handle handle) {
  return static_cast<Store*>(g_bindings_by_key.Find(DispatchKey(handle)));
}

// The frame of a hook that destroys an object: `forget` drops what the store `Store` kept
// of a non-null `handle`, then the call goes down unchanged through `kDestroy`, the hook's
// entry of the next layer's table (the device's own next layer where the capability has no
// state on it). Returns the store (nullptr where it has none) for steps after the call.
template <typename Store, auto kDestroy, typename Handle, typename Forget>
Store* ForgetAndDestroy(VkDevice device, Handle handle, const VkAllocationCallbacks* allocator, Forget&& forget) {
  Store* b = FindBindings<Store>(device);
  if (b == nullptr) {
    (NextOf(device).*kDestroy)(device, handle, allocator);
    return nullptr;
  }
  if (handle != VK_NULL_HANDLE) forget(*b);
  (b->next.*kDestroy)(device, handle, allocator);
  return b;
}

}  // namespace bindery::bindings
