// Interface of the test spy layer, read by tests through dlsym.
#pragma once

#include <cstddef>
#include <cstdint>

struct SpyChainEntry {
  uint32_t stype;
  const void* address;  // only for identity: the struct may be gone after the call
  // For buffer-device-address and Vulkan 1.2 feature structs, as seen during the call
  // (-1 for other structs).
  int32_t buffer_device_address;
  int32_t timeline_semaphore;
};

enum { kSpyInstanceChain = 0, kSpyDeviceChain = 1 };

// extern "C" size_t bindery_spy_chain(int which, SpyChainEntry* out, size_t max);
using BinderySpyChainFn = size_t (*)(int which, SpyChainEntry* out, size_t max);

// ---- device calls as they arrive below Bindery ---------------------------------------

enum SpyEventKind : uint32_t {
  kSpyCreateBuffer = 1,               // handle: the buffer; usage: effective (usage2 if chained)
  kSpyDeviceBufferRequirements = 2,   // vkGetDeviceBufferMemoryRequirements(KHR); usage: effective
  kSpyGetBufferAddress = 3,           // vkGetBufferDeviceAddress(KHR/EXT); handle: the buffer
  kSpyAllocateMemory = 4,             // handle: the memory (0 if refused); flags: VkMemoryAllocateFlags
  kSpyBindBufferMemory = 5,           // handle: the buffer; other: the memory
  kSpyCmdCopyBuffer = 6,              // count: regions
  kSpyCmdCopyBuffer2 = 7,             // info/pnext/regions: the pointers received; count: regions
  kSpyFreeMemory = 8,                 // handle: the memory
  kSpyCmdPushConstants = 9,           // count: size; other: offset; handle: the layout
  kSpyCmdDispatchBase = 10,           // vkCmdDispatchBase(KHR); count: groupCountX
};

struct SpyEvent {
  uint32_t kind;
  uint32_t count;
  uint64_t handle;
  uint64_t other;
  uint64_t usage;         // buffer usage (64-bit: VkBufferUsageFlags2 where chained)
  uint32_t legacy_usage;  // VkBufferCreateInfo::usage
  uint32_t flags;         // kSpyCreateBuffer: 1 = usage2 chained, 2 = external memory; allocations: flags
  const void* info;
  const void* pnext;
  const void* regions;
};

// extern "C" size_t bindery_spy_events(SpyEvent* out, size_t max);  (returns the total)
using BinderySpyEventsFn = size_t (*)(SpyEvent* out, size_t max);
// extern "C" void bindery_spy_clear_events();
using BinderySpyClearEventsFn = void (*)();

// Structure types the spy reads that Debian's 1.3.239 headers may lack.
constexpr uint32_t kSpyBufferUsageFlags2CreateInfo = 1000470006u;  // VK_KHR_maintenance5
