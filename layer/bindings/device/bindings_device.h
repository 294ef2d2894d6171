// The indirect-bindings capability on one device: the stores of the folders below, composed
// (model/device_core.h has their order and docs/architecture.md, "The stores of
// bindings/", who owns what). Made and torn down by the capability
// (bindings_capability.cpp); the hooks find the store they need (FindBindings<Store>).
#pragma once

#include <vulkan/vulkan.h>

#include "bindings/model/bindings_plan.h"
#include "bindings/record/record_store.h"
#include "chassis/state.h"

namespace bindery::bindings {

class DeviceBindings final : public RecordStore {
 public:
  DeviceBindings(DeviceState& device, const BindingsPlan& plan, const VkLayerDispatchTable& next);
  ~DeviceBindings() override;
};

}  // namespace bindery::bindings
