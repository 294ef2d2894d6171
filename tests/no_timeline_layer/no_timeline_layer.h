// Interface of the test-only no-timeline layer (tests read it through dlsym).
#pragma once

#include <cstddef>
#include <cstdint>

#include <vulkan/vulkan.h>

// extern "C" size_t bindery_no_timeline_violations(char* last, size_t size);
// Returns how many timeline structs/values/calls reached the layer; copies the last one's
// description into `last`.
using BinderyNoTimelineViolationsFn = size_t (*)(char* last, size_t size);
// extern "C" void bindery_no_timeline_reset();  (also ends an injected device loss)
using BinderyNoTimelineResetFn = void (*)();
// extern "C" void bindery_no_timeline_lose_device(int lost);
// While `lost` is non-zero, every vkQueueSubmit / vkQueueSubmit2 / vkQueueBindSparse returns VK_ERROR_DEVICE_LOST
// without reaching the driver (device-loss tests of the layer above).
using BinderyNoTimelineLoseDeviceFn = void (*)(int lost);

// extern "C" void bindery_no_timeline_semaphore_only_sparse(int on);
// While on, a vkQueueBindSparse that binds nothing reaches the driver as the vkQueueSubmit
// with the same semaphores and fence (a stand-in for drivers without sparse binding, such
// as lavapipe); one that binds something is a violation. Reset turns it off.
using BinderyNoTimelineSemaphoreOnlySparseFn = void (*)(int on);
// extern "C" uint32_t bindery_no_timeline_bind_sparse_calls();  vkQueueBindSparse calls seen since the reset.
using BinderyNoTimelineBindSparseCallsFn = uint32_t (*)();
// extern "C" uint32_t bindery_no_timeline_present_regions(VkRectLayerKHR* last);
// Presents seen with VkPresentRegionsKHR since the reset; `last` gets the first rectangle of
// the last one.
using BinderyNoTimelinePresentRegionsFn = uint32_t (*)(VkRectLayerKHR* last);

// extern "C" uint32_t bindery_no_timeline_submit_structs(int type);
// Submit batches (vkQueueSubmit, vkQueueSubmit2) seen since the reset whose pNext chain held
// a struct of VkStructureType `type`.
using BinderyNoTimelineSubmitStructsFn = uint32_t (*)(int type);

// extern "C" uint32_t bindery_no_timeline_wait_for_fences_calls();  since the reset.
using BinderyNoTimelineWaitForFencesCallsFn = uint32_t (*)();

// Holds: kinds 1 = vkCreateFence, 2 = vkQueueSubmit / vkQueueSubmit2.
// extern "C" void bindery_no_timeline_hold(int kinds);     the next call of each kind blocks
// extern "C" int bindery_no_timeline_holding();            kinds blocked right now
// extern "C" void bindery_no_timeline_let_go(int kinds);   blocked calls go on (and disarms)
inline constexpr int kHoldCreateFence = 1;
inline constexpr int kHoldQueueSubmit = 2;
using BinderyNoTimelineHoldFn = void (*)(int kinds);
using BinderyNoTimelineHoldingFn = int (*)();

// extern "C" void bindery_no_timeline_fences_unsignalled(int on);
// While on, vkGetFenceStatus answers VK_NOT_READY without asking the driver.
using BinderyNoTimelineFencesUnsignalledFn = void (*)(int on);

// Environment read at vkCreateInstance: BINDERY_TEST_SHARED_QUEUES=N offers N queues per
// family (past the driver's own, stand-ins backed by its queues); with
// BINDERY_TEST_KEEP_TIMELINES=1 the layer hides nothing (shared queues only).

inline constexpr const char* kNoTimelineLayerName = "VK_LAYER_bindery_test_no_timeline";
