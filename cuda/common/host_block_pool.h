/* cudavision — HostBlockPool: page-locked host blocks that leave with a
 * buffer and come back from any thread.
 *
 * What it is for: results the GPU writes into host memory that then go
 * downstream as they are (cudaflow's vectors become the GstCvFlowMeta's
 * array without a copy). The block leaves with the buffer and comes back
 * when the meta is freed, on whatever thread that happens, possibly after
 * the element that made it has stopped. Hence:
 *  - one holder at a time (HostBlockPtr, or the raw block given to a meta
 *    with host_block_release as its destroy notify): a block handed out is
 *    never written by anyone else until it is back;
 *  - every block out holds the pool (shared ownership): the pool outlives
 *    its owner until the last block is back, and then frees what it kept;
 *  - thread-safe acquire and release (a lock around the idle list);
 *  - bounded: at most `max_blocks` exist; beyond, acquire () gives none and
 *    the caller falls back to copying;
 *  - the memory comes from a HostBlockMemory: page-locked through
 *    cudaHostAlloc (PinnedHostMemory), made current in its CUDA context by
 *    the GStreamer side (which keeps the context alive as long as a block
 *    exists), or plain memory in the CPU tests.
 * Blocks are not PinnedBuffers on purpose: no captured graph holds their
 * addresses (the kernels read them from memory at run time), so allocating
 * one must not bump allocation_generation (), which would have every graph
 * captured again. */
#pragma once

#include "cuda_check.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace cudavision {

/* Where a pool's blocks come from and go back to. free () may run on any
 * thread, after the pool's owner is gone. */
class HostBlockMemory {
public:
  virtual ~HostBlockMemory () = default;
  virtual CudaStatus allocate (size_t bytes, void ** p) = 0;
  virtual void free (void * p) = 0;
};

/* Page-locked host memory in the CUDA context current at the call (the
 * GPU reads and writes it through the same address). */
class PinnedHostMemory : public HostBlockMemory {
public:
  CudaStatus allocate (size_t bytes, void ** p) override;
  void free (void * p) override;
};

class HostBlockPool;

/* A block: `data`, `bytes` bytes of it. */
struct HostBlock {
  void *data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<HostBlockPool> pool; /* set while the block is out */
};

/* Gives `block` (a HostBlock *) back to its pool: a GDestroyNotify. */
void host_block_release (void * block);

struct HostBlockRelease {
  void operator() (HostBlock * b) const { host_block_release (b); }
};
using HostBlockPtr = std::unique_ptr<HostBlock, HostBlockRelease>;

class HostBlockPool : public std::enable_shared_from_this<HostBlockPool> {
public:
  static std::shared_ptr<HostBlockPool> create (size_t max_blocks, std::shared_ptr<HostBlockMemory> memory);
  ~HostBlockPool ();
  HostBlockPool (const HostBlockPool &) = delete;
  HostBlockPool & operator= (const HostBlockPool &) = delete;

  /* A block of at least `bytes` bytes into *out: an idle one that is
   * large enough, else a new one (an idle one too small is freed first)
   * while fewer than max_blocks exist; none (*out null, status ok) when
   * they are all out, none and the allocation's status when it fails. */
  CudaStatus acquire (size_t bytes, HostBlockPtr * out);
  /* Blocks that exist (idle and out), and those out. */
  size_t blocks () const;
  size_t out () const;
  /* The owner is going away: the idle blocks are freed now, and those out
   * as they come back. */
  void close ();

private:
  HostBlockPool (size_t max_blocks, std::shared_ptr<HostBlockMemory> memory);
  friend void host_block_release (void * block);
  void give_back (HostBlock * b);
  void destroy (HostBlock * b);

  mutable std::mutex lock_;
  std::vector<HostBlock *> idle_;
  size_t count_ = 0; /* blocks that exist, idle or out (or being allocated) */
  const size_t max_;
  bool closed_ = false;
  std::shared_ptr<HostBlockMemory> memory_;
};

}  // namespace cudavision
