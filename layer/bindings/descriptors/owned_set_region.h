// One process-wide reservation of address space that holds the slots of layer-owned
// descriptor sets (shadows.h, OwnedSetSlot): a VkDescriptorSet handle the layer
// hands out is the address of its slot in here.
//
// Why a reserved region: every function taking a VkDescriptorSet must tell a layer-owned
// handle from a native one without a lock, and a native handle may be any 64-bit value
// (a driver's pointer, a lower layer's counter). A value inside this region is never a
// pointer of anybody else, and the whole region is always readable (never-used pages read
// as zeros, released arenas go back to zeros), so the classifier may read the word at any
// address in it and compare it with the handle — no lookup, no lock, no fault.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace bindery::bindings {

namespace owned_region_detail {
extern std::atomic<uint64_t> g_base;  // 0 until the region is reserved
extern uint64_t g_bytes;              // written once, before g_base is published
}  // namespace owned_region_detail

// Is `address` inside the region? Lock-free; false before the first arena exists.
inline bool OwnedRegionContains(uint64_t address) {
  const uint64_t base = owned_region_detail::g_base.load(std::memory_order_acquire);
  return base != 0 && address - base < owned_region_detail::g_bytes;
}

// A writable, zeroed, page-aligned arena of at least `bytes` inside the region; nullptr
// when the region cannot be reserved or has no room left (the caller then keeps the
// native path). Cold path: one mutex.
void* AcquireOwnedArena(std::size_t bytes);
// Gives an arena back: its pages return to read-only zeros (stale handles then read as
// unknown). `bytes` as passed to AcquireOwnedArena.
void ReleaseOwnedArena(void* arena, std::size_t bytes);

}  // namespace bindery::bindings
