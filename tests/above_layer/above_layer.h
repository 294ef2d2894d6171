// Interface of the test-only "above" layer, read by tests through dlsym.
#pragma once

#include <cstdint>

#include <vulkan/vulkan.h>

// What the layer saw and did since it was loaded (counters only grow).
struct AboveLayerRecord {
  PFN_vkGetInstanceProcAddr next_instance_gipa;  // link info at vkCreateInstance
  PFN_vkGetInstanceProcAddr next_device_gipa;    // link info at vkCreateDevice
  PFN_vkGetDeviceProcAddr next_device_gdpa;
  // What the next layer answered for GetInstanceProcAddr(NULL, name), asked the way the
  // loader documentation's sample layer (and MangoHud, vkBasalt) ask it.
  PFN_vkVoidFunction null_instance_create_instance;
  PFN_vkVoidFunction null_instance_create_device;
  uint32_t instances_created;
  uint32_t devices_created;
  uint32_t decoys_inserted;  // chain entries put before the link info (instance + device)
  uint32_t begin_command_buffer_calls;
  uint32_t fill_buffer_calls;
  uint32_t queue_submit_calls;
};

// extern "C" void bindery_above_record(AboveLayerRecord* out);
using BinderyAboveRecordFn = void (*)(AboveLayerRecord* out);

// extern "C" VkResult bindery_above_enumerate_device_extensions(const char* layer, uint32_t* count);
// Calls the next layer's vkEnumerateDeviceExtensionProperties(pd, layer, count, NULL) with
// the physical device of the last vkCreateDevice, as the layer sees it.
using BinderyAboveEnumerateFn = VkResult (*)(const char* layer, uint32_t* count);
