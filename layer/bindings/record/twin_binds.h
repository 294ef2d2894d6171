// Native twins at a draw or dispatch (twin_binds.cpp).
#pragma once

#include <vulkan/vulkan.h>

#include "bindings/record/command_data.h"
#include "bindings/record/record_store.h"

namespace bindery::bindings {

// Before a draw or dispatch: switches to the twin (or back) as the bound sets require.
// False when the command must be skipped (no twin can run it).
bool ApplyTwin(RecordStore& b, VkCommandBuffer cb, VkPipelineBindPoint bind_point, BindingsCommandData& data,
               BindPointState& point);

}  // namespace bindery::bindings
