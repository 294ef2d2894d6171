// Where argument memory (pool record blocks, the root ring) lives (bindings/model/
// argument_memory.h): device-local host-visible memory from a resizable-BAR heap, so every
// dispatch of a rewritten shader reads its records at device speed; system memory when the
// host-visible device-local heap is the small BAR window; never protected memory.
#include <gtest/gtest.h>

#include "bindings/model/argument_memory.h"

namespace bindery::bindings {
namespace {

constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;

// An NVIDIA-like device: 0 device-local, 1 host (system memory), 2 host-visible device-local
// in heap 0 (`resizable_bar`: all of VRAM) or heap 2 (the 256 MiB window).
VkPhysicalDeviceMemoryProperties Device(bool resizable_bar) {
  VkPhysicalDeviceMemoryProperties p{};
  p.memoryHeapCount = 3;
  p.memoryHeaps[0] = {80ull << 30, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
  p.memoryHeaps[1] = {128ull << 30, 0};
  p.memoryHeaps[2] = {256ull << 20, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
  p.memoryTypeCount = 3;
  p.memoryTypes[0] = {kLocal, 0};
  p.memoryTypes[1] = {kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 1};
  p.memoryTypes[2] = {kLocal | kHost, resizable_bar ? 0u : 2u};
  return p;
}

TEST(BindingsArgumentMemory, DeviceLocalWithResizableBar) {
  EXPECT_EQ(ChooseArgumentMemoryType(Device(true), 0x7), 2u);
}

TEST(BindingsArgumentMemory, SystemMemoryBesideASmallBarWindow) {
  EXPECT_EQ(ChooseArgumentMemoryType(Device(false), 0x7), 1u);
}

TEST(BindingsArgumentMemory, OnlyAllowedHostVisibleTypes) {
  EXPECT_EQ(ChooseArgumentMemoryType(Device(true), 0x3), 1u);   // the BAR type not allowed
  EXPECT_EQ(ChooseArgumentMemoryType(Device(true), 0x1), UINT32_MAX);  // nothing host-visible
  VkPhysicalDeviceMemoryProperties p = Device(true);
  p.memoryTypes[2].propertyFlags |= VK_MEMORY_PROPERTY_PROTECTED_BIT;
  EXPECT_EQ(ChooseArgumentMemoryType(p, 0x7), 1u);
}

TEST(BindingsArgumentMemory, AUnifiedMemoryDeviceUsesItsOneType) {
  VkPhysicalDeviceMemoryProperties p{};
  p.memoryHeapCount = 1;
  p.memoryHeaps[0] = {8ull << 30, VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
  p.memoryTypeCount = 1;
  p.memoryTypes[0] = {kLocal | kHost | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0};
  EXPECT_EQ(ChooseArgumentMemoryType(p, 0x1), 0u);
}

}  // namespace
}  // namespace bindery::bindings
