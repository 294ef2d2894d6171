// Runs a Program on a device: creates its objects, executes its steps in order, then reads
// every buffer and the color image back. Tolerant of programs the reducer has cut: a step
// or command naming something that no longer exists (a freed set, a dropped binding, a
// wait nothing will signal) is skipped rather than sent down, so a cut program can only be
// invalid in ways the validation layer reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "ir.h"

namespace bindery::apifuzz {

struct Device {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;  // of the queues' family
  // Every queue of that family the programs may use (queues[0] == queue).
  std::vector<VkQueue> queues;
  Features features;             // what programs are generated for (the same on every device)
  bool null_descriptor = false;  // robustness2.nullDescriptor enabled on this device
  // Testing the fuzzer: the first wait for idle reports VK_ERROR_DEVICE_LOST (after it waited).
  bool inject_loss = false;
};

struct RunResult {
  std::string error;            // setup failure (a generator or interpreter bug)
  std::vector<uint8_t> bytes;   // every buffer in order, then the image
  // What `bytes` holds, in order: "buffer 3 (out)", "color image", "image 1" and its size,
  // so that a difference can be named (the runner prints the first one it finds).
  struct Region {
    std::string name;
    size_t size = 0;
  };
  std::vector<Region> regions;
  uint32_t skipped = 0;         // steps/commands skipped as dangling
  // A submission or wait returned VK_ERROR_DEVICE_LOST (or a wait timed out): `lost` says
  // where. Nothing of the run is freed then (its command buffers may still be in use), and
  // the caller must not run anything else on the device.
  bool device_lost = false;
  std::string lost;
};

RunResult Execute(const Device& d, const Program& p);

}  // namespace bindery::apifuzz
