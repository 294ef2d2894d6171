// vkCmdBindPipeline and every draw and dispatch command: thin adapters
// onto the bind point's state (bind_point_state.h). Each draw or dispatch first runs the
// one pre-draw step, PrepareDraw, then goes down unchanged (or is skipped when no
// pipeline can run it: logged there). A command missing here reads whatever the converted
// binds left natively, so every draw and dispatch command the device may expose is listed;
// the extensions whose commands bind or draw in ways this cannot follow are hidden
// (bindings_capability.cpp).
#include "bindings/record/bind_point_state.h"
#include "bindings/record/nothing_to_prepare.h"
#include "bindings/record/record_store.h"
#include "bindings/record/record_hooks.h"
#include "bindings/pipelines/native_twin.h"

namespace bindery::bindings {

// A pipeline bind with something to note, or one the device table did not answer
// (`cached` nullptr: the registry's answer then); the device the hook found is handed down.
[[gnu::noinline]] static void BindPipelineSlow(VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipeline pipeline,
                                               RecordStore* cached) {
  RecordStore* found = cached != nullptr ? cached : FindBindings<RecordStore>(cb);
  if (found == nullptr) {
    NextOf(cb).CmdBindPipeline(cb, bindPoint, pipeline);
    return;
  }
  RecordStore& b = *found;
  b.next.CmdBindPipeline(cb, bindPoint, pipeline);
  if ((b.Work() & RecordStore::kWorkPipelineBind) != 0) NotePipelineBound(b, cb, bindPoint, pipeline);
}

VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bindPoint, VkPipeline pipeline) {
  // Until a pipeline runs natively, has a twin or reads a ring root, there is nothing to
  // note: one load and one test, then a tail call.
  RecordStore* cached = FindBindingsIndexed<RecordStore>(cb);
  if (cached != nullptr && (cached->Work() & RecordStore::kWorkPipelineBind) == 0) {
    return cached->next.CmdBindPipeline(cb, bindPoint, pipeline);
  }
  return BindPipelineSlow(cb, bindPoint, pipeline, cached);
}

// The pre-draw step at bind point `index` on a device where draws may have something to
// act on (`work`: its Work()): skipped, after the command-state lookup and one compare,
// while nothing was recorded at the command buffer's bind points since a step that left
// nothing to do (BindingsCommandData::settled).
static inline bool ReadyToDraw(RecordStore& b, VkCommandBuffer cb, int index, uint32_t work) {
  BindingsCommandData* data = CommandDataOf(b, cb);
  if (data == nullptr) return true;
  const uint32_t settled = work | BindingsCommandData::kSettled;
  if (data->settled[index] == settled) return true;
  // Usually nothing to do (the binds and pushes since the last draw left nothing behind):
  // the step's early returns tested here, without its calls, and the bind point settled.
  if (NothingToPrepare(settled, data->points[index], index)) {
    data->settled[index] = settled;
    return true;
  }
  return PrepareDraw(b, cb, *data, index, settled);
}

// Until the device has something a draw must act on (a pipeline running natively, a
// twin, a ring root, stale push bytes), a draw costs the device lookup, one load and one
// test before it goes down.
// (The device the hook found is handed to the slow path, last: a draw finds it once, and
// the pass-through shifts no argument register for it.)
#define BINDERY_UNPAREN(...) __VA_ARGS__
#define BINDERY_DRAW(name, point_index, params, args)                                         \
  [[gnu::noinline]] static void name##Slow(BINDERY_UNPAREN params, RecordStore* cached) {         \
    RecordStore* found = cached != nullptr ? cached : FindBindings<RecordStore>(cb);              \
    if (found == nullptr) return NextOf(cb).name args;                                            \
    RecordStore& b = *found;                                                                      \
    const uint32_t work = b.Work();                                                               \
    if ((work & RecordStore::kWorkDraw) != 0 && !ReadyToDraw(b, cb, point_index, work)) return;   \
    b.next.name args;                                                                             \
  }                                                                                               \
  VKAPI_ATTR void VKAPI_CALL name params {                                                        \
    RecordStore* cached = FindBindingsIndexed<RecordStore>(cb);                                   \
    if (cached != nullptr && (cached->Work() & RecordStore::kWorkDraw) == 0) {                    \
      return cached->next.name args;                                                              \
    }                                                                                             \
    return name##Slow(BINDERY_UNPAREN args, cached);                                              \
  }
#define BINDERY_GRAPHICS(name, params, args) BINDERY_DRAW(name, 0, params, args)
#define BINDERY_COMPUTE(name, params, args) BINDERY_DRAW(name, 1, params, args)

