// The layer-owned set classifier (descriptors/shadows.h, OwnedSet) must answer for any 64-bit
// value without faulting: a native handle can be anything. Values inside the owned-set
// region, misaligned, in released arenas or in never-used slots read as "not ours".
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "bindings/descriptors/shadows.h"
#include "bindings/descriptors/owned_set_region.h"

namespace bindery::bindings {
namespace {

VkDescriptorSet AsSet(uint64_t v) { return reinterpret_cast<VkDescriptorSet>(v); }

TEST(OwnedSetRegion, ArbitraryValuesAreNeverOwned) {
  void* arena = AcquireOwnedArena(64 * sizeof(OwnedSetSlot));
  ASSERT_NE(arena, nullptr);
  const uint64_t base = reinterpret_cast<uint64_t>(arena);
  std::mt19937_64 random(1234);
  for (int i = 0; i < 100000; ++i) EXPECT_EQ(OwnedSet(AsSet(random())), nullptr);
  // Inside the arena: every offset, aligned or not, of slots nobody handed out.
  for (uint64_t offset = 0; offset < 64 * sizeof(OwnedSetSlot); offset += 8) {
    EXPECT_EQ(OwnedSet(AsSet(base + offset)), nullptr) << offset;
  }
  // Beyond the arena, still inside the region (read-only zero pages).
  for (uint64_t offset = 1; offset < 64; ++offset) {
    EXPECT_EQ(OwnedSet(AsSet(base + offset * (uint64_t{1} << 24))), nullptr) << offset;
  }
  ReleaseOwnedArena(arena, 64 * sizeof(OwnedSetSlot));
}

TEST(OwnedSetRegion, LiveSlotIsOwnedUntilFreedAndItsArenaReleased) {
  const size_t bytes = 4 * sizeof(OwnedSetSlot);
  void* arena = AcquireOwnedArena(bytes);
  ASSERT_NE(arena, nullptr);
  auto* slot = new (static_cast<OwnedSetSlot*>(arena) + 2) OwnedSetSlot();
  const uint64_t handle = reinterpret_cast<uint64_t>(slot);
  slot->self.store(handle);
  EXPECT_EQ(OwnedSet(AsSet(handle)), &slot->shadow);
  EXPECT_EQ(OwnedSet(AsSet(handle + 8)), nullptr);  // misaligned
  EXPECT_EQ(OwnedSet(AsSet(handle - sizeof(OwnedSetSlot))), nullptr);  // the slot before: never used
  slot->self.store(0);  // freed
  EXPECT_EQ(OwnedSet(AsSet(handle)), nullptr);
  slot->self.store(handle);
  ReleaseOwnedArena(arena, bytes);  // back to zeros: a stale handle is not ours
  EXPECT_EQ(OwnedSet(AsSet(handle)), nullptr);
  // The same range comes back writable and zeroed.
  void* again = AcquireOwnedArena(bytes);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(OwnedSet(AsSet(handle)), nullptr);
  ReleaseOwnedArena(again, bytes);
}

TEST(OwnedSetRegion, TooLargeAnArenaIsRefused) {
  EXPECT_EQ(AcquireOwnedArena(uint64_t{1} << 40), nullptr);
  EXPECT_EQ(AcquireOwnedArena(0), nullptr);
}

}  // namespace
}  // namespace bindery::bindings
