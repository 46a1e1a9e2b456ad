/* HostBlockPool (cuda/common/host_block_pool.h) on plain memory: blocks
 * reused once back, the bound (none beyond it, not an error), a block too
 * small replaced, a failed allocation reported, blocks given back from
 * other threads, and the pool outliving its owner until its last block is
 * back (then everything freed once). No GPU. */
#include "../../cuda/common/host_block_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

using namespace cudavision;

namespace {

/* malloc, counted; `fail` makes the next allocations fail. */
class CountingMemory : public HostBlockMemory {
public:
  CudaStatus allocate (size_t bytes, void ** p) override
  {
    *p = nullptr;
    if (fail)
      return { cudaErrorMemoryAllocation, "CountingMemory::allocate" };
    *p = std::malloc (bytes ? bytes : 1);
    allocated++;
    return {};
  }
  void free (void * p) override
  {
    std::free (p);
    freed++;
  }
  std::atomic<int> allocated { 0 }, freed { 0 };
  bool fail = false;
};

}  // namespace

TEST (HostBlockPool, ReusesBlocksWithinItsBound)
{
  auto mem = std::make_shared<CountingMemory> ();
  auto pool = HostBlockPool::create (3, mem);
  std::vector<HostBlockPtr> out (4);
  for (int i = 0; i < 3; i++) {
    ASSERT_TRUE (pool->acquire (100, &out[(size_t) i]).ok ());
    ASSERT_NE (out[(size_t) i], nullptr);
    EXPECT_GE (out[(size_t) i]->bytes, 100u);
  }
  EXPECT_EQ (pool->out (), 3u);
  /* the bound: none, and no error (the caller copies instead) */
  const CudaStatus s = pool->acquire (100, &out[3]);
  EXPECT_TRUE (s.ok ());
  EXPECT_EQ (out[3], nullptr);
  /* one back: it comes out again, nothing new allocated */
  void *data = out[1]->data;
  out[1].reset ();
  EXPECT_EQ (pool->out (), 2u);
  ASSERT_TRUE (pool->acquire (50, &out[3]).ok ());
  ASSERT_NE (out[3], nullptr);
  EXPECT_EQ (out[3]->data, data);
  EXPECT_EQ (mem->allocated, 3);
  /* a larger request: the idle block too small gives its place */
  out[3].reset ();
  ASSERT_TRUE (pool->acquire (1000, &out[3]).ok ());
  ASSERT_NE (out[3], nullptr);
  EXPECT_GE (out[3]->bytes, 1000u);
  EXPECT_EQ (mem->allocated, 4);
  EXPECT_EQ (mem->freed, 1);
  EXPECT_EQ (pool->blocks (), 3u);
  out.clear ();
  pool.reset ();
  EXPECT_EQ (mem->freed, 4);
}

TEST (HostBlockPool, FailedAllocationIsReported)
{
  auto mem = std::make_shared<CountingMemory> ();
  auto pool = HostBlockPool::create (2, mem);
  mem->fail = true;
  HostBlockPtr b;
  const CudaStatus s = pool->acquire (10, &b);
  EXPECT_TRUE (s.out_of_memory ());
  EXPECT_EQ (b, nullptr);
  EXPECT_EQ (pool->blocks (), 0u);
  mem->fail = false;
  ASSERT_TRUE (pool->acquire (10, &b).ok ());
  EXPECT_NE (b, nullptr);
}

/* As cudaflow's metas: the block leaves as a raw pointer with
 * host_block_release as its destroy notify, the owner stops and drops the
 * pool, the blocks come back later from other threads. */
TEST (HostBlockPool, OutlivesItsOwnerUntilTheLastBlock)
{
  auto mem = std::make_shared<CountingMemory> ();
  std::weak_ptr<HostBlockPool> weak;
  std::vector<void *> lent;
  {
    auto pool = HostBlockPool::create (16, mem);
    weak = pool;
    for (int i = 0; i < 8; i++) {
      HostBlockPtr b;
      ASSERT_TRUE (pool->acquire (64, &b).ok ());
      ASSERT_NE (b, nullptr);
      static_cast<char *> (b->data)[63] = (char) i; /* the holder writes it */
      lent.push_back (b.release ());
    }
    HostBlockPtr idle;
    ASSERT_TRUE (pool->acquire (64, &idle).ok ());
    idle.reset ();
    pool->close (); /* the owner stops: its idle block goes at once */
    EXPECT_EQ (mem->freed, 1);
  }
  ASSERT_FALSE (weak.expired ()) << "the blocks out keep the pool";
  std::vector<std::thread> threads;
  for (size_t i = 0; i < lent.size (); i++)
    threads.emplace_back ([&lent, i] { host_block_release (lent[i]); });
  for (auto & t : threads)
    t.join ();
  EXPECT_TRUE (weak.expired ());
  EXPECT_EQ (mem->allocated, 9);
  EXPECT_EQ (mem->freed, 9);
}

/* Acquire on one thread while others give blocks back: the bound holds,
 * nothing is lost or freed twice. */
TEST (HostBlockPool, ConcurrentReturns)
{
  auto mem = std::make_shared<CountingMemory> ();
  auto pool = HostBlockPool::create (4, mem);
  std::atomic<int> got { 0 };
  std::vector<std::thread> threads;
  for (int i = 0; i < 200; i++) {
    HostBlockPtr b;
    ASSERT_TRUE (pool->acquire (32, &b).ok ());
    EXPECT_LE (pool->blocks (), 4u);
    if (!b)
      continue;
    got++;
    HostBlock *raw = b.release ();
    threads.emplace_back ([raw] { host_block_release (raw); });
    if (threads.size () >= 8) {
      for (auto & t : threads)
        t.join ();
      threads.clear ();
    }
  }
  for (auto & t : threads)
    t.join ();
  EXPECT_GT (got, 0);
  EXPECT_EQ (pool->out (), 0u);
  EXPECT_LE (mem->allocated, 4);
  pool.reset ();
  EXPECT_EQ (mem->allocated, mem->freed);
}
