/* cudavision — pyramidal Lucas-Kanade optical flow on the GPU (cudaflow).
 *
 * Fidelity: cv::calcOpticalFlowPyrLK on 8-bit frames (flow_math.h has the
 * arithmetic): pyramids as cv::buildOpticalFlowPyramid builds them (pyrDown,
 * bit-exact), Scharr derivatives of the previous frame as calcScharrDeriv
 * computes them (bit-exact int16), then OpenCV's tracker per point with its
 * fixed-point bilinear weights, stopping rules and status. The window sums
 * are exact integers where OpenCV sums floats, so points match OpenCV to
 * float rounding, not bit for bit.
 *
 * Steps of a frame:
 *  1. FlowPyramid::build (flow_pyramid.cu): level 0 is the frame's luma
 *     (cudagray's kernel, bit-exact to cvtColor) or a copy of GRAY8; levels
 *     1..L by a pyrDown kernel; the Scharr derivatives of every level (Ix
 *     and Iy as an int16 pair), kept for when this frame is the previous
 *     one. Both kernels make 4 pixels a thread from aligned word loads.
 *  2. flow_track_points / flow_track_grid: one launch for all points and
 *     all levels. One warp per point (lk_window.cuh): the window is cut
 *     into runs of 4 samples, each lane owns a few runs and keeps their Ix,
 *     Iy in registers for the level; a run's bilinear samples are word
 *     loads, byte permutes and dp2a instructions, and the 2x2 system and
 *     the mismatch vector are summed with the hardware's warp reduction,
 *     so every lane holds the totals and runs the same scalar update: no
 *     shared memory, no block barrier, and nothing goes back to the host
 *     between iterations or levels. Blocks hold any number of whole warps;
 *     warps walk the points with a grid stride.
 *
 * No GStreamer here: plain pointers, pitches, sizes and a stream. */
#pragma once

#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "flow_params.h"
#include "../harris/harris.h" /* CornerInput: GRAY8 or a 4-byte RGB layout */
#include "../common/image.h"
#include "../policy/launch_policy.h"

#include <cstdint>
#include <vector>

namespace cudavision {

const KernelTraits & flow_pyrdown_traits ();
const KernelTraits & flow_scharr_traits ();
const KernelTraits & flow_lk_traits ();    /* x-only; threads rounded up to whole warps */
const KernelTraits & flow_color_traits ();
const KernelTraits & flow_draw_traits ();  /* one thread per point */

/* A frame's pyramid on the device: levels 0..levels()-1 of GRAY8 and
 * their Scharr derivatives (pack_deriv's int16 pairs, 4 bytes a pixel).
 * Create, use and release it with the element's context current. */
class FlowPyramid {
public:
  /* Builds the pyramid of `frame` for `window` and `max_level` (the level
   * count is flow_pyramid_levels'). Asynchronous on `stream`. */
  CudaStatus build (const CornerInput & frame, int window, int max_level, const LaunchPolicy & policy,
      cudaStream_t stream);

  int levels () const { return levels_; }
  int width () const { return levels_ ? level_[0].width : 0; }
  int height () const { return levels_ ? level_[0].height : 0; }
  ConstImage8 level (int l) const { return { level_[l].data, level_[l].pitch, level_[l].width, level_[l].height }; }
  ImageView<const uint32_t> deriv (int l) const
  {
    return { deriv_[l].data, deriv_[l].pitch, deriv_[l].width, deriv_[l].height };
  }
  /* The pyramid was built for this window (levels depend on it). */
  int window () const { return window_; }

  void release ();

private:
  CudaStatus allocate (int width, int height, int levels, cudaStream_t stream);

