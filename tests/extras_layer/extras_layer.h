// Interface of the test-only "newer driver" layer (tests read it through dlsym).
#pragma once

#include <cstdint>

// extern "C" uint32_t bindery_extras_created_with();
// How many of the offered extensions the last vkCreateDevice that reached this layer
// enabled (tests check that a refused one never got here).
using BinderyExtrasCreatedWithFn = uint32_t (*)();

// extern "C" uint32_t bindery_extras_last_layout_storage_buffers();
// Storage buffers in the last layout asked about through vkGetDescriptorSetLayoutSupport(KHR)
// (the layer answers those as a strict driver: unsupported above maxPerStageDescriptorStorageBuffers).
using BinderyExtrasLastLayoutStorageBuffersFn = uint32_t (*)();

inline constexpr const char* kExtrasLayerName = "VK_LAYER_bindery_test_extras";
// What the layer offers on top of the driver's extensions (the driver, lavapipe 22.3,
// has none of them).
inline constexpr const char* kExtrasOffered[] = {"VK_KHR_maintenance6",         "VK_EXT_descriptor_buffer",
                                                 "VK_EXT_shader_object",        "VK_VALVE_descriptor_set_host_mapping",
                                                 "VK_KHR_ray_tracing_pipeline", "VK_NV_ray_tracing",
                                                 "VK_EXT_mesh_shader",          "VK_NV_mesh_shader"};
