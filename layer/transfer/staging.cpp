#include "transfer/staging.h"

#include <algorithm>

#include "chassis/state.h"

namespace bindery::transfer {

StagingPool::StagingPool(DeviceState& device, const VkLayerDispatchTable& next, bool device_address)
    : device_(device), next_(next), device_address_(device_address) {
  VkPhysicalDeviceMemoryProperties props;
  device.instance->dispatch.GetPhysicalDeviceMemoryProperties(device.physical_device, &props);
  // Prefer device-local memory the host can write (resizable BAR): the copy engine then
  // reads staging at device speed instead of across PCIe, which on an H200 made a small
  // staged copy cost ~3.8 us instead of tens of ns. Else any host-visible memory.
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (VkMemoryPropertyFlags want : {host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, host}) {
    for (uint32_t i = 0; i < props.memoryTypeCount && memory_type_ == UINT32_MAX; ++i) {
      if ((props.memoryTypes[i].propertyFlags & want) == want &&
          (props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_PROTECTED_BIT) == 0) {
        memory_type_ = i;
      }
    }
  }
}

StagingPool::~StagingPool() {
  for (auto& chunk : owned_) Destroy(chunk.get());
}

StagingChunk* StagingPool::Create(VkDeviceSize size) {
  if (memory_type_ == UINT32_MAX) return nullptr;
  auto chunk = std::make_unique<StagingChunk>();
  chunk->size = size;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = size;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | (device_address_ ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const VkLayerDispatchTable& d = next_;
  if (d.CreateBuffer(device_.handle, &bci, nullptr, &chunk->buffer) != VK_SUCCESS) return nullptr;
  VkMemoryRequirements req;
  d.GetBufferMemoryRequirements(device_.handle, chunk->buffer, &req);
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = device_address_ && device_.addressing.memory_flag ? &flags : nullptr;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = memory_type_;
  if ((req.memoryTypeBits & (1u << memory_type_)) == 0 ||
      d.AllocateMemory(device_.handle, &mai, nullptr, &chunk->memory) != VK_SUCCESS) {
    d.DestroyBuffer(device_.handle, chunk->buffer, nullptr);
    return nullptr;
  }
  void* mapped = nullptr;
  if (d.BindBufferMemory(device_.handle, chunk->buffer, chunk->memory, 0) != VK_SUCCESS ||
      d.MapMemory(device_.handle, chunk->memory, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS) {
    Destroy(chunk.get());
    return nullptr;
  }
  chunk->mapped = static_cast<uint8_t*>(mapped);
  if (device_address_) {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = chunk->buffer;
    chunk->address = device_.addressing.get_address(device_.handle, &info);
  }
  owned_.push_back(std::move(chunk));
  return owned_.back().get();
}

void StagingPool::Destroy(StagingChunk* chunk) {
  const VkLayerDispatchTable& d = next_;
  if (chunk->buffer != VK_NULL_HANDLE) d.DestroyBuffer(device_.handle, chunk->buffer, nullptr);
  if (chunk->memory != VK_NULL_HANDLE) d.FreeMemory(device_.handle, chunk->memory, nullptr);
  chunk->buffer = VK_NULL_HANDLE;
  chunk->memory = VK_NULL_HANDLE;
}

StagingChunk* StagingPool::Acquire(VkDeviceSize min_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if ((*it)->size >= min_size) {
      StagingChunk* chunk = *it;
      free_.erase(it);
      return chunk;
    }
  }
  return Create(std::max(kChunkSize, (min_size + kChunkSize - 1) / kChunkSize * kChunkSize));
}

void StagingPool::Release(StagingChunk* chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (chunk->size <= kKeepLimit) {
    free_.push_back(chunk);
    return;
  }
  Destroy(chunk);
  owned_.erase(std::find_if(owned_.begin(), owned_.end(), [&](const auto& c) { return c.get() == chunk; }));
}

StagingSlice StagingArena::Allocate(StagingPool& pool, VkDeviceSize size) {
  const VkDeviceSize aligned = (used_in_last_ + 15) & ~VkDeviceSize{15};
  if (chunks_.empty() || aligned + size > chunks_.back()->size) {
    StagingChunk* chunk = pool.Acquire(size);
    if (chunk == nullptr) return {};
    chunks_.push_back(chunk);
    used_in_last_ = 0;
    return Allocate(pool, size);
  }
  StagingChunk* chunk = chunks_.back();
  used_in_last_ = aligned + size;
  return {chunk->buffer, aligned, chunk->mapped + aligned, chunk->address ? chunk->address + aligned : 0};
}

void StagingArena::ReleaseAll(StagingPool& pool) {
  for (StagingChunk* chunk : chunks_) pool.Release(chunk);
  chunks_.clear();
  used_in_last_ = 0;
}

}  // namespace bindery::transfer