  DeviceBuffer images_, derivs_;
  Image8 level_[kFlowMaxLevel + 1];
  ImageView<uint32_t> deriv_[kFlowMaxLevel + 1];
  int levels_ = 0;
  int window_ = 0;
  size_t images_bytes_ = 0, derivs_bytes_ = 0;
};

/* Sparse LK from `prev` to `next` (pyramids of one size, built for
 * p.window): `n` points at prev_xy (device, x y pairs); points whose
 * `alive` byte is 0 (when alive is not null) are skipped with status 0 and
 * next = prev. Writes next_xy and status (1 tracked, 0 lost, OpenCV's
 * status; with `clip_to_frame` also 0 when the result is outside the frame,
 * flow_in_frame). The level count is the smaller of the two pyramids'.
 * Asynchronous. */
CudaStatus flow_track_points (const FlowPyramid & prev, const FlowPyramid & next, const float *prev_xy,
    const uint8_t *alive, int n, float *next_xy, uint8_t *status, const FlowParams & p, bool clip_to_frame,
    const LaunchPolicy & policy, cudaStream_t stream);

/* Dense LK: the same tracker on flow_grid_point's grid of `step` pixels
 * (flow_grid_cols x flow_grid_rows points); the grid points go to prev_xy.
 * Asynchronous. */
CudaStatus flow_track_grid (const FlowPyramid & prev, const FlowPyramid & next, int step, float *prev_xy,
    float *next_xy, uint8_t *status, const FlowParams & p, bool clip_to_frame, const LaunchPolicy & policy,
    cudaStream_t stream);

/* output=flow-color: every pixel of `dst` (RGBA, the frame's size) gets
 * flow_color_rgb of its grid cell's vector, black where the cell's point
 * was lost; alpha 255. Asynchronous. */
CudaStatus flow_color (const float *prev_xy, const float *next_xy, const uint8_t *status, int step, float max_flow,
    Image8 dst, const LaunchPolicy & policy, cudaStream_t stream);

/* draw=true: the motion vectors of the tracked points (flow_draw.h), then
 * with `markers` a red cross (corner_marker.h) at each current position;
 * white on GRAY8. Asynchronous. */
CudaStatus flow_draw (Image8 frame, bool gray, PackedRgb layout, const float *prev_xy, const float *next_xy,
    const uint8_t *status, int n, bool markers, const LaunchPolicy & policy, cudaStream_t stream);

/* cudaflow's device state between frames: the pyramids of the previous and
 * the current frame, the tracked points (positions and alive flags, kept on
 * the device from frame to frame) and the last results. */
class FlowSession {
public:
  /* Builds the pyramid of a new frame; the one before becomes the
   * previous frame. Asynchronous. */
  CudaStatus push_frame (const CornerInput & frame, const FlowParams & p, const LaunchPolicy & policy,
      cudaStream_t stream);
  /* A previous frame of the same size and window exists. */
  bool has_previous () const { return has_prev_; }
  /* Forgets the previous frame and the points (flush, gap, new caps). */
  void reset ();

  /* Replaces the points (after a detection): uploads them, all alive.
   * Call it after draw / color: the results they paint are overwritten. */
  CudaStatus set_points (const std::vector<float> & xy, cudaStream_t stream);
  int point_count () const { return n_; }

  /* Tracks the points from the previous to the current frame, keeps the
   * results on the device as the next frame's points, and downloads them:
   * waits on `stream`. `out` gets one vector per point alive before the
   * call, in the order set_points gave them. */
  CudaStatus track_sparse (const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
      std::vector<FlowVector> * out);
  /* The grid of `step` pixels; waits on `stream`; `out` gets every grid
   * point in raster order. */
  CudaStatus track_dense (int step, const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
      std::vector<FlowVector> * out);

  /* The last track_* results drawn on `frame` or as flow-color in `dst`. */
  CudaStatus draw (Image8 frame, bool gray, PackedRgb layout, bool markers, const LaunchPolicy & policy,
      cudaStream_t stream) const;
  CudaStatus color (int step, float max_flow, Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const;

  void release ();

private:
  CudaStatus ensure_points (int n);
  CudaStatus download (int n, int prev_buf, int next_buf, cudaStream_t stream, std::vector<FlowVector> * out,
      bool only_alive);

  FlowPyramid pyr_[2];
  int cur_ = 0;          /* pyr_[cur_] is the current frame's */
  bool built_ = false;   /* pyr_[cur_] holds a frame since the last reset */
  bool has_prev_ = false;
  /* Two point lists (x y pairs) with a flag byte per point: the list to
   * track is pts_[in_] (flags: alive); a track writes the other one
   * (flags: status) and makes it the list to track next. */
  DeviceBuffer pts_[2], flags_[2];
  int in_ = 0;
  int capacity_ = 0;
  int n_ = 0;                   /* points in the lists */
  int last_prev_ = 0, last_next_ = 1, last_n_ = 0; /* the last track_*'s lists and size */
  PinnedBuffer host_;
  std::vector<uint8_t> alive_host_; /* the flags of pts_[in_], mirrored */
};

}  // namespace cudavision
