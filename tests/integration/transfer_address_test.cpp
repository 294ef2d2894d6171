// The device-address usage and memory flag the layer adds for its kernels must never
// make a call invalid (docs/transfers.md), and transfers on buffers created with
// VkBufferUsageFlags2CreateInfoKHR or for external memory stay correct (part 6).
//
// The spy layer sits below Bindery (and above validation) and records what arrives
// there: each test checks the calls the driver receives, so it fails even where the
// validation layer is too old to know the structures involved.
//
// - ExternalMemoryBufferKeepsItsMemoryNeeds: a buffer for external memory reaches the driver
//   with the application's usage, or with the device-address usage added only where the
//   driver allows it for its handle types and its memory requirements stay exactly those of
//   the application's usage (another API or process creates its twin with that usage and
//   expects the same memory); its transfers are right either way.
// - DeviceBufferRequirementsSeeTheAddedUsage: vkGetDeviceBufferMemoryRequirements
//   (maintenance4, what VMA calls) must describe the buffer vkCreateBuffer makes.
// - ImportedHostMemoryTakesTheFlagWithItsBuffer: imported memory (VK_EXT_external_memory_host)
//   gets the device-address flag only where its handle type lets its external buffers take
//   the usage, and an external buffer with the usage is always bound to flagged memory
//   (never VUID-vkBindBufferMemory-bufferDeviceAddress-03339); the copy into it is right.
//   (In phase 1 this was RefusedDeviceAddressMemory, a spy-injected refusal of the flag that
//   the layer retried without it, leaving a buffer with the usage on memory without the
//   flag. The reshaped layer never retries; it adds the flag only where it is valid.)
// - Usage2BufferGetsAnAddressOnlyWithTheUsage (VK_KHR_maintenance5): with usage2 chained
//   the legacy usage field is ignored; the layer must not ask for the address of a buffer
//   whose effective usage lacks SHADER_DEVICE_ADDRESS.
//
// Kernels are forced on (lavapipe's own policy is native, which adds no usage at all).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "integration/newer_vulkan.h"
#include "integration/spy_access.h"
#include "integration/transfer_model.h"

namespace bindery::test::transfer {
namespace {

constexpr uint64_t kBytes = 256 << 10;

uint32_t HostMemoryType(VkPhysicalDevice physical, uint32_t type_bits) {
  VkPhysicalDeviceMemoryProperties props;
  vkGetPhysicalDeviceMemoryProperties(physical, &props);
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) return i;
  }
  return UINT32_MAX;
}

// A buffer made by hand (create info chain and allocation chain chosen by the test),
// bound and mapped.
struct ManualBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  VkResult result = VK_SUCCESS;
};

