/* cudavision — Harris and Shi-Tomasi corners on the GPU (cudaharris).
 *
 * Fidelity: the response map is cv::cornerHarris / cv::cornerMinEigenVal
 * (same blockSize, ksize, k, BORDER_REFLECT_101) in float arithmetic
 * (harris_math.h), bit for bit the host model of the tests; the corner list
 * is cv::goodFeaturesToTrack's on that map (same quality level, min
 * distance, max corners, useHarrisDetector, k, blockSize, gradientSize =
 * aperture), identical positions, order and scores.
 *
 * Steps of a detection (CornerDetector::enqueue), all queued on the
 * element's stream:
 *  1. harris.response (corner_response.cu): registers and warp shuffles,
 *     a warp per strip of columns; the frame maximum by one atomicMax per
 *     block;
 *  2. the selection (corner_selection.h): candidates per cell sorted in
 *     shared memory, the greedy minimum-distance pass by cells in parallel
 *     (corner_cells.h), the kept corners ordered, the first max_corners
 *     written to pinned host memory by the last kernel.
 * The host waits once, in collect (), for that list. */
#pragma once

#include "../../core/harris/corner_params.h"
#include "../../core/harris/corner_select.h"
#include "corner_selection.h"
#include "../../core/draw/canvas.h"
#include "../common/captured_graphs.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "../common/luma.h"
#include "harris_math.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <cstdint>
#include <vector>

namespace cudavision {

using ImageF = ImageView<float>;

/* The frame to detect on (LumaInput, luma.h): a packed RGB layout's luma
 * (cv::cvtColor's fixed-point BT.601, gray_weights.h) is computed as the
 * tiles load (4-byte layouts; a 3-byte one is converted first by
 * CornerDetector::enqueue). corner_response takes GRAY8 and 4-byte
 * layouts only. */
const KernelTraits & harris_response_traits ();   /* fixed: 4 warps, each a strip of rows */
const KernelTraits & harris_normalize_traits ();
const KernelTraits & harris_draw_traits ();

/* The response map alone, into `dst` (device, float, the input's size).
 * When `max_ordered` is set (a device word the caller zeroed), the frame
 * maximum is folded into it as float_to_ordered. Asynchronous on `stream`. */
CudaStatus corner_response (const LumaInput & in, ImageF dst, const CornerParams & p, const LaunchPolicy & policy,
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
  /* Queues the whole detection of `in` on `stream` and returns at once.
   * The response map and its maximum stay on the device (normalized_response,
   * draw_detected) until the next call; collect () gives the list. With
   * `copy` the frame's plane 0 is first copied there, in the same graph
   * (its pointers read from memory when it runs, so that the graph does
   * not depend on the output buffer): cudaharris's passthrough output;
   * with `draw` too (the copy's canvas: its format and colour; single-plane
   * canvases only) the corners are marked on the copy in that graph
   * (draw_detected then draws nothing for this frame). */
  CudaStatus enqueue (const LumaInput & in, const CornerDetectParams & p, const LaunchPolicy & policy,
      cudaStream_t stream, const Image8 * copy = nullptr, const Canvas * draw = nullptr);

  /* Waits for the last enqueue's list (strongest first). The list's
   * one copy to the host is done by the GPU, into pinned memory; only when
   * it outgrew that buffer (the first frames) a second copy follows. */
  CudaStatus collect (std::vector<Corner> * corners);

  /* enqueue, then collect. */
  CudaStatus detect (const LumaInput & in, const CornerDetectParams & p, const LaunchPolicy & policy,
      cudaStream_t stream, std::vector<Corner> * corners);

  /* The selection alone, on a response map the caller made (tests:
   * adversarial maps); `max_response` is its maximum. Then collect (). */
  CudaStatus enqueue_selection (ImageView<const float> response, float max_response, const CornerDetectParams & p,
      const LaunchPolicy & policy, cudaStream_t stream);

  /* The last detection's response normalized into `dst` (GRAY8, same size).
   * Asynchronous. */
  CudaStatus normalized_response (Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const;

  /* Marks the last enqueued detection's corners (corner_marker.h) on a
   * frame's canvas from the device list, without waiting for it.
   * Asynchronous. */
  CudaStatus draw_detected (const Canvas & canvas, const LaunchPolicy & policy, cudaStream_t stream);

  /* Marks `corners` (a host list) on a frame's canvas. Asynchronous; the
   * list goes through pinned memory that the next draw (after a wait on
   * the stream) may reuse. */
  CudaStatus draw (const Canvas & canvas, const std::vector<Corner> & corners, const LaunchPolicy & policy,
      cudaStream_t stream);

  /* The last enqueue's list on the device (strongest first) and its
   * length (device), for consumers on the same stream that need not see
   * it on the host (cudaflow's points); at most list_capacity () corners.
   * Null and 0 for a frame without interior pixels (no list). */
  const Corner *device_list () const { return empty_ ? nullptr : selection_.device_list (); }
  const uint32_t *device_count () const { return empty_ ? nullptr : selection_.device_count (); }
  size_t list_capacity () const { return empty_ ? 0 : selection_.capacity (); }

  /* The last frame's response map on the device. */
  ImageF response () const { return response_view_; }
  /* Candidates (after the 3x3 test) of the last collected frame. */
  size_t candidate_count () const { return candidates_; }

  /* Tests: force one ordering path, or one step-2 path, of the selection. */
  void force_order (CornerOrder o) { selection_.force_order (o); forced_order_ = o; }
  void force_path (CornerSelectPath p) { selection_.force_path (p); forced_path_ = p; }

  void release ();

private:
  CudaStatus enqueue_list (const CornerDetectParams & p, const LaunchPolicy & policy, cudaStream_t stream);
  CudaStatus prepare_list ();
  CudaStatus launch_selection (const CornerDetectParams & p, const LaunchPolicy & policy,
      cudaStream_t stream);
  /* the list's event recorded (`record`: here; else the caller did) */
  CudaStatus list_queued (cudaStream_t stream, bool record = true);

  DeviceBuffer response_;
  DeviceBuffer scalars_; /* [0] the maximum (float_to_ordered) */
  CornerSelection selection_;
  PinnedBuffer host_list_; /* CornerListHeader, then the corners */
  size_t host_capacity_ = 0;
  Event listed_;           /* recorded after the list's kernel */
  cudaStream_t stream_ = nullptr;
  bool pending_ = false;   /* an enqueue to collect */
  bool empty_ = false;     /* that enqueue lists nothing (frame under 3x3) */
  DeviceBuffer draw_list_; /* draw (): count, then the corners */
  DeviceBuffer luma_;      /* a 3-byte RGB frame's luma */
  PinnedBuffer host_draw_;
  ImageF response_view_;
  size_t candidates_ = 0;
  CapturedGraphs graphs_;  /* enqueue's launches, replayed */
  /* enqueue's copy: its pointers, written by the host (args_) and copied
   * to the device by the graph (dargs_); busy until that enqueue is
   * collected (the GPU may not have read them yet) */
  PinnedBuffer args_;
  DeviceBuffer dargs_;
  bool args_busy_ = false;
  bool drawn_ = false;     /* the last enqueue marked its corners on its copy */
  /* the test hooks' choices, part of the graphs' key */
  CornerOrder forced_order_ = CornerOrder::Auto;
  CornerSelectPath forced_path_ = CornerSelectPath::Auto;
};

}  // namespace cudavision
