// Interface of the test-only no-timeline layer (tests read it through dlsym).
#pragma once

#include <cstddef>

// extern "C" size_t bindery_no_timeline_violations(char* last, size_t size);
// Returns how many timeline structs/values/calls reached the layer; copies the last one's
// description into `last`.
using BinderyNoTimelineViolationsFn = size_t (*)(char* last, size_t size);
// extern "C" void bindery_no_timeline_reset();  (also ends an injected device loss)
using BinderyNoTimelineResetFn = void (*)();
// extern "C" void bindery_no_timeline_lose_device(int lost);
// While `lost` is non-zero, every vkQueueSubmit / vkQueueSubmit2 returns VK_ERROR_DEVICE_LOST
// without reaching the driver (device-loss tests of the layer above).
using BinderyNoTimelineLoseDeviceFn = void (*)(int lost);

inline constexpr const char* kNoTimelineLayerName = "VK_LAYER_bindery_test_no_timeline";
