// Which of the application's queries a dispatch recorded by the layer could change.
//
// A capability that records its own compute work inside the application's command buffer
// (the transfer kernels, a small-write flush) must not do so while such a query is active:
// the query would count the layer's dispatch, and a valid program would read another result
// than without the layer. The answer per query type, from the Vulkan spec (the table with
// its reasons is in docs/transfers.md, "What a kernel could change"):
//
// - PIPELINE_STATISTICS counts dispatches where its pool has COMPUTE_SHADER_INVOCATIONS
//   ("incremented every time the compute shader is invoked"); every other statistic counts
//   work of the graphics stages (input assembly, vertex, geometry, tessellation, clipping,
//   fragment, task, mesh, cluster culling), which a dispatch never runs. A statistic bit
//   newer than the layer's headers is taken as counting.
// - PERFORMANCE_QUERY_KHR and PERFORMANCE_QUERY_INTEL count whatever their counters
//   measure (cycles, shader invocations, memory traffic): taken as counting.
// - OCCLUSION (samples of draws), TRANSFORM_FEEDBACK_STREAM, PRIMITIVES_GENERATED and
//   MESH_PRIMITIVES_GENERATED (primitives of draws) do not see a dispatch. TIMESTAMP and the
//   acceleration-structure and micromap property queries are written by one command, not
//   counted over a range. Video result-status and encode-feedback queries are active only
//   inside a video coding scope, where neither transfers nor dispatches may be recorded.
// - A query type newer than the layer's headers is taken as counting.
//
// A secondary command buffer may run inside a primary's pipeline-statistics query only if it
// was begun with at least the query's statistics in
// VkCommandBufferInheritanceInfo::pipelineStatistics (VUID-vkCmdExecuteCommands-commandBuffer-00104),
// and no other query type that counts may be active across vkCmdExecuteCommands
// (VUID-vkCmdExecuteCommands-commandBuffer-07594): the inherited statistics say all.
#pragma once

#include <vulkan/vulkan.h>

namespace bindery {

// Whether a query of a pool created with this type (and, for pipeline statistics, these
// statistics) can count a dispatch recorded while it is active.
bool QueryCountsDispatches(VkQueryType type, VkQueryPipelineStatisticFlags statistics);

// Whether a secondary command buffer begun with these inherited pipeline statistics may run
// inside a query that counts dispatches.
bool InheritedStatisticsCountDispatches(VkQueryPipelineStatisticFlags statistics);

}  // namespace bindery
