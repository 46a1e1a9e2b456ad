#include "cuda_raii.h"

#include <atomic>

namespace cudavision {

CudaStatus
Stream::create ()
{
  reset ();
  CV_CUDA_TRY (cudaStreamCreateWithFlags (&s_, cudaStreamNonBlocking));
  return {};
}

void
Stream::reset ()
{
  if (s_) {
    /* Work still queued must finish before the stream goes away. */
    cudaStreamSynchronize (s_);
    cudaStreamDestroy (s_);
    s_ = nullptr;
  }
}

CudaStatus
Stream::synchronize () const
{
  CV_CUDA_TRY (cudaStreamSynchronize (s_));
  return {};
}

CudaStatus
Event::create (bool timing)
{
  reset ();
  CV_CUDA_TRY (cudaEventCreateWithFlags (&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  return {};
}

void
Event::reset ()
{
  if (e_) {
    cudaEventDestroy (e_);
    e_ = nullptr;
  }
}

namespace {
std::atomic<uint64_t> g_generation { 1 };
}  // namespace

uint64_t
allocation_generation ()
{
  return g_generation.load (std::memory_order_relaxed);
}

CudaStatus
DeviceBuffer::allocate (size_t bytes)
{
  reset ();
  g_generation.fetch_add (1, std::memory_order_relaxed);
  CV_CUDA_TRY (cudaMalloc (&p_, bytes ? bytes : 1));
  size_ = bytes;
  return {};
}

void
DeviceBuffer::reset ()
{
  if (p_) {
    g_generation.fetch_add (1, std::memory_order_relaxed);
    cudaFree (p_);
    p_ = nullptr;
    size_ = 0;
  }
}

CudaStatus
PinnedBuffer::allocate (size_t bytes)
{
  reset ();
  g_generation.fetch_add (1, std::memory_order_relaxed);
  CV_CUDA_TRY (cudaMallocHost (&p_, bytes ? bytes : 1));
  size_ = bytes;
  return {};
}

void
PinnedBuffer::reset ()
{
  if (p_) {
    g_generation.fetch_add (1, std::memory_order_relaxed);
    cudaFreeHost (p_);
    p_ = nullptr;
    size_ = 0;
  }
}

}  // namespace cudavision
