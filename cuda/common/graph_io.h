/* cudavision — what a captured graph exchanges with the host each frame:
 * its arguments in (copy_args), its done word out (mark_done).
 *
 * One graph serves every frame of an element (captured_graphs.h), so what
 * changes per frame (the frame's and the output's pointers) cannot be a
 * kernel parameter: the host writes it into a small page-locked block
 * before each launch and the graph's first node brings it to the device,
 * where its kernels read it.
 *
 * That first node is a kernel (copy_args), not a memcpy node: a memcpy
 * node runs on a copy engine, so the graph's launch also orders the copy
 * engine and the compute engine, which measured several µs of host time
 * per launch in a paced pipeline (docs/RELIABILITY.md); a one-warp kernel
 * reading the page-locked block through its device mapping keeps the
 * whole graph on the compute engine. */
#pragma once

#include "cuda_raii.h"

#include <atomic>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace cudavision {

/* `host` (page-locked, written before each launch) and `device` (the
 * graph's copy, read by its kernels), `bytes` each, allocated once: both
 * or neither. */
CudaStatus ensure_args_buffers (PinnedBuffer & host, DeviceBuffer & device, size_t bytes);

/* Copies `bytes` from the page-locked `host` (allocated with
 * cudaMallocHost) to the device buffer `device`, as one kernel on
 * `stream`: the host block is read when the kernel runs, as a memcpy node
 * reads it, so it must stay unchanged until then. */
CudaStatus copy_args (void *device, const void *host, size_t bytes, cudaStream_t stream);

/* The done word: set to 1 by a one-thread kernel queued after a frame's
 * writes to page-locked memory (a kernel boundary: those writes were all
 * issued, and the bus keeps them in order), so that the host, holding the
 * frame a while (latency-frames=1), finds its results by reading a word
 * instead of querying an event (a driver call: 3-5 µs of a paced frame,
 * docs/RELIABILITY.md). `word` is page-locked (cudaMallocHost). */
CudaStatus mark_done (uint32_t *word, cudaStream_t stream);

/* Before the frame's launch (its word no longer read by an earlier one). */
inline void
clear_done (uint32_t *word)
{
  *reinterpret_cast<volatile uint32_t *> (word) = 0;
}

/* Whether mark_done's kernel ran: then the frame's other writes are there
 * to read. Else the caller waits on the frame's event (or wait_done). */
inline bool
done_seen (const uint32_t *word)
{
  if (*reinterpret_cast<const volatile uint32_t *> (word) != 1)
    return false;
  std::atomic_thread_fence (std::memory_order_acquire);
  return true;
}

/* Waits until the done word of work queued on `stream` is set, without
 * an event: while the word is not set it spins (as cudaEventSynchronize
 * does in CUDA's default scheduling), asking the stream (cudaStreamQuery)
 * now and then whether its work failed (that error is returned) or all
 * ended without setting it (an error too).
 * A frame graph with no event node of its own launches faster (an event
 * record node costs more than a kernel, docs/RELIABILITY.md); with a
 * frame held (latency-frames=1) the
 * word is usually set when the results are wanted, so the wait is rare. */
CudaStatus wait_done (const uint32_t *word, cudaStream_t stream);

}  // namespace cudavision
