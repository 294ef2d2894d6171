// The spy layer (tests/spy_layer) from the test process: what reached the layer below
// Bindery. The spy must be loaded (RigOptions::layers_between).
#pragma once

#include <dlfcn.h>

#include <vector>

#include <gtest/gtest.h>

#include "spy_layer/spy_layer.h"

namespace bindery::test {

inline void* SpyLibrary() {
  void* spy = dlopen(BINDERY_SPY_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(spy, nullptr) << "spy layer not loaded";
  if (spy != nullptr) dlclose(spy);  // NOLOAD took a reference; the instance holds another
  return spy;
}

inline std::vector<SpyEvent> SpyEvents() {
  void* spy = SpyLibrary();
  if (spy == nullptr) return {};
  auto fn = reinterpret_cast<BinderySpyEventsFn>(dlsym(spy, "bindery_spy_events"));
  std::vector<SpyEvent> out(fn(nullptr, 0));
  out.resize(fn(out.data(), out.size()));
  return out;
}

inline void SpyClearEvents() {
  if (void* spy = SpyLibrary()) reinterpret_cast<BinderySpyClearEventsFn>(dlsym(spy, "bindery_spy_clear_events"))();
}

inline std::vector<SpyEvent> SpyEventsOf(uint32_t kind) {
  std::vector<SpyEvent> out;
  for (const SpyEvent& e : SpyEvents()) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

inline constexpr const char* kSpyLayerName = "VK_LAYER_bindery_test_spy";

}  // namespace bindery::test
