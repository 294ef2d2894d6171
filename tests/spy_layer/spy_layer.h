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
