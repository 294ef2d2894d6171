// The workloads of bindery_probe, by group. Each runs its workloads a few times in this
// process (after a warm-up) and returns one value per row: the median of those samples.
// The spread across processes is what scripts/bench-compare reports.
#pragma once

#include <string>
#include <vector>

#include "probe_device.h"

namespace bindery::bench {

// record/*: CPU time (this thread's) to record 1000 commands, per command.
std::vector<ProbeResult> RunRecordProbes(ProbeDevice& d);
// record/* rows of commands no capability changes: binds of a native (uniform-buffer)
// set, draws.
std::vector<ProbeResult> RunPassThroughProbes(ProbeDevice& d);
// record/* rows of push descriptors (raw writes and a template) + dispatch, where the device
// has VK_KHR_push_descriptor (probe_push_descriptors.cpp).
std::vector<ProbeResult> RunPushDescriptorProbes(ProbeDevice& d);
// stream/*: an inference runtime's command stream, per submit: record, and submit to done.
std::vector<ProbeResult> RunStreamProbes(ProbeDevice& d);
// transfer/*: GPU time of small and large fills and updates.
std::vector<ProbeResult> RunTransferProbes(ProbeDevice& d);
// image/*: image copies, clears and blits (native or as the layer's kernels) and the image's
// other uses (sampling, rendering), at PROBE_IMAGE_SIZES edges (probe_images.cpp).
std::vector<ProbeResult> RunImageProbes(ProbeDevice& d);
// fill64/*: GPU time of the 64 MiB unaligned fill and of each piece the layer records for
// it, rebuilt by hand (probe_fill64.cpp).
std::vector<ProbeResult> RunFill64Probes(ProbeDevice& d);
// bytes/*: GPU time of native transfer commands that could write single bytes (the
// candidates for the byte edges of unaligned fills and updates), each behind a barrier.
std::vector<ProbeResult> RunByteWriteProbes(ProbeDevice& d);
// pipeline/*: CPU time of a compute pipeline's creation and destruction from the rewrite cache.
std::vector<ProbeResult> RunPipelineProbes(ProbeDevice& d);
// kernel/*: GPU time of inference kernels (matrix-vector products, element-wise add).
std::vector<ProbeResult> RunKernelProbes(ProbeDevice& d);
// ggml/*: GPU time of ggml's own kernels (its matrix-vector products and broadcast add, the
// SPIR-V its build generates) on a device made as ggml makes its own (probe_ggml.cpp).
// `description`: the device's name.
std::vector<ProbeResult> RunGgmlProbes(bool layer, std::string* description);
// timeline/*: wall time of timeline semaphore round trips, chained submits and a fan-out,
// on a device of their own (`layer`: Bindery on; BINDERY_TIMELINE from the environment).
// `description`: the device's name.
std::vector<ProbeResult> RunTimelineProbes(bool layer, std::string* description);

}  // namespace bindery::bench
