/* cudavision — a captured graph's arguments and done word (graph_io.h). */
#include "graph_io.h"

#include <cstdint>
#include <thread>

namespace cudavision {

namespace {

/* One warp: the arguments are a few dozen bytes, read once from the
 * page-locked block (its address on the device is the host's). Words
 * where both ends are 4-byte aligned (always, for the structs of pointers
 * and pitches it carries), else bytes. */
__global__ void
copy_args_kernel (uint8_t *dst, const uint8_t *src, size_t bytes)
{
  const bool words = ((reinterpret_cast<uintptr_t> (dst) | reinterpret_cast<uintptr_t> (src) | bytes) & 3) == 0;
  if (words) {
    uint32_t *d = reinterpret_cast<uint32_t *> (dst);
    const volatile uint32_t *s = reinterpret_cast<const volatile uint32_t *> (src);
    for (size_t i = threadIdx.x; i < bytes / 4; i += blockDim.x)
      d[i] = s[i];
  } else {
    const volatile uint8_t *s = src;
    for (size_t i = threadIdx.x; i < bytes; i += blockDim.x)
      dst[i] = s[i];
  }
}

__global__ void
done_kernel (uint32_t *word)
{
  __threadfence_system ();
  *reinterpret_cast<volatile uint32_t *> (word) = 1;
  __threadfence_system ();
}

}  // namespace

CudaStatus
ensure_args_buffers (PinnedBuffer & host, DeviceBuffer & device, size_t bytes)
{
  if (host.get () && device.get ())
    return {};
  CudaStatus s = host.get () ? CudaStatus {} : host.allocate (bytes);
  if (s.ok () && !device.get ())
    s = device.allocate (bytes);
  if (!s.ok ())
    host.reset ();
  return s;
}

CudaStatus
copy_args (void *device, const void *host, size_t bytes, cudaStream_t stream)
{
  if (bytes == 0)
    return {};
  /* page-locked memory has the same address on the device and the host
   * (unified addressing: every 64-bit platform CUDA supports) */
  copy_args_kernel<<<1, 32, 0, stream>>> (static_cast<uint8_t *> (device), static_cast<const uint8_t *> (host), bytes);
  CV_CUDA_TRY (cudaGetLastError ());
  return {};
}

CudaStatus
mark_done (uint32_t *word, cudaStream_t stream)
{
  done_kernel<<<1, 1, 0, stream>>> (word);
  CV_CUDA_TRY (cudaGetLastError ());
  return {};
}

CudaStatus
wait_done (const uint32_t *word, cudaStream_t stream)
{
  for (unsigned looks = 0; !done_seen (word); looks++) {
    /* the stream asked now and then: whether its work failed, or all of
     * it ended without setting the word */
    if (looks % 16 == 15) {
      const cudaError_t q = cudaStreamQuery (stream);
      if (q == cudaSuccess) {
        if (done_seen (word))
          break;
        return { cudaErrorUnknown, "a frame's results: its work ended without its done word" };
      }
      if (q != cudaErrorNotReady)
        CV_CUDA_TRY (q);
      cudaGetLastError ();  /* NotReady is not an error: keep it out of the next check */
    }
    /* spinning as cudaEventSynchronize does in CUDA's default scheduling
     * (a frame waited for at once, latency-frames=0): a sleep between
     * looks adds its granularity to every such frame */
    std::this_thread::yield ();
  }
  return {};
}

}  // namespace cudavision
