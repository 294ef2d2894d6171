#include "timeline/sparse_binds.h"

namespace bindery::timeline {

SparseBinds::SparseBinds(const VkBindSparseInfo& in) {
  // Every array is sized before the first copy: the bind-info structs point into
  // memory_binds_ / image_binds_, which must not move afterwards.
  std::size_t memory = 0, image = 0;
  for (uint32_t i = 0; i < in.bufferBindCount; ++i) memory += in.pBufferBinds[i].bindCount;
  for (uint32_t i = 0; i < in.imageOpaqueBindCount; ++i) memory += in.pImageOpaqueBinds[i].bindCount;
  for (uint32_t i = 0; i < in.imageBindCount; ++i) image += in.pImageBinds[i].bindCount;
  memory_binds_.reserve(memory);
  image_binds_.reserve(image);
  buffers_.reserve(in.bufferBindCount);
  opaque_.reserve(in.imageOpaqueBindCount);
  images_.reserve(in.imageBindCount);

  for (uint32_t i = 0; i < in.bufferBindCount; ++i) {
    VkSparseBufferMemoryBindInfo b = in.pBufferBinds[i];
    const VkSparseMemoryBind* first = memory_binds_.data() + memory_binds_.size();
    memory_binds_.insert(memory_binds_.end(), b.pBinds, b.pBinds + b.bindCount);
    b.pBinds = first;
    buffers_.push_back(b);
  }
  for (uint32_t i = 0; i < in.imageOpaqueBindCount; ++i) {
    VkSparseImageOpaqueMemoryBindInfo b = in.pImageOpaqueBinds[i];
    const VkSparseMemoryBind* first = memory_binds_.data() + memory_binds_.size();
    memory_binds_.insert(memory_binds_.end(), b.pBinds, b.pBinds + b.bindCount);
    b.pBinds = first;
    opaque_.push_back(b);
  }
  for (uint32_t i = 0; i < in.imageBindCount; ++i) {
    VkSparseImageMemoryBindInfo b = in.pImageBinds[i];
    const VkSparseImageMemoryBind* first = image_binds_.data() + image_binds_.size();
    image_binds_.insert(image_binds_.end(), b.pBinds, b.pBinds + b.bindCount);
    b.pBinds = first;
    images_.push_back(b);
  }
  info_.bufferBindCount = in.bufferBindCount;
  info_.pBufferBinds = buffers_.data();
  info_.imageOpaqueBindCount = in.imageOpaqueBindCount;
  info_.pImageOpaqueBinds = opaque_.data();
  info_.imageBindCount = in.imageBindCount;
  info_.pImageBinds = images_.data();
}

}  // namespace bindery::timeline
