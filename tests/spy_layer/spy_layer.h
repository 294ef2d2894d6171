// Interface of the test spy layer, read by tests through dlsym.
#pragma once

#include <cstddef>
#include <cstdint>

struct SpyChainEntry {
  uint32_t stype;
  const void* address;
};

enum { kSpyInstanceChain = 0, kSpyDeviceChain = 1 };

// extern "C" size_t bindery_spy_chain(int which, SpyChainEntry* out, size_t max);
using BinderySpyChainFn = size_t (*)(int which, SpyChainEntry* out, size_t max);
