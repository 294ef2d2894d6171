// vkGetDescriptorSetLayoutSupport(KHR) (Vulkan 1.1 / VK_KHR_maintenance3) for layouts
// indirect bindings converts. Asked as it stands, the driver would answer for the
// application's whole layout (40 storage buffers on lavapipe: unsupported), though only
// the layout's native part ever reaches it: the answer is the native part's, with the
// variable-count binding's maximum taken from the shadow when that binding converts.
#include <vector>

#include "bindings/descriptors/descriptor_store.h"
#include "bindings/descriptors/descriptor_hooks.h"
#include "bindings/model/policy.h"
#include "core/chain_edit.h"
#include "core/pnext.h"

namespace bindery::bindings {
namespace {

void LayoutSupport(DescriptorStore& b, PFN_vkGetDescriptorSetLayoutSupport next, VkDevice device,
                   const VkDescriptorSetLayoutCreateInfo* pCreateInfo, VkDescriptorSetLayoutSupport* pSupport) {
  if (!ShouldConvertLayout(b, *pCreateInfo)) return next(device, pCreateInfo, pSupport);
  const NativeLayoutSplit split(b, *pCreateInfo, true);
  const SetLayoutShadow& shadow = split.shadow;
  if (!shadow.converts()) return next(device, pCreateInfo, pSupport);

  // An output struct of the application's chain (written as the driver would).
  auto* variable = const_cast<VkDescriptorSetVariableDescriptorCountLayoutSupport*>(
      FindInChain<VkDescriptorSetVariableDescriptorCountLayoutSupport>(
          pSupport->pNext, VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_LAYOUT_SUPPORT));
  // Records beyond the raised storage-buffer limit are more than the layer says it honours.
  if (shadow.record_count > kRaisedStorageBuffers) {
    pSupport->supported = VK_FALSE;
    if (variable != nullptr) variable->maxVariableDescriptorCount = 0;
    return;
  }
  // The native part, asked exactly as CreateDescriptorSetLayout creates it.
  next(device, &split.native_info(), pSupport);
  if (pSupport->supported != VK_TRUE || variable == nullptr) return;
  // The variable-count binding is the layout's highest: when it converts it is the last
  // converted binding, and any count up to its declared maximum is records in the block.
  if (shadow.converted.back().variable) variable->maxVariableDescriptorCount = shadow.converted.back().count;
}

// The hook of both names: `kNext` is its entry of the next layer's table.
template <auto kNext>
void LayoutSupportHook(VkDevice device, const VkDescriptorSetLayoutCreateInfo* pCreateInfo,
                       VkDescriptorSetLayoutSupport* pSupport) {
  DescriptorStore* b = FindBindings<DescriptorStore>(device);
  if (b == nullptr) return (NextOf(device).*kNext)(device, pCreateInfo, pSupport);
  LayoutSupport(*b, b->next.*kNext, device, pCreateInfo, pSupport);
}

}  // namespace

VKAPI_ATTR void VKAPI_CALL GetDescriptorSetLayoutSupport(VkDevice device,
                                                         const VkDescriptorSetLayoutCreateInfo* pCreateInfo,
                                                         VkDescriptorSetLayoutSupport* pSupport) {
  LayoutSupportHook<&VkLayerDispatchTable::GetDescriptorSetLayoutSupport>(device, pCreateInfo, pSupport);
}

VKAPI_ATTR void VKAPI_CALL GetDescriptorSetLayoutSupportKHR(VkDevice device,
                                                            const VkDescriptorSetLayoutCreateInfo* pCreateInfo,
                                                            VkDescriptorSetLayoutSupport* pSupport) {
  LayoutSupportHook<&VkLayerDispatchTable::GetDescriptorSetLayoutSupportKHR>(device, pCreateInfo, pSupport);
}

}  // namespace bindery::bindings
