// The layer called from a program's teardown inside exit() (issue 34).
//
// GL programs tear down in an atexit handler registered before their first Vulkan call:
// piglit's window-system teardown makes zink destroy its pipelines and its device there,
// and a driver's threads may still create pipelines while exit() runs. By then exit() has
// destroyed the main thread's thread_local objects (first) and every static object made
// after that handler was registered (function-local statics made on first use). The layer
// kept its rewrite scratch in `static thread_local` vectors and the SPIR-V parser's opcode
// table in a function-local static: such a teardown used both after they were freed.
//
// Each case runs in a child process (a gtest death test, "threadsafe" style: the binary
// started again for this test alone) that registers its handler first, warms the layer up,
// starts a worker thread and calls exit(0). The handler then creates pipelines from modules
// the layer has not seen (so it parses and rewrites them) on the main thread and on the
// worker, destroys the device and checks the summary and validation. Before the fix the
// ASan build (scripts/test step 4) reports a heap-use-after-free here every time.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "compute_run.h"
#include "support/vk_harness.h"
#include "support/vk_objects.h"

namespace bindery::test {
namespace {

struct ExitRig {
  VkHarness* harness = nullptr;
  std::vector<uint32_t> code;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  std::thread worker;
  std::mutex mutex;
  std::condition_variable changed;
  bool go = false, done = false;
  std::string worker_error;
};
ExitRig* g_rig = nullptr;

[[noreturn]] void FailInExit(const std::string& why) {
  std::fprintf(stderr, "exit-time teardown FAILED: %s\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

// A compute pipeline (two storage buffers: converted under indirect_bindings=force) from a
// copy of ssbo_copy.comp whose generator word is `variant`: a module the layer has not
// seen, so it is parsed and rewritten rather than found in the rewrite cache.
std::string CreateOnePipeline(VkHarness& h, const ExitRig& rig, uint32_t variant) {
  std::vector<uint32_t> code = rig.code;
  code[2] = 0x42440000u + variant;
  const VkPipeline pipeline = CreateComputePipeline(h.device(), rig.layout, code.data(), code.size() * 4);
  if (pipeline == VK_NULL_HANDLE) return "pipeline " + std::to_string(variant) + " was not created";
  vkDestroyPipeline(h.device(), pipeline, nullptr);
  return "";
}

// The program's teardown: runs after exit() destroyed the main thread's thread_local
// objects and the statics made after it was registered.
void TeardownInsideExit() {
  ExitRig& rig = *g_rig;
  VkHarness& h = *rig.harness;
  std::string error = CreateOnePipeline(h, rig, 2);  // on the main thread
  if (!error.empty()) FailInExit("main thread: " + error);
  {
    std::unique_lock<std::mutex> lock(rig.mutex);
    rig.go = true;
    rig.changed.notify_all();
    rig.changed.wait(lock, [&] { return rig.done; });
  }
  rig.worker.join();
  if (!rig.worker_error.empty()) FailInExit("worker thread: " + rig.worker_error);
  vkDestroyPipelineLayout(h.device(), rig.layout, nullptr);
  vkDestroyDescriptorSetLayout(h.device(), rig.set_layout, nullptr);
  h.DestroyDevice();
  if (!h.ValidationProblems().empty()) FailInExit("validation: " + VkHarness::Format(h.ValidationProblems()));
  const std::string summary = h.BinderySummary();
  if (SummaryCounter(summary, "pipelines rewritten") != 3 || SummaryCounter(summary, "fallen back") != 0) {
    FailInExit("summary: " + summary);
  }
  delete rig.harness;
  delete g_rig;
  std::fprintf(stderr, "exit-time teardown: pipelines created on the main thread and a worker, device destroyed\n");
}

// Creates and destroys one pipeline on `h` (warms the driver stack and validation up).
std::string WarmUp(VkHarness& h, ExitRig& rig, uint32_t variant) {
  rig.set_layout = CreateSetLayout(h.device(), {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
                                                {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}});
  rig.layout = CreatePipelineLayout(h.device(), {rig.set_layout});
  if (rig.set_layout == VK_NULL_HANDLE || rig.layout == VK_NULL_HANDLE) return "layouts were not created";
  return CreateOnePipeline(h, rig, variant);
}

void RunThenExit() {
  g_rig = new ExitRig;
  ExitRig& rig = *g_rig;
  std::string error;
  rig.code = spirv_exec::LoadSpirv(std::string(BINDERY_SPIRV_CORPUS_DIR) + "/ssbo_copy.comp.spv", error);
  if (!error.empty()) FailInExit(error);
  {
    // The same work without Bindery first: validation and the driver make their own
    // lazily-built statics now, before the handler, so that exit() keeps them for it (the
    // validation layer 1.3.239 would otherwise fail this test, not the layer:
    // tests/smoke/lib/keep_layer_statics.c).
    HarnessOptions options;
    options.bindery = false;
    VkHarness native(options);
    if (!native.ok()) FailInExit(native.error());
    error = WarmUp(native, rig, 0);
    if (!error.empty()) FailInExit("without the layer: " + error);
    vkDestroyPipelineLayout(native.device(), rig.layout, nullptr);
    vkDestroyDescriptorSetLayout(native.device(), rig.set_layout, nullptr);
  }
  std::atexit(TeardownInsideExit);  // as piglit's window-system teardown is: before the layer's first use
  ::setenv("BINDERY_INDIRECT_BINDINGS", "force", 1);
  ::setenv("BINDERY_LOG_LEVEL", "info", 1);
  rig.harness = new VkHarness;
  if (!rig.harness->ok()) FailInExit(rig.harness->error());
  error = WarmUp(*rig.harness, rig, 1);
  if (!error.empty()) FailInExit(error);
  rig.worker = std::thread([&rig] {
    std::unique_lock<std::mutex> lock(rig.mutex);
    rig.changed.wait(lock, [&] { return rig.go; });
    lock.unlock();
    rig.worker_error = CreateOnePipeline(*rig.harness, rig, 3);  // after the layer's statics were destroyed
    lock.lock();
    rig.done = true;
    rig.changed.notify_all();
  });
  std::exit(0);
}

TEST(ExitTeardown, PipelinesCreatedAndDeviceDestroyedInsideExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunThenExit(), ::testing::ExitedWithCode(0),
              "exit-time teardown: pipelines created on the main thread and a worker, device destroyed");
}

}  // namespace
}  // namespace bindery::test