ManualBuffer MakeBuffer(VkHarness& h, const VkBufferCreateInfo& bci, const void* allocation_pnext = nullptr) {
  ManualBuffer b;
  b.result = vkCreateBuffer(h.device(), &bci, nullptr, &b.buffer);
  if (b.result != VK_SUCCESS) return b;
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(h.device(), b.buffer, &req);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = allocation_pnext;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = HostMemoryType(h.physical_device(), req.memoryTypeBits);
  b.result = vkAllocateMemory(h.device(), &mai, nullptr, &b.memory);
  if (b.result != VK_SUCCESS) return b;
  b.result = vkBindBufferMemory(h.device(), b.buffer, b.memory, 0);
  if (b.result != VK_SUCCESS) return b;
  b.result = vkMapMemory(h.device(), b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
  return b;
}

void Destroy(VkHarness& h, ManualBuffer& b) {
  if (b.buffer != VK_NULL_HANDLE) vkDestroyBuffer(h.device(), b.buffer, nullptr);
  if (b.memory != VK_NULL_HANDLE) vkFreeMemory(h.device(), b.memory, nullptr);
  b = {};
}

// The spy's record of the vkCreateBuffer that made `buffer`.
const SpyEvent* CreationOf(const std::vector<SpyEvent>& events, VkBuffer buffer) {
  for (const SpyEvent& e : events) {
    if (e.kind == kSpyCreateBuffer && e.handle == reinterpret_cast<uint64_t>(buffer)) return &e;
  }
  return nullptr;
}

// Every vkGetBufferDeviceAddress that reached the driver named a buffer created with the
// usage (VUID-VkBufferDeviceAddressInfo-buffer-02601), judged by the effective usage.
::testing::AssertionResult AddressesOnlyForAddressableBuffers(const std::vector<SpyEvent>& events) {
  for (const SpyEvent& e : events) {
    if (e.kind != kSpyGetBufferAddress) continue;
    const SpyEvent* created = CreationOf(events, reinterpret_cast<VkBuffer>(e.handle));
    if (created == nullptr) continue;  // created before the spy recorded (none in these tests)
    if ((created->usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) == 0) {
      return ::testing::AssertionFailure()
             << "vkGetBufferDeviceAddress reached the driver for a buffer whose effective usage 0x" << std::hex
             << created->usage << " lacks SHADER_DEVICE_ADDRESS (legacy usage field 0x" << created->legacy_usage
             << (created->flags & 1 ? ", ignored: usage2 chained" : "") << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// An unaligned copy from `src` (host data `source`) into `dst`, checked byte for byte.
void CopyAndCheck(Rig& rig, VkBuffer src, VkBuffer dst, void* dst_mapped, const std::vector<uint8_t>& source) {
  ByteModel model(kBytes);
  WriteCanary(dst_mapped, kBytes);
  VkCommandBuffer cb = rig.h().BeginCommands();
  const VkBufferCopy region{1, 3, kBytes - 8};
  vkCmdCopyBuffer(cb, src, dst, 1, &region);
  model.Copy(source.data(), region.srcOffset, region.dstOffset, region.size);
  rig.HostReadBarrier(cb);
  ASSERT_EQ(rig.h().SubmitAndWait(cb), VK_SUCCESS);
  EXPECT_TRUE(SameBytes(dst_mapped, model.data(), kBytes));
}

// The memory requirements of a buffer made with `bci` by the driver alone (no layer).
VkMemoryRequirements DriverRequirements(const VkBufferCreateInfo& bci) {
  VkHarness native({.bindery = false, .validation = false});
  VkMemoryRequirements req{};
  VkBuffer buffer = VK_NULL_HANDLE;
  if (native.ok() && vkCreateBuffer(native.device(), &bci, nullptr, &buffer) == VK_SUCCESS) {
    vkGetBufferMemoryRequirements(native.device(), buffer, &req);
    vkDestroyBuffer(native.device(), buffer, nullptr);
  }
  return req;
}

TEST(TransferAddress, ExternalMemoryBufferKeepsItsMemoryNeeds) {
  Rig rig(kForceCompute, WithSpy());
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  query.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  query.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(h.physical_device(), &query, &props);
  if ((props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) == 0) {
    GTEST_SKIP() << "the device cannot export opaque-fd buffer memory";
  }
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.pNext = &external;
  bci.size = kBytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  ManualBuffer dst = MakeBuffer(h, bci, &export_info);
  ASSERT_EQ(dst.result, VK_SUCCESS);
  HostBuffer src = rig.Buffer(kBytes);
  const std::vector<uint8_t> source = RandomContent(src, kBytes, 5);

  const std::vector<SpyEvent> events = SpyEvents();
  const SpyEvent* created = CreationOf(events, dst.buffer);
  ASSERT_NE(created, nullptr);
  const uint64_t with_address = bci.usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  EXPECT_TRUE(created->usage == bci.usage || created->usage == with_address)
      << "the driver got usage 0x" << std::hex << created->usage << " for a buffer of external memory created with 0x"
      << bci.usage;
  // Whatever usage went down, the memory it needs is the application's buffer's.
  VkMemoryRequirements seen{};
  vkGetBufferMemoryRequirements(h.device(), dst.buffer, &seen);
  const VkMemoryRequirements own = DriverRequirements(bci);
  EXPECT_EQ(seen.size, own.size);
  EXPECT_EQ(seen.alignment, own.alignment);
  EXPECT_EQ(seen.memoryTypeBits, own.memoryTypeBits);
  CopyAndCheck(rig, src.buffer, dst.buffer, dst.mapped, source);
  EXPECT_TRUE(AddressesOnlyForAddressableBuffers(SpyEvents()));
  Destroy(h, dst);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
}

TEST(TransferAddress, DeviceBufferRequirementsSeeTheAddedUsage) {
  Rig rig(kForceCompute, WithSpy());
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = kBytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  // What VMA does: requirements from the create info first, then the buffer.
  VkDeviceBufferMemoryRequirements query{VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS};
  query.pCreateInfo = &bci;
  VkMemoryRequirements2 from_info{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  vkGetDeviceBufferMemoryRequirements(h.device(), &query, &from_info);
  VkBuffer buffer = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(h.device(), &bci, nullptr, &buffer), VK_SUCCESS);
  VkMemoryRequirements from_buffer;
  vkGetBufferMemoryRequirements(h.device(), buffer, &from_buffer);
  EXPECT_EQ(from_info.memoryRequirements.size, from_buffer.size);
  EXPECT_EQ(from_info.memoryRequirements.alignment, from_buffer.alignment);
  EXPECT_EQ(from_info.memoryRequirements.memoryTypeBits, from_buffer.memoryTypeBits);

  const std::vector<SpyEvent> events = SpyEvents();
  const std::vector<SpyEvent> queries = SpyEventsOf(kSpyDeviceBufferRequirements);
  const SpyEvent* created = CreationOf(events, buffer);
  ASSERT_EQ(queries.size(), 1u) << "vkGetDeviceBufferMemoryRequirements did not reach the driver";
  ASSERT_NE(created, nullptr);
  EXPECT_EQ(queries[0].usage, created->usage)
      << "the requirements were asked for usage 0x" << std::hex << queries[0].usage << " but the buffer was made with 0x"
      << created->usage << ": an allocator sizes and places memory for another buffer than the one it binds";
  vkDestroyBuffer(h.device(), buffer, nullptr);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
}

TEST(TransferAddress, ImportedHostMemoryTakesTheFlagWithItsBuffer) {
  // Imported memory takes the device-address flag only where its handle type allows its
  // buffers the usage; a buffer bound to it is an external buffer, which gets the usage
  // only then: never a buffer with the usage on memory without the flag.
  RigOptions options = WithSpy();
  options.device_extensions = {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
  if (!newer::DeviceHasExtension(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME)) {
    GTEST_SKIP() << "the device has no VK_EXT_external_memory_host";
  }
  Rig rig(kForceCompute, options);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  VkPhysicalDeviceExternalMemoryHostPropertiesEXT host_props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &host_props};
  vkGetPhysicalDeviceProperties2(h.physical_device(), &props);
  const VkDeviceSize alignment = std::max<VkDeviceSize>(host_props.minImportedHostPointerAlignment, 4096);
  void* host = std::aligned_alloc(alignment, kBytes);
  ASSERT_NE(host, nullptr);

  VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.pNext = &external;
  bci.size = kBytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  ASSERT_EQ(vkCreateBuffer(h.device(), &bci, nullptr, &buffer), VK_SUCCESS);
  auto get_host_props = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
      vkGetDeviceProcAddr(h.device(), "vkGetMemoryHostPointerPropertiesEXT"));
  VkMemoryHostPointerPropertiesEXT pointer_props{VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
  ASSERT_EQ(get_host_props(h.device(), VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host, &pointer_props),
            VK_SUCCESS);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(h.device(), buffer, &req);
  VkImportMemoryHostPointerInfoEXT import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = host;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = &import;
  mai.allocationSize = kBytes;
  mai.memoryTypeIndex = HostMemoryType(h.physical_device(), req.memoryTypeBits & pointer_props.memoryTypeBits);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateMemory(h.device(), &mai, nullptr, &memory), VK_SUCCESS);
  ASSERT_EQ(vkBindBufferMemory(h.device(), buffer, memory, 0), VK_SUCCESS);

  const std::vector<SpyEvent> events = SpyEvents();
  const SpyEvent* created = CreationOf(events, buffer);
  ASSERT_NE(created, nullptr);
  const bool usage_added = created->usage != static_cast<uint64_t>(bci.usage);
  if (usage_added) {
    EXPECT_EQ(created->usage, bci.usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  }
  bool flagged = false, seen = false;
  for (const SpyEvent& e : events) {
    if (e.kind == kSpyAllocateMemory && e.handle == reinterpret_cast<uint64_t>(memory)) {
      seen = true;
      flagged = (e.flags & VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT) != 0;
    }
  }
  EXPECT_TRUE(seen);
  // The usage only with the flag (VUID-vkBindBufferMemory-bufferDeviceAddress-03339).
  if (usage_added) {
    EXPECT_TRUE(flagged) << "an external buffer with the usage on imported memory without the flag";
  }
  HostBuffer src = rig.Buffer(kBytes);
  const std::vector<uint8_t> source = RandomContent(src, kBytes, 6);
  CopyAndCheck(rig, src.buffer, buffer, host, source);
  EXPECT_TRUE(AddressesOnlyForAddressableBuffers(SpyEvents()));
  vkDestroyBuffer(h.device(), buffer, nullptr);
  vkFreeMemory(h.device(), memory, nullptr);
  rig.Finish();
  std::free(host);
  EXPECT_VALIDATION_SILENT(h);
}

TEST(TransferAddress, Usage2BufferGetsAnAddressOnlyWithTheUsage) {
  if (!newer::DeviceSupports(newer::kMaintenance5, newer::kMaintenance5FeaturesType)) {
    GTEST_SKIP() << "the device has no VK_KHR_maintenance5 (VkBufferUsageFlags2CreateInfoKHR); lavapipe in Mesa 22.3 "
                    "lacks it";
  }
  // Validation older than 1.3.260 does not know the usage2 struct and would report it.
  const bool validation = newer::ValidationKnows(VK_MAKE_API_VERSION(0, 1, 3, 260));
  if (!validation) std::printf("[ note ] validation layer predates VK_KHR_maintenance5: running without it\n");
  newer::Maintenance5Features m5;
  m5.maintenance5 = VK_TRUE;
  RigOptions options = WithSpy();
  options.device_extensions = {newer::kMaintenance5};
  options.device_pnext = &m5;
  options.validation = validation;
  Rig rig(kForceCompute, options);
  ASSERT_TRUE(rig.ok()) << rig.error();
  VkHarness& h = rig.h();
  newer::BufferUsageFlags2CreateInfo usage2;
  usage2.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.pNext = &usage2;
  bci.size = kBytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;  // ignored by the driver: usage2 is chained
  ManualBuffer dst = MakeBuffer(h, bci);
  ASSERT_EQ(dst.result, VK_SUCCESS);
  HostBuffer src = rig.Buffer(kBytes);
  const std::vector<uint8_t> source = RandomContent(src, kBytes, 7);
  CopyAndCheck(rig, src.buffer, dst.buffer, dst.mapped, source);
  EXPECT_TRUE(AddressesOnlyForAddressableBuffers(SpyEvents()));
  Destroy(h, dst);
  rig.Finish();
  EXPECT_VALIDATION_SILENT(h);
}

}  // namespace
}  // namespace bindery::test::transfer
