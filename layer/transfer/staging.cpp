#include "transfer/staging.h"

#include <algorithm>
#include <cstring>

#include "chassis/queue_sharing.h"
#include "chassis/state.h"

namespace bindery::transfer {

// One VkBuffer over one allocation, persistently mapped; `used[i]` says whether page i is
// lent out. A block bigger than kBlockSize serves one request and has one "page".
struct StagingBlock {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;
  VkDeviceSize size = 0;
  VkDeviceAddress address = 0;
  uint32_t index = 0;  // its entry in the pool's directory
  bool dedicated = false;
  uint32_t pages_used = 0;
  bool used[StagingPool::kPagesPerBlock] = {};
};

namespace {

// AMD's device-coherent/uncached memory needs the deviceCoherentMemory feature.
constexpr VkMemoryPropertyFlags kNeedsFeature =
    VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD | VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;

uint32_t PagesFor(VkDeviceSize size) {
  return static_cast<uint32_t>((size + StagingPool::kPageSize - 1) / StagingPool::kPageSize);
}

}  // namespace

uint32_t ChooseStagingMemoryType(const VkPhysicalDeviceMemoryProperties& props, uint32_t allowed_type_bits,
                                 bool one_instance) {
  // Prefer device-local memory the host can write (resizable BAR): the copy engine then
  // reads staging at device speed instead of across PCIe, which on an H200 made a small
  // staged copy cost ~3.8 us instead of tens of ns. Else any host-visible memory.
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (VkMemoryPropertyFlags want : {host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, host}) {
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags flags = props.memoryTypes[i].propertyFlags;
      const bool several_instances =
          (props.memoryHeaps[props.memoryTypes[i].heapIndex].flags & VK_MEMORY_HEAP_MULTI_INSTANCE_BIT) != 0;
      if ((allowed_type_bits & (1u << i)) != 0 && (flags & want) == want &&
          (flags & (VK_MEMORY_PROPERTY_PROTECTED_BIT | kNeedsFeature)) == 0 && !(one_instance && several_instances)) {
        return i;
      }
    }
  }
  return UINT32_MAX;
}

StagingPool::StagingPool(DeviceState& device, const VkLayerDispatchTable& next, bool device_address,
                         VkDeviceSize limit, bool device_group)
    : device_(device), next_(next), device_address_(device_address), limit_(limit), device_group_(device_group) {
  VkPhysicalDeviceMemoryProperties props;
  device.instance->dispatch.GetPhysicalDeviceMemoryProperties(device.physical_device, &props);
  memory_type_ = ChooseStagingMemoryType(props, ~0u, device_group_);
}

StagingPool::~StagingPool() {
  for (auto& block : blocks_) DestroyBlock(block.get());
  if (directory_ != nullptr) DestroyBlock(directory_.get());
}

StagingBlock* StagingPool::CreateBlock(VkDeviceSize size, bool beyond_limit) {
  if (memory_type_ == UINT32_MAX || (!beyond_limit && bytes_held_ + size > limit_) || bytes_held_ + size < bytes_held_) {
    return nullptr;
  }
  uint32_t index = 0;
  while (index < kMaxBlocks && index_used_[index]) ++index;
  if (index == kMaxBlocks) return nullptr;  // 16 GiB of staging: out of memory
  auto block = std::make_unique<StagingBlock>();
  block->size = size;
  block->dedicated = size > kBlockSize;
  block->index = index;
  if (!MakeBuffer(*block)) return nullptr;
  if (directory_ != nullptr) {
    // Written before any command buffer naming the block is recorded, hence before any
    // submission that could read it (host writes are made visible at submission).
    std::memcpy(directory_->mapped + sizeof(VkDeviceAddress) * index, &block->address, sizeof(VkDeviceAddress));
  }
  index_used_[index] = true;
  bytes_held_ += size;
  blocks_.push_back(std::move(block));
  return blocks_.back().get();
}

