// One device per child process, reused for every program it runs: the features the
// generator may use (asked of the driver without any layer, so every configuration
// generates the same programs), and the device with Bindery (or not) and the Khronos
// validation layer below it, synchronization validation on (tests/support's harness).
#pragma once

#include <memory>
#include <string>

#include "interpreter.h"
#include "support/vk_harness.h"

namespace bindery::apifuzz {

bool QueryFeatures(Features* out, std::string* error);

// lavapipe 22.3 has none of the descriptor-indexing binding features. With
// BINDERY_APIFUZZ_DESCRIPTOR_INDEXING_STANDIN=1 (--descriptor-indexing-standin) a test layer
// below the validation layer offers them (tests/descriptor_indexing_layer), so that programs
// using them are generated and judged by the validation layer there too.
inline constexpr const char* kDescriptorIndexingStandInLayer = "VK_LAYER_bindery_test_descriptor_indexing";
bool DescriptorIndexingStandIn();
// --push-images (BINDERY_APIFUZZ_PUSH_IMAGES=1): Features::push_images where the device can.
bool PushImagesShape();
// --packed-copies (BINDERY_APIFUZZ_PACKED_COPIES=1): Features::packed_copies where the device can.
bool PackedCopiesShape();
// --many-sets (BINDERY_APIFUZZ_MANY_SETS=1): Features::many_sets.
bool ManySetsShape();

// lavapipe 22.3 lacks inheritedQueries (a secondary executed inside a query of its primary).
// With BINDERY_APIFUZZ_INHERITED_QUERIES_STANDIN=1 (--inherited-queries-standin) a test layer
// below the validation layer offers it (tests/inherited_queries_layer; lavapipe replays a
// secondary inside its primary, so the query counts it as on a driver with the feature).
inline constexpr const char* kInheritedQueriesStandInLayer = "VK_LAYER_bindery_test_inherited_queries";
bool InheritedQueriesStandIn();

// lavapipe has one queue. With BINDERY_APIFUZZ_SHARED_QUEUES=N (--shared-queues N) the test
// layer tests/no_timeline_layer, below the validation layer, offers N queues backed by the
// driver's one (timelines kept), so programs with several queues run there too; such
// programs never make a submission wait for a later one (Features::shared_queues).
inline constexpr const char* kSharedQueuesLayer = "VK_LAYER_bindery_test_no_timeline";
uint32_t SharedQueues();

struct Session {
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();
  std::unique_ptr<test::VkHarness> harness;
  Device device;
  std::string error;
  // The same with robustness2.nullDescriptor enabled, for programs with nullable bindings
  // (opened at their first one). The first device keeps the features it always had, so a
  // program without null descriptors runs on the device it ran on before they existed.
  std::unique_ptr<Session> null_descriptor;
};

// bindery: enable VK_LAYER_bindery by name (its settings come from BINDERY_* variables);
// null_descriptor: enable robustness2.nullDescriptor (where the device has it).
void OpenSession(bool bindery, Session* s, bool null_descriptor = false);

// Destroys the session's devices and instances (the null-descriptor one too), leaving it
// empty: after a lost device, before opening it again. Destroying a lost device is valid.
void CloseSession(Session* s);

// Devices this process holds open through sessions now (a child holds at most two: its
// device and the null-descriptor one), so that a leak shows instead of exhausting the driver.
int OpenDevices();

// Whether a program needs the device with null descriptors (a binding allows them).
bool UsesNullDescriptors(const Program& p);

}  // namespace bindery::apifuzz
