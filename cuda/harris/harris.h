/* cudavision — Harris and Shi-Tomasi corners on the GPU (cudaharris).
 *
 * Fidelity: the response map is cv::cornerHarris / cv::cornerMinEigenVal
 * (same blockSize, ksize, k, BORDER_REFLECT_101) in float arithmetic
 * (harris_math.h); the corner list is cv::goodFeaturesToTrack's (same
 * quality level, min distance, max corners, useHarrisDetector, k,
 * blockSize, gradientSize = aperture).
 *
 * Steps of a detection (CornerDetector::detect):
 *  1. corner_response: one kernel per frame. A block owns a 32x32 tile: it
 *     loads the source tile with its halo into shared memory (the luma of
 *     4-byte RGB computed on load), Sobel derivatives exact in integers,
 *     products, the separable unnormalized box sum and the response; the
 *     frame maximum is reduced with warp shuffles, one atomicMax per block.
 *  2. corner_candidates: threshold at quality x maximum (read on the device)
 *     and the 3x3 local-maximum test of goodFeaturesToTrack; candidates are
 *     compacted into a key list with one atomicAdd per coalesced group.
 *  3. cub::DeviceRadixSort sorts the keys (response, then raster index) in
 *     goodFeaturesToTrack's order.
 *  4. The host reads the sorted list and runs the greedy min-distance pass
 *     (corner_select.h): sequential by nature, over a list far shorter than
 *     the frame, which has to reach the host for the buffer meta anyway.
 * Two waits on the stream per frame: the candidate count (the sort needs it
 * on the host) and the sorted list. */
#pragma once

#include "corner_params.h"
#include "corner_select.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "harris_math.h"
#include "../common/image.h"
#include "../policy/launch_policy.h"

#include <cstdint>
#include <vector>

namespace cudavision {

using ImageF = ImageView<float>;

/* The frame to detect on: GRAY8, or a 4-byte packed RGB layout whose luma
 * (cv::cvtColor's fixed-point BT.601, gray_weights.h) is computed as the
 * tiles load. */
struct CornerInput {
  ConstImage8 image;
  bool gray = true;
  PackedRgb layout = PackedRgb::RGBA; /* when !gray: a 4-byte layout */
};

const KernelTraits & corner_response_traits ();   /* fixed 32x8: the shared-memory tile */
const KernelTraits & corner_candidates_traits ();
const KernelTraits & corner_normalize_traits ();
const KernelTraits & corner_draw_traits ();

/* The response map alone, into `dst` (device, float, the input's size).
 * When `max_ordered` is set (a device word the caller zeroed), the frame
 * maximum is folded into it as float_to_ordered. Asynchronous on `stream`. */
CudaStatus corner_response (const CornerInput & in, ImageF dst, const CornerParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, uint32_t * max_ordered = nullptr);

/* dst = saturate_cast<uchar> (r * (float) (255 / max)), 0 everywhere when
 * max <= 0: the response normalized by the frame maximum, as
 * response.convertTo (dst, CV_8U, 255.0 / max) does. `max_ordered` is read
 * on the device. Asynchronous. */
CudaStatus corner_normalize (ImageView<const float> response, const uint32_t * max_ordered, Image8 dst,
    const LaunchPolicy & policy, cudaStream_t stream);

/* Full detection with its device scratch, kept between frames; create and
 * use it with the element's context current, release it the same way. */
class CornerDetector {
public:
  /* Detects on `in` and waits on `stream` for the list (strongest first).
   * The response map and its maximum stay on the device for
   * normalized_response until the next call. */
  CudaStatus detect (const CornerInput & in, const CornerDetectParams & p, const LaunchPolicy & policy,
      cudaStream_t stream, std::vector<Corner> * corners);

  /* The last detection's response normalized into `dst` (GRAY8, same size).
   * Asynchronous. */
  CudaStatus normalized_response (Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const;

  /* Marks `corners` on `frame` (corner_marker.h): red on a 4-byte RGB
   * layout, white on GRAY8. Asynchronous; the list goes through pinned
   * memory that the next detect (which waits on the stream) may reuse. */
  CudaStatus draw (Image8 frame, bool gray, PackedRgb layout, const std::vector<Corner> & corners,
      const LaunchPolicy & policy, cudaStream_t stream);

  /* The last frame's response map on the device. */
  ImageF response () const { return response_view_; }
  /* Candidates of the last frame before the min-distance pass. */
  size_t candidate_count () const { return candidates_; }

  void release ();

private:
  DeviceBuffer response_;
  DeviceBuffer scalars_; /* [0] max (ordered), [1] candidate count */
  DeviceBuffer keys_, sorted_, sort_temp_;
  DeviceBuffer draw_list_;
  PinnedBuffer host_scalars_, host_keys_, host_draw_;
  size_t key_capacity_ = 0;
  size_t sort_temp_bytes_ = 0;
  ImageF response_view_;
  size_t candidates_ = 0;
};

}  // namespace cudavision
