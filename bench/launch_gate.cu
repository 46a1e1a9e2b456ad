/* cudavision benchmarks — LaunchGate (launch_gate.h). */
#include "launch_gate.h"

namespace cvbench {

namespace {

__device__ __forceinline__ uint64_t
global_ns ()
{
  uint64_t t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* One thread spins until the host has opened generation `gen` or a later
 * one (the host may be a gate or two ahead of the GPU), or the timeout
 * passes (then it says so in words[1]). */
__global__ void
gate_kernel (volatile uint32_t *words, uint32_t gen, uint64_t timeout_ns)
{
  const uint64_t t0 = global_ns ();
  while ((int32_t) (words[0] - gen) < 0) {
    if (global_ns () - t0 > timeout_ns) {
      words[1] = gen;
      __threadfence_system ();
      return;
    }
    __nanosleep (500);
  }
}

}  // namespace

LaunchGate::LaunchGate (double timeout_ms) : timeout_ns_ ((uint64_t) (timeout_ms * 1e6))
{
  void *p = nullptr;
  if (cudaHostAlloc (&p, 2 * sizeof (uint32_t), cudaHostAllocMapped) != cudaSuccess) {
    cudaGetLastError ();
    return;
  }
  void *d = nullptr;
  if (cudaHostGetDevicePointer (&d, p, 0) != cudaSuccess) {
    cudaGetLastError ();
    cudaFreeHost (p);
    return;
  }
  words_ = static_cast<volatile uint32_t *> (p);
  words_[0] = words_[1] = 0;
  device_words_ = static_cast<uint32_t *> (d);
}

LaunchGate::~LaunchGate ()
{
  if (words_)
    cudaFreeHost (const_cast<uint32_t *> (words_));
}

cudaError_t
LaunchGate::hold (cudaStream_t stream)
{
  if (!words_)
    return cudaSuccess;
  generation_++;
  gate_kernel<<<1, 1, 0, stream>>> (device_words_, generation_, timeout_ns_);
  return cudaGetLastError ();
}

bool
LaunchGate::release ()
{
  if (!words_)
    return true;
  words_[0] = generation_;
  /* any gate that gave up since the last release */
  const uint32_t t = words_[1];
  const bool timed_out = t != timeouts_seen_;
  timeouts_seen_ = t;
  return !timed_out;
}

}  // namespace cvbench
