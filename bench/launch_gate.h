/* cudavision benchmarks — a gate that holds a stream's queue while the
 * host enqueues a batch of timed launches, then lets them run back to
 * back (nvbench's blocking kernel). Without it a kernel of a few
 * microseconds is timed at the host's launch rate: its start event runs
 * as soon as it is queued and the GPU then waits for the kernel.
 *
 * A held gate ends by itself after `timeout_ms`, so that a launch that
 * waits on the stream (a detector reading its list back) costs time,
 * never a hang; release () says whether that happened. */
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cvbench {

class LaunchGate {
public:
  explicit LaunchGate (double timeout_ms = 20.0);
  ~LaunchGate ();
  LaunchGate (const LaunchGate &) = delete;
  LaunchGate & operator= (const LaunchGate &) = delete;

  /* False where the pinned flag could not be made: hold () and release ()
   * then do nothing. */
  bool ok () const { return words_ != nullptr; }
  /* Queues the spinning kernel on `stream`. */
  cudaError_t hold (cudaStream_t stream);
  /* Opens the gate. False when a gate gave up waiting since the last
   * release (the host waited on the stream while it was held). */
  bool release ();

private:
  volatile uint32_t *words_ = nullptr;  /* mapped pinned: [0] open generation, [1] timed-out generation */
  uint32_t *device_words_ = nullptr;
  uint32_t generation_ = 0;
  uint32_t timeouts_seen_ = 0;  /* words_[1] at the last release */
  uint64_t timeout_ns_;
};

}  // namespace cvbench
