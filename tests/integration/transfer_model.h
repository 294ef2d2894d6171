// Shared by the transfer_*_test.cpp files: a CPU model of buffer bytes for fill, update
// and copy (the semantics Bindery promises at any byte), canary patterns, byte-exact
// comparison, the layer configurations the tests run under, and the parser for the
// layer's device summary (so a test can tell which strategy really ran).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "integration/test_env.h"

#include <vulkan/vk_bindery.h>

namespace bindery::test::transfer {

// ---- CPU model ---------------------------------------------------------------------

// Canary bytes 0xE0..0xEF: none of them is a byte of the fill patterns the tests use.
inline uint8_t CanaryByte(uint64_t i) { return static_cast<uint8_t>(0xE0u | ((i * 7u + (i >> 4)) & 0x0Fu)); }
void WriteCanary(void* dst, uint64_t size);
std::vector<uint8_t> RandomBytes(uint64_t size, uint32_t seed);

// The bytes of one buffer as Bindery promises them.
class ByteModel {
 public:
  explicit ByteModel(uint64_t size);  // starts as the canary pattern (WriteCanary)
  uint64_t size() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // dst[offset + i] = byte (i % 4) of data, little-endian; VK_WHOLE_SIZE: to the end.
  void Fill(uint64_t offset, uint64_t size, uint32_t data);
  void Update(uint64_t offset, const void* data, uint64_t size);
  void Copy(const uint8_t* src, uint64_t src_offset, uint64_t dst_offset, uint64_t size);

 private:
  std::vector<uint8_t> bytes_;
};

// The start of most transfer tests: a destination holding the canary pattern with the
// model of its bytes, and a source holding random bytes the model copies from.
ByteModel CanaryModel(const HostBuffer& dst, uint64_t size);                           // writes the canary
std::vector<uint8_t> RandomContent(const HostBuffer& src, uint64_t size, uint32_t seed);  // writes and returns them

// Byte-exact comparison; `where(i)` names the case that byte i belongs to.
::testing::AssertionResult SameBytes(const void* got, const void* want, uint64_t size,
                                     const std::function<std::string(uint64_t)>& where = {});

// ---- configurations --------------------------------------------------------------

struct Config {
  const char* name;
  bool bindery;          // layer loaded
  const char* transfers;  // BINDERY_TRANSFERS
  const char* strategy;   // BINDERY_TRANSFER_STRATEGY
  // Only calls that are valid Vulkan without the layer may be recorded.
  bool NativeOnly() const { return !bindery || std::string(transfers) == "off"; }
  bool Is(const char* transfers_mode, const char* strategy_name) const {
    return bindery && std::string(transfers) == transfers_mode && std::string(strategy) == strategy_name;
  }
};

inline const Config kLayerOff{"LayerOff", false, "auto", "auto"};
inline const Config kTransfersOff{"TransfersOff", true, "off", "auto"};
inline const Config kForceNative{"ForceNative", true, "force", "native"};
inline const Config kForceCompute{"ForceCompute", true, "force", "compute"};
inline const Config kAuto{"Auto", true, "auto", "auto"};
// The default mode as NVIDIA's users get it: the policy table's NVIDIA row on this device.
inline const Config kAutoNvidiaPolicy{"AutoNvidiaPolicy", true, "auto", "nvidia"};

inline void PrintTo(const Config& config, std::ostream* os) { *os << config.name; }
inline std::string ConfigName(const ::testing::TestParamInfo<Config>& info) { return info.param.name; }

// What the layer says it did on a device ("BINDERY-summary" at device destruction).
struct Summary {
  bool found = false;     // a summary message was captured
  bool detailed = false;  // it has the "(kernels K, edge copies E)" part
  uint64_t polyfilled = 0, kernels = 0, edge_copies = 0, passed_through = 0;
  std::string text;
};
Summary ParseSummary(const std::vector<Message>& bindery_messages);

// A queue family to run on: the first family of each kind (graphics, compute-only,
// transfer-only) that the physical device has.
struct Family {
  uint32_t index;
  std::string kind;
  VkQueueFlags flags;
  bool HasCompute() const { return (flags & VK_QUEUE_COMPUTE_BIT) != 0; }
};
std::vector<Family> TransferFamilies();

// Orders transfers that overlap earlier ones (what an application records between them).
void TransferToTransferBarrier(VkCommandBuffer cb);
// vkCmdCopyBuffer2 of one region.
void CopyBuffer2(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, const VkBufferCopy& region);

// The start of a copy test: a source of random bytes and a destination holding the canary
// pattern (both from Rig::Buffer), and the model of the destination.
struct CopyBuffers {
  HostBuffer src, dst;
  std::vector<uint8_t> source;
  ByteModel model;
};

// A destination holding the canary pattern (from Rig::Buffer) and the model of its bytes.
struct CanaryBuffer {
  HostBuffer dst;
  ByteModel model;
};

// What a Rig may add to the harness beyond the configuration.
struct RigOptions {
  uint32_t queue_family = UINT32_MAX;
  std::vector<const char*> device_extensions;
  const void* device_pnext = nullptr;             // e.g. feature structs the test needs
  uint32_t api_version = VK_API_VERSION_1_3;      // the application's
  std::vector<std::string> layers_between;        // e.g. the spy layer, below Bindery
  std::vector<std::string> layers_below;          // below validation: a stand-in driver
  bool validation = true;                         // off only with a reason (see the callers)
  std::vector<std::pair<std::string, std::string>> env;  // extra settings, e.g. BINDERY_STAGING_LIMIT
  bool device_group = false;  // HarnessOptions::device_group
};

// The spy test layer between Bindery and validation (it records what Bindery sends down).
RigOptions WithSpy();

// One harness under a configuration: sets the environment, creates the instance and
// device (validation below the layer), and at Finish() destroys the device and returns
// the layer's summary.
class Rig {
 public:
  explicit Rig(const Config& config, uint32_t queue_family = UINT32_MAX,
               std::vector<const char*> device_extensions = {});
  Rig(const Config& config, const RigOptions& options);
  ~Rig();
  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;
  VkHarness& h() { return *harness_; }
  bool ok() const { return harness_->ok(); }
  const std::string& error() const { return harness_->error(); }
  bool compute_queue() const { return compute_queue_; }

