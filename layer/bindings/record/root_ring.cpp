#include "bindings/record/root_ring.h"

#include <algorithm>

#include "bindings/model/argument_memory.h"
#include "bindings/record/record_store.h"
#include "chassis/queue_sharing.h"

namespace bindery::bindings {

RootRingPool::RootRingPool(DescriptorStore& b) : b_(b) {}

RootRingPool::~RootRingPool() {
  // At device teardown: the chassis's trackers (the tracking stage below this capability
  // hooks buffer and memory destruction) are gone already, so the blocks go straight to
  // the layer below the whole stack.
  const VkLayerDispatchTable& driver = b_.device.driver;
  for (auto& block : blocks_) DestroyBlock(*block, driver);
}

void RootRingPool::DestroyBlock(RingBlock& block, const VkLayerDispatchTable& table) {
  if (block.root_pool != VK_NULL_HANDLE) table.DestroyDescriptorPool(b_.device.handle, block.root_pool, nullptr);
  if (block.buffer != VK_NULL_HANDLE) table.DestroyBuffer(b_.device.handle, block.buffer, nullptr);
  if (block.memory != VK_NULL_HANDLE) table.FreeMemory(b_.device.handle, block.memory, nullptr);
  b_.gpu_bytes.Sub(kBlockBytes + kRingRootBytes);
}

void RootRingPool::TrimIdleBlocks() {
  uint32_t idle = 0;
  for (const auto& block : blocks_) idle += block->lent == 0 ? 1 : 0;
  if (idle < 2) return;
  // Keep the first idle block as the spare; the others' chunks leave the free list.
  bool spare = false;
  std::vector<const RingBlock*> doomed;
  for (const auto& block : blocks_) {
    if (block->lent != 0) continue;
    if (spare) doomed.push_back(block.get());
    spare = true;
  }
  auto is_doomed = [&](const RingBlock* block) {
    return std::find(doomed.begin(), doomed.end(), block) != doomed.end();
  };
  RingChunk** link = &free_;
  while (*link != nullptr) {
    if (is_doomed((*link)->block)) {
      *link = (*link)->next;
    } else {
      link = &(*link)->next;
    }
  }
  for (auto it = blocks_.begin(); it != blocks_.end();) {
    if (is_doomed(it->get())) {
      DestroyBlock(**it, b_.next);
      it = blocks_.erase(it);
    } else {
      ++it;
    }
  }
}

RingBlock* RootRingPool::CreateBlock() {
  VkDevice device = b_.device.handle;
  auto block = std::make_unique<RingBlock>();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = kBlockBytes + kRingRootBytes;
  // Storage: push-descriptor records are read through their address; uniform: a root
  // that does not fit in push constants is read through the reserved set's descriptor.
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
               VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  const QueueSharing sharing(b_.device);  // blocks go from command buffer to command buffer, of any family
  sharing.Apply(info);
  ArgumentBuffer made;
  bool ok = CreateArgumentBuffer(b_, info, &made) == VK_SUCCESS;
  if (made.buffer == VK_NULL_HANDLE) return nullptr;
  block->buffer = made.buffer;
  block->memory = made.memory;
  if (ok) block->address = made.address;
  if (ok && block->address != 0 && b_.root_set_layout != VK_NULL_HANDLE) ok = CreateRootSet(*block);
  if (!ok || block->address == 0) {
    if (block->root_pool != VK_NULL_HANDLE) b_.next.DestroyDescriptorPool(device, block->root_pool, nullptr);
    b_.next.DestroyBuffer(device, block->buffer, nullptr);
    if (block->memory != VK_NULL_HANDLE) b_.next.FreeMemory(device, block->memory, nullptr);
    return nullptr;
  }
  block->mapped = made.mapped;
  block->chunks.resize(kChunksPerBlock);
  for (uint32_t i = 0; i < kChunksPerBlock; ++i) {
    RingChunk& c = block->chunks[i];
    c.block = block.get();
    c.offset = i * kChunkBytes;
    c.mapped = block->mapped + c.offset;
    c.address = block->address + c.offset;
    c.next = free_;
    free_ = &c;
  }
  b_.counters.ring_bytes->Add(kBlockBytes + kRingRootBytes);
  b_.gpu_bytes.Add(kBlockBytes + kRingRootBytes);
  blocks_.push_back(std::move(block));
  return blocks_.back().get();
}

bool RootRingPool::CreateRootSet(RingBlock& block) {
  VkDevice device = b_.device.handle;
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &size;
  if (b_.next.CreateDescriptorPool(device, &pool_info, nullptr, &block.root_pool) != VK_SUCCESS) return false;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  alloc.descriptorPool = block.root_pool;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &b_.root_set_layout;
  if (b_.next.AllocateDescriptorSets(device, &alloc, &block.root_set) != VK_SUCCESS) return false;
  const VkDescriptorBufferInfo buffer{block.buffer, 0, kRingRootBytes};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = block.root_set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
  write.pBufferInfo = &buffer;
  b_.next.UpdateDescriptorSets(device, 1, &write, 0, nullptr);
  return true;
}

RingChunk* RootRingPool::Acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (free_ == nullptr && CreateBlock() == nullptr) return nullptr;
  RingChunk* c = free_;
  free_ = c->next;
  c->next = nullptr;
  ++c->block->lent;
  return c;
}

void RootRingPool::Release(RingChunk* first) {
  if (first == nullptr) return;
  RingChunk* last = first;
  std::lock_guard<std::mutex> lock(mutex_);
  bool emptied = false;
  for (RingChunk* c = first;; c = c->next) {
    emptied = --c->block->lent == 0 || emptied;
    last = c;
    if (c->next == nullptr) break;
  }
  last->next = free_;
  free_ = first;
  if (emptied) TrimIdleBlocks();
}

RingSlice RootRing::Allocate(RootRingPool& pool, uint32_t size, uint32_t alignment) {
  if (size > RootRingPool::kChunkBytes || alignment > RootRingPool::kChunkBytes) return {};
  uint32_t at = (used_ + alignment - 1) & ~(alignment - 1);
  if (head_ == nullptr || at + size > RootRingPool::kChunkBytes) {
    RingChunk* c = pool.Acquire();
    if (c == nullptr) return {};
    c->next = head_;
    head_ = c;
    at = 0;
  }
  used_ = at + size;
  return {head_->mapped + at, head_->address + at, head_->block, head_->offset + at};
}

void RootRing::ReleaseAll(RootRingPool& pool) {
  pool.Release(head_);
  head_ = nullptr;
  used_ = 0;
}

}  // namespace bindery::bindings
