/* cudavision — Otsu thresholding of GRAY8 frames on the GPU (cudaotsu).
 *
 * Fidelity: the threshold is the one cv::threshold (src, dst, 0, 255,
 * THRESH_BINARY | THRESH_OTSU) returns (OpenCV 4.x getThreshVal_Otsu,
 * thresh.cpp), the output bit-exact: 255 where src > t, else 0 (swapped by
 * invert, THRESH_BINARY_INV).
 *
 * All on the device, no host round trip:
 *  1. otsu_threshold: one kernel. Every block builds per-warp histograms in
 *     shared memory (16-byte loads, runs of equal pixels counted once) and
 *     merges them into the 256-bin histogram in `state` with atomics; the
 *     last block to finish (a ticket counter) runs the Otsu search over the
 *     256 bins with one thread per bin, writes the threshold into `state`
 *     and zeroes the histogram and the counter for the next frame, so no
 *     memset is needed per frame.
 *  2. otsu_binarize: reads the threshold from `state` in device memory.
 *
 * The search. OpenCV's is a sequential double-precision recurrence
 * (q1 += p_i; mu1 = (mu1 * q1_prev + i * p_i) / q1; sigma = q1 q2 (mu1 -
 * mu2)^2, first maximum wins; bins with q1 or q2 below FLT_EPSILON
 * skipped), whose rounding decides near-ties, e.g. between thresholds
 * separated only by empty bins. The device reproduces it operation for
 * operation where that matters, and only there:
 *  - Fast path: which bins OpenCV skips, from exact integer counts
 *    (Q * 2^23 >= N and (N - Q) * 2^23 >= N); the sigma of every bin from
 *    exact integer moments (128-bit), a warp-shuffle arg-max. When the best
 *    bin beats every other by more than kOtsuTieMargin (far above OpenCV's
 *    accumulated rounding, about 1e-6 in sigma) and no skip decision is
 *    within OpenCV's rounding of its boundary, OpenCV's rounding cannot
 *    change the result: done.
 *  - Otherwise (ties, flat histograms, boundary cases, forced by the
 *    caller): the exact recurrence in one thread, q1 and mu1 exactly as
 *    OpenCV computes them (no FMA contraction), then sigma per bin in
 *    parallel in OpenCV's operation order and the first-maximum arg-max.
 * otsu_threshold_host runs the same algorithm on the CPU: tests check it
 * against OpenCV without a GPU. */
#pragma once

#include "../common/cuda_check.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <cstdint>

namespace cudavision {

/* Device-resident state of one element instance (one stream). Zero it
 * once with otsu_state_init; the kernels keep it clean afterwards. */
struct OtsuDeviceState {
  uint32_t hist[256];
  uint32_t blocks_done;  /* ticket counter of the histogram kernel */
  uint32_t threshold;    /* the last frame's threshold, 0..254 */
  uint32_t used_exact;   /* 1 when the last search needed the exact recurrence */
  uint32_t pad;
};

/* What otsu_copy_result brings to the host (put it in pinned memory). */
struct OtsuResult {
  uint32_t threshold;
  uint32_t used_exact;
};

/* Minimum lead of the best sigma over any other bin for the fast path. */
constexpr double kOtsuTieMargin = 1e-4;

const KernelTraits & otsu_histogram_traits ();
const KernelTraits & otsu_binarize_traits ();

/* Zeroes `state` (device memory) on `stream`. */
CudaStatus otsu_state_init (OtsuDeviceState * state, cudaStream_t stream);

/* Histogram and Otsu search of `src`; the threshold lands in
 * state->threshold. `force_exact` skips the fast path (tests). */
CudaStatus otsu_threshold (ConstImage8 src, OtsuDeviceState * state, const LaunchPolicy & policy,
    cudaStream_t stream, bool force_exact = false);

/* dst = src > threshold ? 255 : 0 (inverted with `invert`), the threshold
 * read from device memory. `dst` may alias `src`. */
CudaStatus otsu_binarize (ConstImage8 src, Image8 dst, const OtsuDeviceState * state, bool invert,
    const LaunchPolicy & policy, cudaStream_t stream);

/* Queues the copy of the threshold to `host` (pinned) on `stream`; the
 * caller waits on an event recorded after it before reading. */
CudaStatus otsu_copy_result (const OtsuDeviceState * state, OtsuResult * host, cudaStream_t stream);

/* The same search on the host, from a histogram (N = sum of the bins).
 * Sets *used_exact like the device does. */
int otsu_threshold_host (const uint32_t hist[256], bool force_exact = false, bool *used_exact = nullptr);

}  // namespace cudavision