  HostBuffer Buffer(uint64_t size, VkBufferUsageFlags extra_usage = 0);
  // Source and destination of `size` bytes each; the source's bytes come from `seed`.
  CopyBuffers Copy(uint64_t size, uint32_t seed);
  CanaryBuffer Canary(uint64_t size);
  VkCommandBuffer Allocate(VkCommandBufferLevel level = VK_COMMAND_BUFFER_LEVEL_PRIMARY);
  // Ends (if `end`), submits, waits idle; the command buffer stays allocated.
  VkResult Submit(VkCommandBuffer cb, bool end = true);
  // Transfer and compute writes -> host reads (on queues without compute, transfer only).
  void HostReadBarrier(VkCommandBuffer cb);
  // Transfer writes -> host reads only: what an application that recorded nothing but
  // transfers writes. The layer's kernels must chain into it on their own.
  static void TransferHostReadBarrier(VkCommandBuffer cb);

  // Destroys buffers created through Buffer(), then the device; parses the summary.
  Summary Finish();

 private:
  Rig(const Config& config, uint32_t api_version, const void* device_pnext,
      std::vector<const char*> device_extensions, uint32_t queue_family);
  Config config_;
  std::vector<std::unique_ptr<ScopedEnv>> env_;
  std::unique_ptr<VkHarness> harness_;
  std::vector<std::unique_ptr<HostBuffer>> buffers_;
  bool compute_queue_ = true;
};

// Expectations on the summary shared by the tests. `unaligned_recorded`: the test
// recorded calls only the layer makes valid (unaligned fill/update, big update), so the
// layer must have polyfilled something; `edges_expected`: under the native strategy
// those calls had edge bytes.
void ExpectStrategyRan(const Config& config, const Summary& summary, bool compute_queue, bool unaligned_recorded,
                       bool edges_expected);

// Two unaligned fills of `big` bytes, at offset 1 and at `region` + 3, in one command buffer,
// read back after a host-read barrier and compared byte for byte (canaries around them);
// validation must stay silent. Returns the device's summary (the rig is finished).
Summary FillTwoAtOffsets1And3(Rig& rig, uint64_t big, uint64_t region);

}  // namespace bindery::test::transfer
