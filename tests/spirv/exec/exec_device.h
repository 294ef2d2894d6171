// The device the execution harness runs corpus shaders on: lavapipe through
// tests/support/vk_harness with VK_LAYER_KHRONOS_validation (synchronization validation on)
// and no Bindery layer — the harness tests the SPIR-V library, not the layer. It enables
// buffer device address and whatever of the corpus's optional features the driver has.
#pragma once

#include <memory>
#include <string>

#include <vulkan/vulkan.h>

#include "corpus_entry.h"
#include "support/vk_harness.h"

namespace bindery::spirv_exec {

struct DeviceFeatures {
  bool int64 = false;
  bool int64atomics = false;
  bool int8 = false;
  bool int16 = false;
  bool float16 = false;
  bool vmm = false;
  bool nonuniform = false;
  bool runtimearray = false;
  bool floatatomics = false;
  bool scalar = false;
  bool variable_pointers = false;
  bool graphics_stores = false;
  bool dynamic_rendering = false;
};

struct DeviceBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;
};

class ExecDevice {
 public:
  // with_int64 false: shaderInt64 (and 64-bit atomics) stay disabled, so a module that
  // still needs the Int64 capability is a validation error.
  explicit ExecDevice(bool with_int64);
  ~ExecDevice();
  ExecDevice(const ExecDevice&) = delete;
  ExecDevice& operator=(const ExecDevice&) = delete;

  bool ok() const { return error_.empty() && harness_ && harness_->ok(); }
  std::string error() const { return !error_.empty() ? error_ : harness_ ? harness_->error() : "no harness"; }
  test::VkHarness& harness() { return *harness_; }
  VkDevice device() const { return harness_->device(); }
  const DeviceFeatures& features() const { return enabled_; }

  // The first feature `entry` requires that this device does not have ("" if none).
  std::string Missing(const CorpusEntry& entry) const;

  // Host-visible, coherent, mapped, with a device address.
  DeviceBuffer CreateBuffer(VkDeviceSize size);
  void Destroy(DeviceBuffer& buffer);

  // Messages from the validation layer since the last call (warnings and errors).
  std::string TakeValidationProblems();

 private:
  std::string error_;
  DeviceFeatures enabled_;
  std::unique_ptr<test::VkHarness> harness_;
  size_t seen_messages_ = 0;
};

// One device of each kind per process (created on first use; lavapipe device creation
// with validation costs tens of milliseconds, the corpus runs hundreds of cases).
ExecDevice& SharedDevice(bool with_int64);

}  // namespace bindery::spirv_exec