bool StagingPool::CreateDirectory() {
  if (!device_address_ || memory_type_ == UINT32_MAX) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (directory_ != nullptr) return true;
  auto directory = std::make_unique<StagingBlock>();
  directory->size = VkDeviceSize{kMaxBlocks} * sizeof(VkDeviceAddress);
  if (!MakeBuffer(*directory) || directory->address == 0) {
    DestroyBlock(directory.get());
    return false;
  }
  std::memset(directory->mapped, 0, static_cast<std::size_t>(directory->size));
  for (const auto& b : blocks_) {
    std::memcpy(directory->mapped + sizeof(VkDeviceAddress) * b->index, &b->address, sizeof(VkDeviceAddress));
  }
  directory_address_ = directory->address;
  directory_ = std::move(directory);
  return true;
}

bool StagingPool::MakeBuffer(StagingBlock& block) {
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = block.size;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | (device_address_ ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
  const QueueSharing sharing(device_);  // blocks are lent to command buffers of any family
  sharing.Apply(bci);
  const VkLayerDispatchTable& d = next_;
  if (d.CreateBuffer(device_.handle, &bci, nullptr, &block.buffer) != VK_SUCCESS) return false;
  VkMemoryRequirements req;
  d.GetBufferMemoryRequirements(device_.handle, block.buffer, &req);
  if (!probed_) {
    // The type chosen from the properties alone may not suit buffers: choose again
    // among the types this buffer allows (same preferences).
    probed_ = true;
    VkPhysicalDeviceMemoryProperties props;
    device_.instance->dispatch.GetPhysicalDeviceMemoryProperties(device_.physical_device, &props);
    memory_type_ = ChooseStagingMemoryType(props, req.memoryTypeBits, device_group_);
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.pNext = device_address_ && device_.addressing.memory_flag ? &flags : nullptr;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = memory_type_;
  if (memory_type_ == UINT32_MAX || (req.memoryTypeBits & (1u << memory_type_)) == 0 ||
      d.AllocateMemory(device_.handle, &mai, nullptr, &block.memory) != VK_SUCCESS) {
    d.DestroyBuffer(device_.handle, block.buffer, nullptr);
    block.buffer = VK_NULL_HANDLE;
    return false;
  }
  void* mapped = nullptr;
  if (d.BindBufferMemory(device_.handle, block.buffer, block.memory, 0) != VK_SUCCESS ||
      d.MapMemory(device_.handle, block.memory, 0, VK_WHOLE_SIZE, 0, &mapped) != VK_SUCCESS) {
    DestroyBlock(&block);
    return false;
  }
  block.mapped = static_cast<uint8_t*>(mapped);
  if (device_address_) {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = block.buffer;
    block.address = device_.addressing.get_address(device_.handle, &info);
  }
  return true;
}

void StagingPool::DestroyBlock(StagingBlock* block) {
  const VkLayerDispatchTable& d = next_;
  if (block->buffer != VK_NULL_HANDLE) d.DestroyBuffer(device_.handle, block->buffer, nullptr);
  if (block->memory != VK_NULL_HANDLE) d.FreeMemory(device_.handle, block->memory, nullptr);
  block->buffer = VK_NULL_HANDLE;
  block->memory = VK_NULL_HANDLE;
}

StagingChunk* StagingPool::NewNode() {
  if (free_nodes_ != nullptr) {
    StagingChunk* node = free_nodes_;
    free_nodes_ = node->next;
    *node = {};
    return node;
  }
  nodes_.emplace_back();
  return &nodes_.back();
}

StagingChunk* StagingPool::Acquire(VkDeviceSize min_size, bool beyond_limit) {
  if (min_size == 0) min_size = 1;
  std::lock_guard<std::mutex> lock(mutex_);
  StagingBlock* block = nullptr;
  uint32_t first = 0, pages = 0;
  if (min_size > kBlockSize) {
    // A block of its own, rounded to whole pages.
    block = CreateBlock(PagesFor(min_size) * kPageSize, beyond_limit);
    if (block == nullptr) return nullptr;
    pages = 1;
    block->pages_used = 1;
  } else {
    // First fit: `pages` consecutive free pages in a shared block.
    pages = PagesFor(min_size);
    auto find = [&](StagingBlock* b) {
      uint32_t run = 0;
      for (uint32_t i = 0; i < kPagesPerBlock; ++i) {
        run = b->used[i] ? 0 : run + 1;
        if (run == pages) {
          first = i + 1 - pages;
          return true;
        }
      }
      return false;
    };
    for (auto& b : blocks_) {
      if (!b->dedicated && kPagesPerBlock - b->pages_used >= pages && find(b.get())) {
        block = b.get();
        break;
      }
    }
    if (block == nullptr) {
      block = CreateBlock(kBlockSize, beyond_limit);
      if (block == nullptr) return nullptr;
      first = 0;
    }
    for (uint32_t i = first; i < first + pages; ++i) block->used[i] = true;
    block->pages_used += pages;
  }
  StagingChunk* chunk = NewNode();
  const VkDeviceSize offset = block->dedicated ? 0 : VkDeviceSize{first} * kPageSize;
  chunk->block = block;
  chunk->buffer = block->buffer;
  chunk->mapped = block->mapped + offset;
  chunk->offset = offset;
  chunk->size = block->dedicated ? block->size : VkDeviceSize{pages} * kPageSize;
  chunk->address = block->address != 0 ? block->address + offset : 0;
  chunk->block_index = block->index;
  return chunk;
}

void StagingPool::Release(StagingChunk* chunk) {
  std::lock_guard<std::mutex> lock(mutex_);
  StagingBlock* block = chunk->block;
  if (block->dedicated) {
    block->pages_used = 0;
  } else {
    const uint32_t first = static_cast<uint32_t>(chunk->offset / kPageSize);
    const uint32_t pages = static_cast<uint32_t>(chunk->size / kPageSize);
    for (uint32_t i = first; i < first + pages; ++i) block->used[i] = false;
    block->pages_used -= pages;
  }
  chunk->next = free_nodes_;
  free_nodes_ = chunk;
  if (block->pages_used == 0) TrimEmptyBlocks();
}

void StagingPool::TrimEmptyBlocks() {
  // Dedicated blocks go as soon as they are empty; of the shared ones one spare stays.
  bool spare_kept = false;
  for (auto it = blocks_.begin(); it != blocks_.end();) {
    StagingBlock* b = it->get();
    if (b->pages_used != 0 || (!b->dedicated && !spare_kept)) {
      spare_kept |= b->pages_used == 0;
      ++it;
      continue;
    }
    bytes_held_ -= b->size;
    index_used_[b->index] = false;
    DestroyBlock(b);
    it = blocks_.erase(it);
  }
}

std::size_t StagingPool::BlockCount() {
  std::lock_guard<std::mutex> lock(mutex_);
  return blocks_.size();
}

VkDeviceSize StagingPool::BytesHeld() {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_held_;
}

StagingSlice StagingArena::Allocate(StagingPool& pool, VkDeviceSize size, VkDeviceSize end_in_block,
                                    bool beyond_limit) {
  const VkDeviceSize aligned = (used_in_head_ + 15) & ~VkDeviceSize{15};
  if (head_ == nullptr || aligned + size > head_->size || head_->offset + aligned + size > end_in_block) {
    // (A run of at most a block's size lies in a shared block, within its first kBlockSize
    // bytes: `end_in_block` of at least kBlockSize always holds for it.)
    StagingChunk* chunk = pool.Acquire(size, beyond_limit);
    if (chunk == nullptr) return {};
    chunk->next = head_;
    head_ = chunk;
    used_in_head_ = size;
    return {chunk->buffer, chunk->offset, chunk->mapped, chunk->address, chunk->block_index};
  }
  used_in_head_ = aligned + size;
  return {head_->buffer, head_->offset + aligned, head_->mapped + aligned,
          head_->address ? head_->address + aligned : 0, head_->block_index};
}

void StagingArena::ReleaseAll(StagingPool& pool) {
  while (head_ != nullptr) {
    StagingChunk* next = head_->next;
    pool.Release(head_);
    head_ = next;
  }
  used_in_head_ = 0;
}

}  // namespace bindery::transfer
