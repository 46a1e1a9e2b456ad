/* cudavision benchmarks — timing helpers: CUDA events around each launch,
 * the median of many runs after warm-up, inputs rotated through a set
 * larger than L2 so that large frames are timed from device memory. */
#pragma once

#include "../cuda/common/cuda_raii.h"
#include "../cuda/policy/launch_policy.h"

#include <functional>
#include <string>
#include <vector>

namespace cvbench {

struct Timing {
  double median_us = 0;
  double p10_us = 0;
  double p90_us = 0;
};

/* Runs `launch(i)` (i = iteration, for rotating inputs) `warmup` times,
 * then `iters` times between events; returns the distribution. */
Timing time_launches (cudaStream_t stream, int warmup, int iters, const std::function<void (int)> & launch);

/* The same for part of what `launch` queues: it gets the two timing events
 * (null during warm-up) and records them itself, around the part to time
 * (cudavision-tune times one kernel of a launcher that queues several). */
Timing time_segments (cudaStream_t stream, int warmup, int iters,
    const std::function<void (int, cudaEvent_t start, cudaEvent_t stop)> & launch);

/* The distribution of the times between events [2i] and [2i + 1], all
 * recorded and completed. */
Timing event_timing (const std::vector<cudavision::Event> & events);

/* How many copies of a `bytes` input make a set at least 3x the L2 size. */
int rotation_count (size_t bytes);

/* Device buffers filled with seeded random bytes. */
std::vector<cudavision::DeviceBuffer> random_buffers (int count, size_t bytes, unsigned seed);

/* Device-to-device copy bandwidth in GB/s (bytes read + written), of
 * `bytes` per copy, rotating over buffers larger than L2. */
double copy_bandwidth_gbs (cudaStream_t stream, size_t bytes, int iters, double * median_us = nullptr);

cudavision::BlockSizing parse_mode (const std::string & s);

void check (cudaError_t e, const char *what);

}  // namespace cvbench
