#include "chassis/instance_stack.h"

#include <cstring>
#include <mutex>

#include <vulkan/vk_dispatch_table_helper.h>

namespace bindery {
namespace {

std::mutex g_build_mutex;
const InstanceState* g_build_instance = nullptr;
int g_build_above = -1;

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL ResolveForBuild(VkInstance, const char* name) {
  return ResolveInstanceFunction(*g_build_instance, g_build_above, name);
}

}  // namespace

PFN_vkVoidFunction ResolveInstanceFunction(const InstanceState& instance, int above, const char* name) {
  if (name == nullptr) return nullptr;
  for (std::size_t s = static_cast<std::size_t>(above + 1); s < instance.capabilities.count; ++s) {
    if (!instance.slots[s].active) continue;
    const HookTable table = instance.capabilities.items[s]->InstanceHooks();
    for (std::size_t i = 0; i < table.count; ++i) {
      const Hook& hook = table.hooks[i];
      if (std::strcmp(hook.name, name) != 0) continue;
      if (hook.provides || instance.next_get_instance_proc_addr(instance.handle, name) != nullptr) {
        return hook.function;
      }
    }
  }
  return instance.next_get_instance_proc_addr(instance.handle, name);
}

void BuildInstanceStack(InstanceState& instance) {
  layer_init_instance_dispatch_table(instance.handle, &instance.dispatch, instance.next_get_instance_proc_addr);
  std::lock_guard<std::mutex> lock(g_build_mutex);
  g_build_instance = &instance;
  for (std::size_t s = 0; s < instance.capabilities.count; ++s) {
    g_build_above = static_cast<int>(s);
    layer_init_instance_dispatch_table(instance.handle, &instance.slots[s].next, &ResolveForBuild);
  }
  g_build_above = -1;
  layer_init_instance_dispatch_table(instance.handle, &instance.top, &ResolveForBuild);
  g_build_instance = nullptr;
}

}  // namespace bindery
