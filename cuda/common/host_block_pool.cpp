/* cudavision — page-locked host blocks handed out and taken back from any
 * thread (host_block_pool.h). */
#include "host_block_pool.h"

#include <cuda_runtime_api.h>

#include <utility>

namespace cudavision {

CudaStatus
PinnedHostMemory::allocate (size_t bytes, void ** p)
{
  *p = nullptr;
  CV_CUDA_TRY (cudaHostAlloc (p, bytes ? bytes : 1, cudaHostAllocDefault));
  return {};
}

void
PinnedHostMemory::free (void * p)
{
  /* nothing to report to: the block's holder is gone */
  (void) cudaFreeHost (p);
}

std::shared_ptr<HostBlockPool>
HostBlockPool::create (size_t max_blocks, std::shared_ptr<HostBlockMemory> memory)
{
  return std::shared_ptr<HostBlockPool> (new HostBlockPool (max_blocks, std::move (memory)));
}

HostBlockPool::HostBlockPool (size_t max_blocks, std::shared_ptr<HostBlockMemory> memory)
    : max_ (max_blocks), memory_ (std::move (memory))
{
}

HostBlockPool::~HostBlockPool ()
{
  /* no block is out (each holds the pool): the idle ones are all */
  for (HostBlock *b : idle_)
    destroy (b);
}

void
HostBlockPool::destroy (HostBlock * b)
{
  memory_->free (b->data);
  delete b;
}

CudaStatus
HostBlockPool::acquire (size_t bytes, HostBlockPtr * out)
{
  out->reset ();
  HostBlock *victim = nullptr;
  {
    std::lock_guard<std::mutex> lk (lock_);
    if (closed_)
      return {};
    for (size_t i = 0; i < idle_.size (); i++) {
      if (idle_[i]->bytes >= bytes) {
        HostBlock *b = idle_[i];
        idle_.erase (idle_.begin () + (std::ptrdiff_t) i);
        b->pool = shared_from_this ();
        out->reset (b);
        return {};
      }
    }
    /* none large enough: one too small makes room for a new one (so
     * the count stays below the bound) */
    if (!idle_.empty ()) {
      victim = idle_.back ();
      idle_.pop_back ();
      count_--;
    }
    if (count_ >= max_)
      return {};
    count_++; /* counted now: a concurrent acquire cannot pass the bound */
  }
  if (victim)
    destroy (victim);
  auto *b = new HostBlock ();
  const CudaStatus s = memory_->allocate (bytes, &b->data);
  if (!s.ok ()) {
    delete b;
    std::lock_guard<std::mutex> lk (lock_);
    count_--;
    return s;
  }
  b->bytes = bytes;
  b->pool = shared_from_this ();
  out->reset (b);
  return {};
}

void
HostBlockPool::give_back (HostBlock * b)
{
  {
    std::lock_guard<std::mutex> lk (lock_);
    if (!closed_) {
      idle_.push_back (b);
      return;
    }
    count_--;
  }
  destroy (b);
}

size_t
HostBlockPool::blocks () const
{
  std::lock_guard<std::mutex> lk (lock_);
  return count_;
}

size_t
HostBlockPool::out () const
{
  std::lock_guard<std::mutex> lk (lock_);
  return count_ - idle_.size ();
}

void
HostBlockPool::close ()
{
  std::vector<HostBlock *> idle;
  {
    std::lock_guard<std::mutex> lk (lock_);
    closed_ = true;
    idle.swap (idle_);
    count_ -= idle.size ();
  }
  for (HostBlock *b : idle)
    destroy (b);
}

void
host_block_release (void * block)
{
  if (!block)
    return;
  HostBlock *b = static_cast<HostBlock *> (block);
  /* the pool lives until this returns, even when b was its last block */
  std::shared_ptr<HostBlockPool> pool = std::move (b->pool);
  pool->give_back (b);
}

}  // namespace cudavision
