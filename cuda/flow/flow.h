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
 *     (cvtColor's fixed-point weights, bit-exact) or a copy of GRAY8, in
 *     one kernel that can also copy the frame to the element's output
 *     (cudagray's, cuda/common/luma.h luma_and_copy, one row a thread);
 *     levels 1..L by a pyrDown kernel; the Scharr derivatives of every
 *     level (Ix and Iy as an int16 pair), kept for when this frame is the
 *     previous one. The kernels make 4 pixels a thread from aligned word
 *     loads.
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
 *  3. FlowSession (cudaflow's state): the point lists stay on the device,
 *     their length too (a detection's count never reaches the host before
 *     the tracking that uses it); a frame's results are written by one
 *     kernel straight into pinned host memory as the GstCvFlowMeta vectors:
 *     a block of a HostBlockPool per frame, which the meta then holds
 *     without a copy (the header: one slot per frame parity), and an event
 *     says when they are there.
 *     The pyramid's upper levels, the tracking and that copy are replayed
 *     from captured graphs (captured_graphs.h): one launch a frame.
 *
 * No GStreamer here: plain pointers, pitches, sizes and a stream. */
#pragma once

#include "../common/captured_graphs.h"
#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "../common/host_block_pool.h"
#include "../../core/draw/flow_draw.h"
#include "../../core/flow/flow_params.h"
#include "../common/luma.h" /* LumaInput, LumaCopyArgs: level 0 is the luma kernel */
#include "../../core/harris/corner_select.h" /* Corner */
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace cudavision {

const KernelTraits & flow_input_traits ();  /* level 0 (and the frame copy) */
const KernelTraits & flow_pyrdown_traits ();
const KernelTraits & flow_scharr_traits ();
const KernelTraits & flow_lk_traits ();    /* x-only; threads rounded up to whole warps */
const KernelTraits & flow_color_traits ();
const KernelTraits & flow_draw_traits ();  /* one thread per point */

/* Where the input kernel (luma_and_copy's) finds the frame (and the
 * copy), when it reads them on the device (FlowPyramid::build_input_from). */
using FlowInputArgs = LumaCopyArgs;

/* FlowSession's results blocks outstanding at most (the frames in flight
 * and their metas downstream); beyond, a frame's vectors are written into
 * its slot and the meta copies them. */
constexpr size_t kFlowResultBlocks = 16;

/* A frame's pyramid on the device: levels 0..levels()-1 of GRAY8 and
 * their Scharr derivatives (pack_deriv's int16 pairs, 4 bytes a pixel).
 * Create, use and release it with the element's context current. */
class FlowPyramid {
public:
  /* Builds the pyramid of `frame` for `window` and `max_level` (the level
   * count is flow_pyramid_levels'). Asynchronous on `stream`. */
  CudaStatus build (const LumaInput & frame, int window, int max_level, const LaunchPolicy & policy,
      cudaStream_t stream);

  /* build () in parts, for callers that queue a frame's work as one
   * graph: prepare () sizes the levels (it may allocate; nothing is
   * launched), then level 0 from the frame (with `copy`, the frame is also
   * copied there, bytes as they are, by the same kernel): build_input
   * with the frame's pointers as arguments, or build_input_from with
   * them read from `args` on the device when the kernel runs (a graph
   * replayed for every frame); then build_levels () for levels 1.. and
   * every level's derivatives. build_input_from needs input_vectorizable
   * () for the frame and the copy. */
  CudaStatus prepare (const LumaInput & frame, int window, int max_level, cudaStream_t stream);
  CudaStatus build_input (const LumaInput & frame, const Image8 * copy, const LaunchPolicy & policy,
      cudaStream_t stream);
  CudaStatus build_input_from (const FlowInputArgs * args, bool gray, PackedRgb layout, bool copy,
      const LaunchPolicy & policy, cudaStream_t stream);
  CudaStatus build_levels (const LaunchPolicy & policy, cudaStream_t stream);
  /* The frame (and the copy) allow the input kernel's word loads. */
  static bool input_vectorizable (const LumaInput & frame, const Image8 * copy);
  /* The frame's and the copy's pointers as the input kernel takes them. */
  static FlowInputArgs input_args (const LumaInput & frame, const Image8 * copy);
  /* prepare, then build_input. */
  CudaStatus build_base (const LumaInput & frame, int window, int max_level, const LaunchPolicy & policy,
      cudaStream_t stream, const Image8 * copy = nullptr);

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
 * With `count` (device), the points are the first min (*count, n) and that
 * number is written to `count_out` (device, may be null): the grid is
 * sized for n. Asynchronous. */
CudaStatus flow_track_points (const FlowPyramid & prev, const FlowPyramid & next, const float *prev_xy,
    const uint8_t *alive, int n, float *next_xy, uint8_t *status, const FlowParams & p, bool clip_to_frame,
    const LaunchPolicy & policy, cudaStream_t stream, const uint32_t *count = nullptr,
    uint32_t *count_out = nullptr);

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

/* draw=true: the motion vectors of the tracked points (flow_draw.h) on
 * the overlay's lines canvas, then with `markers` a cross
 * (corner_marker.h) at each current position on its markers canvas. With
 * `count` (device) the first min (*count, n) points. Asynchronous. */
CudaStatus flow_draw (const FlowOverlay & overlay, const float *prev_xy, const float *next_xy, const uint8_t *status,
    int n, bool markers, const LaunchPolicy & policy, cudaStream_t stream, const uint32_t *count = nullptr);
/* The same on the frame that `target` (device memory) names as its copy
 * (LumaCopyArgs::copy, copy_pitch), read when the kernel runs: the
 * canvases (single-plane ones) give the format, size and colours. */
CudaStatus flow_draw_to (const FlowInputArgs * target, const FlowOverlay & overlay, const float *prev_xy,
    const float *next_xy, const uint8_t *status, int n, bool markers, const LaunchPolicy & policy,
    cudaStream_t stream, const uint32_t *count = nullptr);

/* What a frame's results slot (host memory) starts with; the vectors
 * (FlowVector, the layout of GstCvFlowVector) are in a block of their own
 * (FlowSession::results), or follow when the pool had none left. */
struct FlowResultsHeader {
  uint32_t count;   /* vectors that follow */
  uint32_t tracked; /* sparse: of them, status 1 */
  uint32_t listed;  /* sparse: points in the list tracked (alive or not) */
  uint32_t done;    /* 1 once the GPU wrote it all (the host zeroes it before) */
};


/* cudaflow's device state between frames: the pyramids of the previous and
 * the current frame, the tracked points (positions, alive flags and their
 * number, kept on the device from frame to frame), and the results of the
 * last two frames in pinned host memory (one slot per frame parity, so that
 * a held frame's results survive the next frame's tracking): the header in
 * the slot, the vectors in a block of a HostBlockPool that results () can
 * hand over (the meta keeps it, so no later frame writes it), else in the
 * slot. The graph reads the block's address from the frame's arguments,
 * so one graph serves whichever block a frame gets.
 *
 * A frame: push_frame, then (sparse) set_points to replace the points,
 * then enqueue_sparse or enqueue_dense, draw / color; results (slot) waits
 * for that frame's vectors. Nothing waits for the GPU before results ().
 * track_sparse / track_dense are enqueue + results for callers that want
 * the vectors at once. */
class FlowSession {
public:
  /* A new frame: its pyramid; the one before becomes the previous frame.
   * With `copy` the frame is also copied there (same kernel as level 0).
   * With `defer` nothing is launched yet: the next enqueue_* builds the
   * pyramid (inside its graph, the frame's pointers passed through
   * memory); the frame and `copy` must stay valid until then.
   * Asynchronous. */
  CudaStatus push_frame (const LumaInput & frame, const FlowParams & p, const LaunchPolicy & policy,
      cudaStream_t stream, const Image8 * copy = nullptr, bool defer = false);
  /* A previous frame of the same size and window exists. */
  bool has_previous () const { return has_prev_; }
  /* Forgets the previous frame and the points (flush, gap, new caps). */
  void reset ();
  /* The previous frame's level 0 (its luma, GRAY8): what a detection for
   * the next tracking runs on. */
  LumaInput previous_luma () const;
  /* The results slot of the current frame (push_frame's). */
  int frame_slot () const { return cur_; }

  /* Replace the points the next tracking starts from, all alive:
   * from a host list (through pinned memory; asynchronous), or from a
   * corner list on the device with its count (CornerDetector's
   * device_list, device_count and list_capacity: the last enqueued
   * detection; a null count is an empty list). Call
   * them after draw / color of the frame before: the lists they paint from
   * are overwritten. */
  CudaStatus set_points (const std::vector<float> & xy, cudaStream_t stream);
  CudaStatus set_points (const Corner * list, const uint32_t * count, size_t capacity, cudaStream_t stream);

  /* Queues the rest of the current frame's pyramid, the tracking from the
   * previous frame (none without one) and the results' copy into the
   * frame's slot; no wait. Sparse: the points' results become the points
   * of the next frame; the slot gets one vector per point alive before,
   * in set_points' order. Dense: the grid of `step` pixels in raster
   * order. */
  /* With `draw` (the copy's canvases: format and colours) the vectors are
   * also drawn on the frame's copy (as draw () does: push_frame's `copy`,
   * deferred), inside the frame's graph where the copy is made there and
   * is the whole frame (a single-plane canvas; its pointer read from the
   * frame's arguments, like the frame's): one launch a frame instead of
   * two or three; draw () then draws nothing for this frame. */
  CudaStatus enqueue_sparse (const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
      const FlowOverlay * draw = nullptr);
  CudaStatus enqueue_dense (int step, const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
      const FlowOverlay * draw = nullptr);

  /* Waits for `slot`'s results (no CUDA call when the GPU has written
   * them: FlowResultsHeader::done); `head` stays valid until the slot's
   * next enqueue, `vectors` too unless `block` takes them: then *block is
   * the block `vectors` is in, now the caller's (it goes back to the pool
   * when released, from any thread, even after release ()), or null when
   * the vectors are in the slot (no block was left: copy them). Once the
   * block is taken, later calls for the slot give no vectors (null). */
  CudaStatus results (int slot, const FlowResultsHeader ** head, const FlowVector ** vectors,
      HostBlockPtr * block = nullptr);
  /* Where results blocks come from (by default PinnedHostMemory in the
   * context current at each call): the element's keeps its CUDA context
   * alive and current while a block exists. Set it before the first
   * enqueue (the pool is made then), and again after release (), which
   * forgets it. */
  void set_block_memory (std::shared_ptr<HostBlockMemory> memory) { block_memory_ = std::move (memory); }
  bool has_block_memory () const { return block_memory_ != nullptr; }

  /* enqueue_*, then results into `out`. */
  CudaStatus track_sparse (const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
      std::vector<FlowVector> * out);
  CudaStatus track_dense (int step, const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
      std::vector<FlowVector> * out);

  /* The last enqueue's results drawn on `frame` (unless its graph drew
   * them: enqueue_sparse's and enqueue_dense's `draw`) or as flow-color in
   * `dst`. */
  CudaStatus draw (const FlowOverlay & overlay, bool markers, const LaunchPolicy & policy, cudaStream_t stream) const;
  CudaStatus color (int step, float max_flow, Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const;

  void release ();

private:
  CudaStatus ensure_points (int n, cudaStream_t stream);
  CudaStatus ensure_slot (int slot, size_t vectors);
  CudaStatus ensure_events ();
  CudaStatus collect (int slot, std::vector<FlowVector> * out);
  /* Before a frame's enqueue into `slot`: the frame two before, which used
   * the slot (and its input arguments), is done; the slot's header is
   * zeroed. Then the frame's level 0 source: true when the graph reads
   * the frame's pointers from args (written here), false when level 0 was
   * launched here directly (or needs nothing). */
  CudaStatus begin_slot (int slot, size_t vectors, cudaStream_t stream);
  CudaStatus input_for_graph (int slot, const LaunchPolicy & policy, cudaStream_t stream, bool * in_graph);
  /* Where the frame in `slot` gets its vectors (a block of the pool, else
   * the slot), written into its FlowFrameArgs for the graph to read. */
  void target_vectors (int slot, size_t vectors);
  /* The graph's launches after the tracking: the results' done word and
   * the slot's event. */
  CudaStatus finish_slot (int slot, cudaStream_t stream);
  /* A frame graph's key (flow_kernels.cu): the parameters, the pyramid's
   * shape and the session's state it was captured with; the mode's own
   * fields are the caller's. */
  struct FrameKey;
  /* begin_slot, then input_for_graph; `levels`: the pyramid's levels
   * above 0 are still to be queued (now taken). */
  CudaStatus begin_frame (int slot, size_t vectors, const LaunchPolicy & policy, cudaStream_t stream, bool * input,
      bool * levels);
  FrameKey frame_key (int mode, const FlowParams & p, int slot, bool input, bool levels) const;
  /* The frame's graph (replayed by key `k`): level 0 from the frame's
   * pointers (`input`, see input_for_graph), the levels above (`levels`),
   * the mode's launches (`track`), then finish_slot. */
  CudaStatus run_frame_graph (const FrameKey & k, int slot, bool input, bool levels, const LaunchPolicy & policy,
      cudaStream_t stream, const std::function<CudaStatus (cudaStream_t)> & track);

  FlowPyramid pyr_[2];
  int cur_ = 0;          /* pyr_[cur_] is the current frame's */
  bool built_ = false;   /* pyr_[cur_] holds a frame since the last reset */
  bool has_prev_ = false;
  bool levels_pending_ = false; /* pyr_[cur_]'s levels 1.. and derivatives are not queued yet */
  bool input_pending_ = false;  /* nor is its level 0: input_ / copy_ say from what */
  LumaInput input_;
  Image8 copy_;
  bool has_copy_ = false;
  /* What a frame's graph reads from memory, not from its nodes (so that
   * one graph serves every frame): the frame's pointers and where its
   * vectors go. */
  struct FrameArgs {
    FlowInputArgs input;
    FlowVector *vectors;
  };
  PinnedBuffer args_;           /* FrameArgs a slot, written by the host */
  DeviceBuffer dargs_;          /* their copy on the device, read by the kernels */
  /* Two point lists (x y pairs) with a flag byte per point and their
   * lengths (counts_[i], device): the list to track is in_ (flags:
   * alive); a track writes the other one (flags: status) and makes it the
   * list to track next. */
  DeviceBuffer pts_[2], flags_[2], counts_;
  int in_ = 0;
  int capacity_ = 0;
  bool has_points_ = false;     /* set_points since the last reset */
  int last_prev_ = 0, last_next_ = 1, last_n_ = 0; /* the last enqueue's lists, their size bound */
  bool drawn_ = false;                             /* and its vectors drawn in its graph */
  const uint32_t *last_count_ = nullptr;          /* and its device count (sparse) */
  /* results: a slot per frame parity, header then room for the vectors
   * (used when the pool has no block); its event; the frame's block */
  PinnedBuffer slots_[2];
  size_t slot_capacity_[2] = { 0, 0 };
  HostBlockPtr block_[2];
  const FlowVector *vectors_[2] = { nullptr, nullptr }; /* the frame's, null once taken */
  std::shared_ptr<HostBlockMemory> block_memory_;
  std::shared_ptr<HostBlockPool> pool_;
  Event done_[2];
  bool done_recorded_[2] = { false, false };
  /* set_points from the host: the list staged in pinned memory */
  PinnedBuffer staged_;
  Event staged_done_;
  bool staged_recorded_ = false;
  CapturedGraphs graphs_; /* enqueue_*'s launches, replayed */
};

}  // namespace cudavision
