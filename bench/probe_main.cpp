// bindery_probe: measures ONE configuration in this process (one instance, one device),
// so that configurations never share a process, a heap or a second device. Which
// configuration it is comes from the command line (--layer on|off) and the environment
// (BINDERY_* settings). scripts/bench-compare runs it for each configuration, interleaved
// and repeated, and reports medians and interquartile ranges.
//
//   bindery_probe --layer on|off [--groups record,stream,transfer,image,bytes,fill64,kernel,pipeline,ggml,timeline]
//                 [--rows SUBSTRING,...]   (record rows only: those whose names contain one)
//
// Output, one line each (tab-separated): "device <description>", then
// "result <row> <unit> <value>" per workload.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "probe_device.h"
#include "probe_workloads.h"

#ifndef BINDERY_EXPLICIT_MANIFEST_DIR
#define BINDERY_EXPLICIT_MANIFEST_DIR ""
#endif

namespace {

using namespace bindery::bench;

int Usage() {
  std::fprintf(stderr,
               "usage: bindery_probe --layer on|off [--groups record,stream,transfer,image,bytes,fill64,kernel,pipeline,ggml,"
               "timeline] "
               "[--rows SUBSTRING,...]\n");
  return 1;
}

// The layer-off device must see no Bindery at all; VK_ADD_LAYER_PATH defaults to the
// build tree's manifest.
void PrepareEnvironment() {
  for (const char* var : {"VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE", "ENABLE_BINDERY"}) unsetenv(var);
  const char* path = std::getenv("VK_ADD_LAYER_PATH");
  if ((path == nullptr || *path == '\0') && *BINDERY_EXPLICIT_MANIFEST_DIR != '\0') {
    setenv("VK_ADD_LAYER_PATH", BINDERY_EXPLICIT_MANIFEST_DIR, 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int layer = -1;
  std::set<std::string> groups = {"record", "stream", "transfer", "kernel"};
  bool rows_filtered = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--layer" && i + 1 < argc) {
      const std::string v = argv[++i];
      if (v != "on" && v != "off") return Usage();
      layer = v == "on" ? 1 : 0;
    } else if (a == "--groups" && i + 1 < argc) {
      groups.clear();
      std::stringstream list(argv[++i]);
      for (std::string g; std::getline(list, g, ',');) groups.insert(g);
    } else if (a == "--rows" && i + 1 < argc) {
      std::vector<std::string> rows;
      std::stringstream list(argv[++i]);
      for (std::string r; std::getline(list, r, ',');) rows.push_back(r);
      SetRowFilter(std::move(rows));
      rows_filtered = true;
    } else {
      return Usage();
    }
  }
  if (layer < 0) return Usage();
  PrepareEnvironment();
  // The timeline and ggml groups make devices of their own (the timeline feature; every
  // feature, as ggml does); the probe device is made only when another group needs it (no
  // second device otherwise).
  std::unique_ptr<ProbeDevice> probe;
  std::string description;
  bool printed_device = false;
  if (groups.size() > groups.count("timeline") + groups.count("ggml")) {
    probe = std::make_unique<ProbeDevice>(layer == 1);
    if (!probe->error().empty()) {
      std::fprintf(stderr, "bindery_probe: error: %s\n", probe->error().c_str());
      return 2;
    }
    std::printf("device\t%s\n", probe->Description().c_str());
    std::fflush(stdout);
    printed_device = true;
  }
  int failures = 0;
  auto print = [&](const char* group, const std::vector<ProbeResult>& results) {
    if (results.empty() && !rows_filtered) {
      std::fprintf(stderr, "bindery_probe: group %s measured nothing (setup failed?)\n", group);
      ++failures;
    }
    for (const ProbeResult& r : results) std::printf("result\t%s\t%s\t%.6g\n", r.row.c_str(), r.unit.c_str(), r.value);
    std::fflush(stdout);
  };
  if (probe != nullptr) {
    ProbeDevice& device = *probe;
    if (groups.count("record")) print("record", RunRecordProbes(device));
    if (groups.count("record")) print("record (pass-through)", RunPassThroughProbes(device));
    if (groups.count("record")) print("record (push descriptors)", RunPushDescriptorProbes(device));
    if (groups.count("stream")) print("stream", RunStreamProbes(device));
    if (groups.count("transfer")) print("transfer", RunTransferProbes(device));
    if (groups.count("image")) print("image", RunImageProbes(device));
    if (groups.count("bytes")) print("bytes", RunByteWriteProbes(device));
    if (groups.count("fill64")) print("fill64", RunFill64Probes(device));
    if (groups.count("kernel")) print("kernel", RunKernelProbes(device));
    if (groups.count("pipeline")) print("pipeline", RunPipelineProbes(device));
  }
  if (groups.count("ggml")) {
    probe.reset();  // one device at a time
    std::string ggml_device;
    const std::vector<ProbeResult> results = RunGgmlProbes(layer == 1, &ggml_device);
    // The first device line names the configuration's device (scripts/bench-compare).
    if (!ggml_device.empty() && !printed_device) std::printf("device\t%s\n", ggml_device.c_str());
    printed_device = printed_device || !ggml_device.empty();
    print("ggml", results);
  }
  if (groups.count("timeline")) {
    probe.reset();  // one device at a time
    const std::vector<ProbeResult> results = RunTimelineProbes(layer == 1, &description);
    if (!description.empty() && !printed_device) std::printf("device\t%s\n", description.c_str());
    print("timeline", results);
  }
  return failures == 0 ? 0 : 1;
}
