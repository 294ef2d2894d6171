// Identity of the layer as the loader and applications see it.
#pragma once

#include <vulkan/vulkan.h>

namespace bindery {

inline constexpr const char kLayerName[] = "VK_LAYER_bindery";
inline constexpr const char kLayerDescription[] =
    "Bindery: indirect bindings, transfers at any byte, timeline emulation";
inline constexpr uint32_t kLayerSpecVersion = VK_HEADER_VERSION_COMPLETE;
inline constexpr uint32_t kLayerImplementationVersion = 1;

}  // namespace bindery