// Direct draws.
BINDERY_GRAPHICS(CmdDraw, (VkCommandBuffer cb, uint32_t a, uint32_t c, uint32_t d, uint32_t e), (cb, a, c, d, e))
BINDERY_GRAPHICS(CmdDrawIndexed, (VkCommandBuffer cb, uint32_t a, uint32_t c, uint32_t d, int32_t e, uint32_t f),
                 (cb, a, c, d, e, f))
BINDERY_GRAPHICS(CmdDrawMultiEXT,
                 (VkCommandBuffer cb, uint32_t count, const VkMultiDrawInfoEXT* info, uint32_t instances,
                  uint32_t first_instance, uint32_t stride),
                 (cb, count, info, instances, first_instance, stride))
BINDERY_GRAPHICS(CmdDrawMultiIndexedEXT,
                 (VkCommandBuffer cb, uint32_t count, const VkMultiDrawIndexedInfoEXT* info, uint32_t instances,
                  uint32_t first_instance, uint32_t stride, const int32_t* vertex_offset),
                 (cb, count, info, instances, first_instance, stride, vertex_offset))
// Indirect draws.
BINDERY_GRAPHICS(CmdDrawIndirect, (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c, uint32_t d, uint32_t e),
                 (cb, a, c, d, e))
BINDERY_GRAPHICS(CmdDrawIndexedIndirect, (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c, uint32_t d, uint32_t e),
                 (cb, a, c, d, e))
BINDERY_GRAPHICS(CmdDrawIndirectByteCountEXT,
                 (VkCommandBuffer cb, uint32_t instances, uint32_t first_instance, VkBuffer counter,
                  VkDeviceSize counter_offset, uint32_t offset, uint32_t stride),
                 (cb, instances, first_instance, counter, counter_offset, offset, stride))
// Indirect-count draws (core 1.2, KHR, AMD).
#define BINDERY_COUNT_DRAW(name)                                                                         \
  BINDERY_GRAPHICS(name,                                                                                 \
                   (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c, VkBuffer d, VkDeviceSize e, uint32_t f, \
                    uint32_t g),                                                                         \
                   (cb, a, c, d, e, f, g))
BINDERY_COUNT_DRAW(CmdDrawIndirectCount)
BINDERY_COUNT_DRAW(CmdDrawIndexedIndirectCount)
BINDERY_COUNT_DRAW(CmdDrawIndirectCountKHR)
BINDERY_COUNT_DRAW(CmdDrawIndexedIndirectCountKHR)
BINDERY_COUNT_DRAW(CmdDrawIndirectCountAMD)
BINDERY_COUNT_DRAW(CmdDrawIndexedIndirectCountAMD)
// Mesh-task draws (EXT and NV) and cluster-culling draws: graphics pipelines.
BINDERY_GRAPHICS(CmdDrawMeshTasksEXT, (VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z), (cb, x, y, z))
BINDERY_GRAPHICS(CmdDrawMeshTasksIndirectEXT, (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c, uint32_t d, uint32_t e),
                 (cb, a, c, d, e))
BINDERY_COUNT_DRAW(CmdDrawMeshTasksIndirectCountEXT)
BINDERY_GRAPHICS(CmdDrawMeshTasksNV, (VkCommandBuffer cb, uint32_t count, uint32_t first), (cb, count, first))
BINDERY_GRAPHICS(CmdDrawMeshTasksIndirectNV, (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c, uint32_t d, uint32_t e),
                 (cb, a, c, d, e))
BINDERY_COUNT_DRAW(CmdDrawMeshTasksIndirectCountNV)
BINDERY_GRAPHICS(CmdDrawClusterHUAWEI, (VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z), (cb, x, y, z))
BINDERY_GRAPHICS(CmdDrawClusterIndirectHUAWEI, (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c), (cb, a, c))
#undef BINDERY_COUNT_DRAW
// Dispatches.
BINDERY_COMPUTE(CmdDispatch, (VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z), (cb, x, y, z))
BINDERY_COMPUTE(CmdDispatchBase,
                (VkCommandBuffer cb, uint32_t a, uint32_t c, uint32_t d, uint32_t x, uint32_t y, uint32_t z),
                (cb, a, c, d, x, y, z))
BINDERY_COMPUTE(CmdDispatchBaseKHR,
                (VkCommandBuffer cb, uint32_t a, uint32_t c, uint32_t d, uint32_t x, uint32_t y, uint32_t z),
                (cb, a, c, d, x, y, z))
BINDERY_COMPUTE(CmdDispatchIndirect, (VkCommandBuffer cb, VkBuffer a, VkDeviceSize c), (cb, a, c))
#undef BINDERY_COMPUTE
#undef BINDERY_GRAPHICS
#undef BINDERY_DRAW
#undef BINDERY_UNPAREN

}  // namespace bindery::bindings
