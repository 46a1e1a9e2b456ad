/* cudavision — Lucas-Kanade tracking and drawing kernels, their launchers
 * and cudaflow's device state (flow.h describes the steps, flow_math.h the
 * arithmetic; the pyramids are flow_pyramid.cu's). */
#include "../../core/draw/corner_marker.h"
#include "flow.h"
#include "../../core/draw/flow_draw.h"
#include "flow_math.h"
#include "lk_window.h"
#include "../common/graph_io.h"
#include "../common/launch_util.cuh"

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>

namespace cudavision {
namespace {

/* ------------------------------------------------------------ tracking */

struct LkArgs {
  LkLevel level[kFlowMaxLevel + 1];
  LkConfig cfg;
  int width, height; /* level 0 */
  int step;          /* grid step (dense) */
  int clip;          /* flow_in_frame on the result */
};

/* One warp per point, grid-stride over the points (lk_window.h: the
 * window's layout on the warp). Sparse: in_xy and alive give the points;
 * dense (GRID): flow_grid_point does, and they are written to prev_out. */
template <int KS, bool GRID>
__global__ void
lk_kernel (const __grid_constant__ LkArgs a, const float2 *__restrict__ in_xy, const uint8_t *__restrict__ alive,
    float2 *__restrict__ prev_out, float2 *__restrict__ next_xy, uint8_t *__restrict__ status, int n,
    const uint32_t *__restrict__ count, uint32_t *__restrict__ count_out)
{
  if (count) {
    n = (int) min ((uint32_t) n, *count);
    if (count_out && blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
      *count_out = (uint32_t) n;
  }
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int lane = tid & 31;
  const int warps = (blockDim.x * blockDim.y) >> 5;
  const int first = (blockIdx.y * gridDim.x + blockIdx.x) * warps + (tid >> 5);
  const int stride = gridDim.x * gridDim.y * warps;
  LkSegmentWindow<KS> ex (lane, a.cfg.window);
  for (int i = first; i < n; i += stride) {
    float px, py;
    if (GRID) {
      flow_grid_point (i, a.width, a.height, a.step, &px, &py);
      if (lane == 0)
        prev_out[i] = make_float2 (px, py);
    } else {
      const float2 p = in_xy[i];
      px = p.x;
      py = p.y;
      if (alive && !alive[i]) {
        if (lane == 0) {
          next_xy[i] = p;
          status[i] = 0;
        }
        continue;
      }
    }
    float nx, ny;
    int st = lk_track_point (ex, a.level, a.cfg, px, py, &nx, &ny);
    if (st && a.clip && !flow_in_frame (nx, ny, a.width, a.height))
      st = 0;
    if (lane == 0) {
      next_xy[i] = make_float2 (nx, ny);
      status[i] = (uint8_t) st;
    }
  }
}

/* ------------------------------------------------------------- drawing */

__global__ void
flow_color_kernel (const float2 *__restrict__ prev, const float2 *__restrict__ next, const uint8_t *__restrict__ status,
    int step, float max_flow, uint8_t *__restrict__ dst, size_t pitch, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w)
    return;
  const int cols = flow_grid_cols (w, step);
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < h; y += gridDim.y * blockDim.y) {
    const int i = (y / step) * cols + x / step;
    uint8_t r = 0, g = 0, b = 0;
    if (status && status[i]) {
      const float2 p = prev[i], q = next[i];
      flow_color_rgb (exact::fsub (q.x, p.x), exact::fsub (q.y, p.y), max_flow, &r, &g, &b);
    }
    reinterpret_cast<uint32_t *> (dst + (size_t) y * pitch)[x] =
        (uint32_t) r | ((uint32_t) g << 8) | ((uint32_t) b << 16) | 0xff000000u;
  }
}

/* One thread per point. All lines are drawn before any marker (two
 * launches), and each launch writes one colour, so overlaps are benign and
 * the frame is the CPU backend's. */
__global__ void
flow_lines_kernel (const float2 *__restrict__ prev, const float2 *__restrict__ next, const uint8_t *__restrict__ status,
    int n, const uint32_t *__restrict__ count, const Canvas format, const LumaCopyArgs *target)
{
  if (count)
    n = (int) min ((uint32_t) n, *count);
  const Canvas canvas = target ? format.with_plane0 (target->copy, target->copy_pitch) : format;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (!status[i])
      continue;
    paint_flow_line (canvas, flow_round_px (prev[i].x), flow_round_px (prev[i].y), flow_round_px (next[i].x),
        flow_round_px (next[i].y));
  }
}

__global__ void
flow_markers_kernel (const float2 *__restrict__ next, const uint8_t *__restrict__ status, int n,
    const uint32_t *__restrict__ count, const Canvas format, const LumaCopyArgs *target)
{
  if (count)
    n = (int) min ((uint32_t) n, *count);
  const Canvas canvas = target ? format.with_plane0 (target->copy, target->copy_pitch) : format;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (status[i])
      paint_marker (canvas, flow_round_px (next[i].x), flow_round_px (next[i].y));
  }
}

/* ------------------------------------------------------------- results */

/* One vector as the host reads it (GstCvFlowVector's layout): four floats
 * and the status as a whole word, so that the padding is written too. */
__device__ __forceinline__ void
put_vector (FlowVector * out, float2 p, float2 q, uint8_t status)
{
  uint32_t *w = reinterpret_cast<uint32_t *> (out);
  w[0] = __float_as_uint (p.x);
  w[1] = __float_as_uint (p.y);
  w[2] = __float_as_uint (q.x);
  w[3] = __float_as_uint (q.y);
  w[4] = status;
}

constexpr int kPublishThreads = 1024;

/* Sparse: the results of the points alive before the tracking, in list
 * order, into host memory (one block: the order is a block-wide prefix
 * sum, chunk after chunk), then the header. `n` bounds the device count.
 * The vectors go to *out_at, read when the kernel runs (the frame's
 * block: a replayed graph serves every frame). */
__global__ void __launch_bounds__ (kPublishThreads)
publish_sparse_kernel (const float2 *__restrict__ prev, const uint8_t *__restrict__ alive,
    const float2 *__restrict__ next, const uint8_t *__restrict__ status, const uint32_t *__restrict__ count, int n,
    FlowResultsHeader *head, FlowVector *const *out_at)
{
  FlowVector *out = *out_at;
  using Scan = cub::BlockScan<int, kPublishThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int listed = (int) min ((uint32_t) n, *count);
  int base = 0, tracked = 0;
  for (int start = 0; start < listed; start += kPublishThreads) {
    const int i = start + (int) threadIdx.x;
    const int a = i < listed && alive[i] ? 1 : 0;
    const int st = a && status[i] ? 1 : 0;
    int at, total;
    Scan (temp).ExclusiveSum (a, at, total);
    if (a)
      put_vector (out + base + at, prev[i], next[i], (uint8_t) st);
    tracked += __syncthreads_count (st);
    base += total;
  }
  if (threadIdx.x == 0) {
    head->count = (uint32_t) base;
    head->tracked = (uint32_t) tracked;
    head->listed = (uint32_t) listed;
  }
}

/* Dense: every grid point, in raster order (to *out_at, as above). */
__global__ void
publish_dense_kernel (const float2 *__restrict__ prev, const float2 *__restrict__ next,
    const uint8_t *__restrict__ status, int n, FlowResultsHeader *head, FlowVector *const *out_at)
{
  FlowVector *out = *out_at;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    put_vector (out + i, prev[i], next[i], status[i]);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    head->count = (uint32_t) n;
    head->tracked = 0;
    head->listed = (uint32_t) n;
  }
}

/* A new list of points, all alive: from x y pairs (host list staged in
 * pinned memory, `xy`) or from a corner list (`corners`, on the device),
 * min (*count or n, cap) of them; the count is written too. */
__global__ void
set_points_kernel (const float2 *__restrict__ xy, const Corner *__restrict__ corners,
    const uint32_t *__restrict__ count, int n, int cap, float2 *__restrict__ pts, uint8_t *__restrict__ flags,
    uint32_t *__restrict__ count_out)
{
  if (count)
    n = (int) min ((uint32_t) n, *count);
  n = min (n, cap);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    pts[i] = xy ? xy[i] : make_float2 (corners[i].x, corners[i].y);
    flags[i] = 1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *count_out = (uint32_t) n;
}

/* ------------------------------------------------------------ launchers */

/* The block the policy chose, made of whole warps (the tracker needs full
 * warps for its shuffles): a shape whose thread count is not a multiple of
 * 32 becomes the next multiple, in x. */
dim3
whole_warps (const LaunchConfig & c)
{
  const unsigned t = c.block.threads ();
  if (t % 32 == 0)
    return block_dim (c);
  return dim3 (std::min (1024u, (t + 31) / 32 * 32), 1, 1);
}

LkArgs
lk_args (const FlowPyramid & prev, const FlowPyramid & next, const FlowParams & p, bool clip, int step)
{
  LkArgs a {};
  const int levels = std::min (prev.levels (), next.levels ());
  for (int l = 0; l < levels; l++) {
    LkLevel & L = a.level[l];
    const ConstImage8 pi = prev.level (l), ni = next.level (l);
    const ImageView<const uint32_t> d = prev.deriv (l);
    L.prev = pi.data;
    L.prev_pitch = pi.pitch;
    L.deriv = d.data;
    L.deriv_pitch = d.pitch;
    L.next = ni.data;
    L.next_pitch = ni.pitch;
    L.width = pi.width;
    L.height = pi.height;
  }
  a.cfg = lk_config (p, levels - 1);
  a.width = prev.width ();
  a.height = prev.height ();
  a.step = step;
  a.clip = clip ? 1 : 0;
  return a;
}

template <int KS, bool GRID>
CudaStatus
launch_lk (const LkArgs & a, const float *in_xy, const uint8_t *alive, float *prev_out, float *next_xy,
    uint8_t *status, int n, const uint32_t *count, uint32_t *count_out, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  auto kernel = lk_kernel<KS, GRID>;
  const LaunchConfig c = policy.choose (flow_lk_traits (), cached_resources (kernel), (long) n * 32, 1);
  const dim3 block = whole_warps (c);
  const unsigned warps = block.x * block.y / 32;
  const unsigned grid = (unsigned) std::min<long> ((n + warps - 1) / warps, 1L << 30);
  kernel<<<grid, block, 0, stream>>> (a, reinterpret_cast<const float2 *> (in_xy), alive,
      reinterpret_cast<float2 *> (prev_out), reinterpret_cast<float2 *> (next_xy), status, n, count, count_out);
  CV_CUDA_TRY_LAUNCH ("lk_kernel");
  return {};
}

template <bool GRID>
CudaStatus
launch_lk_window (const LkArgs & a, const float *in_xy, const uint8_t *alive, float *prev_out, float *next_xy,
    uint8_t *status, int n, const uint32_t *count, uint32_t *count_out, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  switch (lk_segments_per_lane (a.cfg.window)) {
    case 1: return launch_lk<1, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, count, count_out, policy, stream);
    case 2: return launch_lk<2, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, count, count_out, policy, stream);
    case 4: return launch_lk<4, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, count, count_out, policy, stream);
    default: return launch_lk<8, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, count, count_out, policy, stream);
  }
}

CudaStatus
check_track (const FlowPyramid & prev, const FlowPyramid & next, const FlowParams & p)
{
  if (p.window < kFlowMinWindow || p.window > kFlowMaxWindow)
    return { cudaErrorInvalidValue, "flow: window size 3..32" };
  if (prev.levels () == 0 || next.levels () == 0 || prev.width () != next.width () ||
      prev.height () != next.height ())
    return { cudaErrorInvalidValue, "flow: the pyramids are missing or of different sizes" };
  if (prev.window () != p.window || next.window () != p.window)
    return { cudaErrorInvalidValue, "flow: the pyramids were built for another window size" };
  return {};
}

}  // namespace

/* --------------------------------------------------------------- traits */

const KernelTraits &
flow_lk_traits ()
{
  /* 4 points a block: the per-point work is long and uneven, small blocks
   * let the SMs refill as warps finish. */
  static const KernelTraits t = kernel_traits ("flow.lk", { 128, 1 }, false);
  return t;
}

const KernelTraits &
flow_color_traits ()
{
  static const KernelTraits t = kernel_traits ("flow.color", { 32, 8 }, true);
  return t;
}

const KernelTraits &
flow_draw_traits ()
{
  static const KernelTraits t = kernel_traits ("flow.draw", { 128, 1 }, false);
  return t;
}

/* ------------------------------------------------------------- tracking */

CudaStatus
flow_track_points (const FlowPyramid & prev, const FlowPyramid & next, const float *prev_xy, const uint8_t *alive,
    int n, float *next_xy, uint8_t *status, const FlowParams & p, bool clip_to_frame, const LaunchPolicy & policy,
    cudaStream_t stream, const uint32_t *count, uint32_t *count_out)
{
  if (n <= 0)
    return {};
  CudaStatus s = check_track (prev, next, p);
  if (!s.ok ())
    return s;
  const LkArgs a = lk_args (prev, next, p, clip_to_frame, 0);
  return launch_lk_window<false> (a, prev_xy, alive, nullptr, next_xy, status, n, count, count_out, policy, stream);
}

CudaStatus
flow_track_grid (const FlowPyramid & prev, const FlowPyramid & next, int step, float *prev_xy, float *next_xy,
    uint8_t *status, const FlowParams & p, bool clip_to_frame, const LaunchPolicy & policy, cudaStream_t stream)
{
  if (step < 1)
    return { cudaErrorInvalidValue, "flow: grid step >= 1" };
  CudaStatus s = check_track (prev, next, p);
  if (!s.ok ())
    return s;
  const int n = flow_grid_cols (prev.width (), step) * flow_grid_rows (prev.height (), step);
  const LkArgs a = lk_args (prev, next, p, clip_to_frame, step);
  return launch_lk_window<true> (a, nullptr, nullptr, prev_xy, next_xy, status, n, nullptr, nullptr, policy, stream);
}

/* -------------------------------------------------------------- drawing */

CudaStatus
flow_color (const float *prev_xy, const float *next_xy, const uint8_t *status, int step, float max_flow, Image8 dst,
    const LaunchPolicy & policy, cudaStream_t stream)
{
  if (dst.width <= 0 || dst.height <= 0)
    return {};
  if (step < 1 || !(max_flow > 0.f))
    return { cudaErrorInvalidValue, "flow_color: step >= 1 and max_flow > 0" };
  const LaunchConfig c = policy.choose (flow_color_traits (), cached_resources (flow_color_kernel), dst.width,
      dst.height);
  flow_color_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (reinterpret_cast<const float2 *> (prev_xy),
      reinterpret_cast<const float2 *> (next_xy), status, step, max_flow, dst.data, dst.pitch, dst.width,
      dst.height);
  CV_CUDA_TRY_LAUNCH ("flow_color_kernel");
  return {};
}

CudaStatus
flow_draw (const FlowOverlay & overlay, const float *prev_xy, const float *next_xy, const uint8_t *status, int n,
    bool markers, const LaunchPolicy & policy, cudaStream_t stream, const uint32_t *count)
{
  return flow_draw_to (nullptr, overlay, prev_xy, next_xy, status, n, markers, policy, stream, count);
}

CudaStatus
flow_draw_to (const FlowInputArgs * target, const FlowOverlay & overlay, const float *prev_xy, const float *next_xy,
    const uint8_t *status, int n, bool markers, const LaunchPolicy & policy, cudaStream_t stream,
    const uint32_t *count)
{
  if (n <= 0 || overlay.lines.width <= 0 || overlay.lines.height <= 0)
    return {};
  if (target && !overlay.lines.single_plane ())
    return { cudaErrorInvalidValue, "flow drawing from a graph: single-plane frames only" };
  const float2 *prev = reinterpret_cast<const float2 *> (prev_xy), *next = reinterpret_cast<const float2 *> (next_xy);
  LaunchConfig c = policy.choose (flow_draw_traits (), cached_resources (flow_lines_kernel), n, 1);
  flow_lines_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (prev, next, status, n, count, overlay.lines, target);
  CV_CUDA_TRY_LAUNCH ("flow_lines_kernel");
  if (!markers)
    return {};
  c = policy.choose (flow_draw_traits (), cached_resources (flow_markers_kernel), n, 1);
  flow_markers_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (next, status, n, count, overlay.markers, target);
  CV_CUDA_TRY_LAUNCH ("flow_markers_kernel");
  return {};
}

/* -------------------------------------------------------------- session */

namespace {

/* Points a list holds at least (no zero-sized buffers, few regrowths). */
constexpr int kMinPoints = 512;

}  // namespace

CudaStatus
FlowSession::push_frame (const LumaInput & frame, const FlowParams & p, const LaunchPolicy & policy,
    cudaStream_t stream, const Image8 * copy, bool defer)
{
  if (input_pending_ || levels_pending_) {
    /* the frame before was never enqueued (a failure after push_frame):
     * its pyramid is incomplete, no previous frame for this one */
    input_pending_ = levels_pending_ = false;
    built_ = false;
  }
  const int prev = cur_;
  cur_ = 1 - cur_;
  CudaStatus s = pyr_[cur_].prepare (frame, p.window, p.max_level, stream);
  if (s.ok () && !defer)
    s = pyr_[cur_].build_input (frame, copy, policy, stream);
  if (s.ok () && !defer)
    s = pyr_[cur_].build_levels (policy, stream);
  if (!s.ok ()) {
    reset ();
    return s;
  }
  input_pending_ = levels_pending_ = defer && pyr_[cur_].levels () > 0;
  input_ = frame;
  has_copy_ = copy != nullptr;
  copy_ = copy ? *copy : Image8 {};
  const FlowPyramid & a = pyr_[prev];
  const FlowPyramid & b = pyr_[cur_];
  has_prev_ = built_ && a.levels () > 0 && a.width () == b.width () && a.height () == b.height () &&
      a.window () == b.window ();
  built_ = b.levels () > 0;
  return {};
}

void
FlowSession::reset ()
{
  levels_pending_ = input_pending_ = false; /* the frame before is no use any more */
  built_ = false;
  drawn_ = false;
  has_prev_ = false;
  has_points_ = false;
  last_n_ = 0;
  last_count_ = nullptr;
}

LumaInput
FlowSession::previous_luma () const
{
  const FlowPyramid & p = pyr_[1 - cur_];
  LumaInput in;
  in.image = p.levels () > 0 ? p.level (0) : ConstImage8 {};
  in.gray = true;
  return in;
}

CudaStatus
FlowSession::ensure_points (int n, cudaStream_t stream)
{
  if (n <= capacity_ && counts_.get ())
    return {};
  /* kernels queued before may still read the lists */
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  int cap = std::max (capacity_, kMinPoints);
  while (cap < n)
    cap *= 2;
  for (int i = 0; i < 2; i++) {
    CudaStatus s = pts_[i].allocate ((size_t) cap * 2 * sizeof (float));
    if (s.ok ())
      s = flags_[i].allocate ((size_t) cap);
    if (!s.ok ()) {
      capacity_ = 0;
      return s;
    }
  }
  if (!counts_.get ()) {
    CudaStatus s = counts_.allocate (2 * sizeof (uint32_t));
    if (!s.ok ())
      return s;
  }
  CV_CUDA_TRY (cudaMemsetAsync (counts_.get (), 0, 2 * sizeof (uint32_t), stream));
  capacity_ = cap;
  return {};
}

CudaStatus
FlowSession::ensure_events ()
{
  for (int i = 0; i < 2; i++)
    if (!done_[i].get ()) {
      CudaStatus s = done_[i].create ();
      if (!s.ok ())
        return s;
    }
  if (!staged_done_.get ())
    return staged_done_.create ();
  return {};
}

CudaStatus
FlowSession::ensure_slot (int slot, size_t vectors)
{
  if (vectors <= slot_capacity_[slot] && slots_[slot].get ())
    return {};
  /* the GPU may still write the slot (a frame never collected) */
  if (done_recorded_[slot])
    CV_CUDA_TRY (cudaEventSynchronize (done_[slot].get ()));
  size_t cap = std::max<size_t> (slot_capacity_[slot], kMinPoints);
  while (cap < vectors)
    cap *= 2;
  slot_capacity_[slot] = 0;
  CudaStatus s = slots_[slot].allocate (sizeof (FlowResultsHeader) + cap * sizeof (FlowVector));
  if (!s.ok ())
    return s;
  slot_capacity_[slot] = cap;
  return {};
}

CudaStatus
FlowSession::begin_slot (int slot, size_t vectors, cudaStream_t stream)
{
  CudaStatus s = ensure_events ();
  if (s.ok ())
    s = ensure_slot (slot, vectors);
  if (s.ok ())
    s = ensure_args_buffers (args_, dargs_, 2 * sizeof (FrameArgs));
  if (!s.ok ())
    return s;
  (void) stream;
  FlowResultsHeader *head = static_cast<FlowResultsHeader *> (slots_[slot].get ());
  /* the frame two before used this slot and its arguments: done when its
   * done word says so (the last of its graph before the event), else wait */
  if (done_recorded_[slot] && !done_seen (&head->done))
    CV_CUDA_TRY (cudaEventSynchronize (done_[slot].get ()));
  clear_done (&head->done);
  target_vectors (slot, vectors);
  return {};
}

void
FlowSession::target_vectors (int slot, size_t vectors)
{
  /* the frame two before's block, if nobody took it: the GPU is done
   * with it (begin_slot waited), back to the pool */
  block_[slot].reset ();
  if (!pool_)
    pool_ = HostBlockPool::create (kFlowResultBlocks,
        block_memory_ ? block_memory_ : std::make_shared<PinnedHostMemory> ());
  /* none (all out, or the allocation failed): the slot, and a copy */
  if (vectors > 0 && !pool_->acquire (vectors * sizeof (FlowVector), &block_[slot]).ok ())
    block_[slot].reset ();
  FlowResultsHeader *head = static_cast<FlowResultsHeader *> (slots_[slot].get ());
  FlowVector *dst = block_[slot] ? static_cast<FlowVector *> (block_[slot]->data)
                                 : reinterpret_cast<FlowVector *> (head + 1);
  static_cast<FrameArgs *> (args_.get ())[slot].vectors = dst;
  vectors_[slot] = dst;
}

CudaStatus
FlowSession::input_for_graph (int slot, const LaunchPolicy & policy, cudaStream_t stream, bool * in_graph)
{
  *in_graph = false;
  if (!input_pending_)
    return {};
  input_pending_ = false;
  const Image8 *copy = has_copy_ ? &copy_ : nullptr;
  if (!policy.replays_allowed () || !FlowPyramid::input_vectorizable (input_, copy))
    return pyr_[cur_].build_input (input_, copy, policy, stream);
  FlowInputArgs *a = &static_cast<FrameArgs *> (args_.get ())[slot].input;
  *a = FlowPyramid::input_args (input_, copy);
  *in_graph = true;
  return {};
}

CudaStatus
FlowSession::finish_slot (int slot, cudaStream_t stream)
{
  /* the word the host reads instead of querying the event (graph_io.h) */
  const CudaStatus d = mark_done (&static_cast<FlowResultsHeader *> (slots_[slot].get ())->done, stream);
  if (!d.ok ())
    return d;
  /* the results' event */
  return record_in_work (done_[slot].get (), stream);
}

CudaStatus
FlowSession::set_points (const std::vector<float> & xy, cudaStream_t stream)
{
  const int n = (int) (xy.size () / 2);
  CudaStatus s = ensure_events ();
  if (s.ok ())
    s = ensure_points (n, stream);
  if (!s.ok ())
    return s;
  /* the staging buffer of the last call may still be read */
  if (staged_recorded_)
    CV_CUDA_TRY (cudaEventSynchronize (staged_done_.get ()));
  if ((size_t) n * 2 * sizeof (float) > staged_.size ()) {
    s = staged_.allocate (std::max<size_t> ((size_t) n, kMinPoints) * 2 * sizeof (float));
    if (!s.ok ())
      return s;
  }
  if (n > 0)
    std::memcpy (staged_.get (), xy.data (), (size_t) n * 2 * sizeof (float));
  const unsigned blocks = (unsigned) std::max (1, std::min ((n + 255) / 256, 1024));
  set_points_kernel<<<blocks, 256, 0, stream>>> (static_cast<const float2 *> (staged_.get ()), nullptr, nullptr, n,
      capacity_, pts_[in_].as<float2> (), flags_[in_].as<uint8_t> (), counts_.as<uint32_t> () + in_);
  CV_CUDA_TRY_LAUNCH ("set_points_kernel");
  CV_CUDA_TRY (cudaEventRecord (staged_done_.get (), stream));
  staged_recorded_ = true;
  has_points_ = true;
  return {};
}

CudaStatus
FlowSession::set_points (const Corner * list, const uint32_t * count, size_t capacity, cudaStream_t stream)
{
  const int bound = (int) std::min<size_t> (count ? capacity : 0, (size_t) (1 << 30));
  CudaStatus s = ensure_points (bound, stream);
  if (!s.ok ())
    return s;
  const unsigned blocks = (unsigned) std::max (1, std::min ((bound + 255) / 256, 1024));
  set_points_kernel<<<blocks, 256, 0, stream>>> (nullptr, list, count, count ? bound : 0, capacity_, pts_[in_].as<float2> (), flags_[in_].as<uint8_t> (),
      counts_.as<uint32_t> () + in_);
  CV_CUDA_TRY_LAUNCH ("set_points_kernel");
  has_points_ = true;
  return {};
}

/* What a frame's graph depends on besides the buffers' addresses (which
 * change only with an allocation: that drops every graph): one value, so
 * that the key is one copy. */
struct FlowSession::FrameKey {
  int mode, cur, from, track, input, gray, layout, copy, levels, pyr_levels, w, h, step, n, draw;
  /* with draw: the marks' format and colours (the draw kernels' parameters) */
  int draw_kind, draw_bpp;
  int8_t draw_offset[4];
  uint8_t line_value[4], marker_value[4];
  int window, max_level, iterations, capacity;
  double epsilon, min_eig;
  const void *head;
  size_t slot_capacity;
};

FlowSession::FrameKey
FlowSession::frame_key (int mode, const FlowParams & p, int slot, bool input, bool levels) const
{
  FrameKey k;
  std::memset (&k, 0, sizeof (k)); /* padding too: the key is its bytes */
  const FlowPyramid & pyr = pyr_[cur_];
  k.mode = mode;
  k.pyr_levels = pyr.levels ();
  k.w = pyr.width ();
  k.h = pyr.height ();
  k.window = p.window;
  k.max_level = p.max_level;
  k.iterations = p.iterations;
  k.epsilon = p.epsilon;
  k.min_eig = p.min_eig;
  k.cur = cur_;
  k.input = input;
  k.gray = input_.gray;
  k.layout = (int) input_.layout;
  k.copy = has_copy_;
  k.levels = levels;
  k.capacity = capacity_;
  k.head = slots_[slot].get ();
  k.slot_capacity = slot_capacity_[slot];
  return k;
}

CudaStatus
FlowSession::begin_frame (int slot, size_t vectors, const LaunchPolicy & policy, cudaStream_t stream, bool *input,
    bool *levels)
{
  *input = *levels = false;
  CudaStatus s = begin_slot (slot, vectors, stream);
  if (s.ok ())
    s = input_for_graph (slot, policy, stream, input);
  if (!s.ok ())
    return s;
  *levels = levels_pending_;
  levels_pending_ = false;
  return {};
}

CudaStatus
FlowSession::run_frame_graph (const FrameKey & k, int slot, bool input, bool levels, const LaunchPolicy & policy,
    cudaStream_t stream, const std::function<CudaStatus (cudaStream_t)> & track)
{
  CapturedGraphs::Key key;
  key.add (k);
  return graphs_.run (key, stream, policy.replays_allowed (), [&] (cudaStream_t st) -> CudaStatus {
    /* the frame's pointers and its vectors' destination, from the pinned
     * block begin_slot and input_for_graph wrote */
    FrameArgs *dargs = dargs_.as<FrameArgs> () + slot;
    const CudaStatus a = copy_args (dargs, static_cast<FrameArgs *> (args_.get ()) + slot, sizeof (FrameArgs), st);
    if (!a.ok ())
      return a;
    if (input) {
      const CudaStatus r = pyr_[cur_].build_input_from (&dargs->input, input_.gray, input_.layout, has_copy_,
          policy, st);
      if (!r.ok ())
        return r;
    }
    if (levels) {
      const CudaStatus r = pyr_[cur_].build_levels (policy, st);
      if (!r.ok ())
        return r;
    }
    const CudaStatus t = track (st);
    return t.ok () ? finish_slot (slot, st) : t;
  });
}

/* The key's part for marks drawn in the graph. */
static void
key_overlay (const FlowOverlay * draw, bool draw_here, int *kind, int *bpp, int8_t offset[4], uint8_t line[4],
    uint8_t marker[4])
{
  if (!draw_here)
    return;
  *kind = (int) draw->lines.kind;
  *bpp = draw->lines.bpp;
  for (int k = 0; k < 4; k++) {
    offset[k] = draw->lines.offset[k];
    line[k] = draw->lines.value[k];
    marker[k] = draw->markers.value[k];
  }
}

/* The overlay's canvases on the copy's size (their plane from the graph's
 * arguments). */
static FlowOverlay
sized_overlay (const FlowOverlay & o, const Image8 & copy)
{
  FlowOverlay s = o;
  s.lines.width = s.markers.width = copy.width;
  s.lines.height = s.markers.height = copy.height;
  return s;
}

CudaStatus
FlowSession::enqueue_sparse (const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
    const FlowOverlay * draw)
{
  drawn_ = false;
  const int slot = cur_;
  const bool track = has_prev_ && has_points_;
  CudaStatus s = ensure_points (0, stream);
  bool input = false, levels = false;
  if (s.ok ())
    s = begin_frame (slot, (size_t) capacity_, policy, stream, &input, &levels);
  if (!s.ok ())
    return s;
  const int from = in_, to = 1 - in_;
  FlowResultsHeader *head = static_cast<FlowResultsHeader *> (slots_[slot].get ());
  FlowVector *const *vectors = &(dargs_.as<FrameArgs> () + slot)->vectors;
  uint32_t *counts = counts_.as<uint32_t> ();

  /* the vectors and markers drawn by the graph (as enqueue_dense) */
  const bool draw_here = draw && draw->lines.single_plane () && input && has_copy_ && track;
  /* The frame's launches as one graph (captured_graphs.h), keyed by all
   * they depend on: the pyramids, lists, slot and arguments by parity. */
  FrameKey k = frame_key (0, p, slot, input, levels);
  k.from = from;
  k.track = track;
  k.draw = draw_here;
  key_overlay (draw, draw_here, &k.draw_kind, &k.draw_bpp, k.draw_offset, k.line_value, k.marker_value);
  s = run_frame_graph (k, slot, input, levels, policy, stream, [&] (cudaStream_t st) -> CudaStatus {
    if (track) {
      const CudaStatus r = flow_track_points (pyr_[1 - cur_], pyr_[cur_], pts_[from].as<const float> (),
          flags_[from].as<const uint8_t> (), capacity_, pts_[to].as<float> (), flags_[to].as<uint8_t> (), p, true,
          policy, st, counts + from, counts + to);
      if (!r.ok ())
        return r;
      publish_sparse_kernel<<<1, kPublishThreads, 0, st>>> (pts_[from].as<const float2> (),
          flags_[from].as<const uint8_t> (), pts_[to].as<const float2> (), flags_[to].as<const uint8_t> (),
          counts + from, capacity_, head, vectors);
      CV_CUDA_TRY_LAUNCH ("publish_sparse_kernel");
      if (!draw_here)
        return {};
      return flow_draw_to (&(dargs_.as<FrameArgs> () + slot)->input, sized_overlay (*draw, copy_),
          pts_[from].as<const float> (), pts_[to].as<const float> (), flags_[to].as<const uint8_t> (), capacity_,
          true, policy, st, counts + from);
    } else {
      /* no tracking: an empty list (publish with a zero bound) */
      publish_sparse_kernel<<<1, kPublishThreads, 0, st>>> (nullptr, nullptr, nullptr, nullptr, counts + from, 0,
          head, vectors);
    }
    CV_CUDA_TRY_LAUNCH ("publish_sparse_kernel");
    return {};
  });
  if (!s.ok ())
    return s;
  drawn_ = draw_here;
  done_recorded_[slot] = true;
  last_n_ = 0;
  last_count_ = nullptr;
  if (track) {
    last_prev_ = from;
    last_next_ = to;
    last_n_ = capacity_;
    last_count_ = counts + from;
    in_ = to; /* the results are the points of the next frame */
  }
  return {};
}

CudaStatus
FlowSession::enqueue_dense (int step, const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
    const FlowOverlay * draw)
{
  drawn_ = false;
  if (step < 1)
    return { cudaErrorInvalidValue, "flow: grid step >= 1" };
  const int slot = cur_;
  const FlowPyramid & cur = pyr_[cur_];
  const int n = has_prev_ ? flow_grid_cols (cur.width (), step) * flow_grid_rows (cur.height (), step) : 0;
  CudaStatus s = ensure_points (n, stream);
  bool input = false, levels = false;
  if (s.ok ())
    s = begin_frame (slot, (size_t) n, policy, stream, &input, &levels);
  if (!s.ok ())
    return s;
  FlowResultsHeader *head = static_cast<FlowResultsHeader *> (slots_[slot].get ());
  FlowVector *const *vectors = &(dargs_.as<FrameArgs> () + slot)->vectors;

  /* the vectors drawn by the graph on the frame's copy, whose pointer it
   * reads from the frame's arguments with the frame's own (input) */
  const bool draw_here = draw && draw->lines.single_plane () && input && has_copy_ && n > 0;
  FrameKey k = frame_key (1, p, slot, input, levels);
  k.step = step;
  k.n = n;
  k.draw = draw_here;
  key_overlay (draw, draw_here, &k.draw_kind, &k.draw_bpp, k.draw_offset, k.line_value, k.marker_value);
  s = run_frame_graph (k, slot, input, levels, policy, stream, [&] (cudaStream_t st) -> CudaStatus {
    if (n > 0) {
      const CudaStatus r = flow_track_grid (pyr_[1 - cur_], cur, step, pts_[0].as<float> (), pts_[1].as<float> (),
          flags_[1].as<uint8_t> (), p, true, policy, st);
      if (!r.ok ())
        return r;
    }
    const unsigned blocks = (unsigned) std::max (1, std::min ((n + 255) / 256, 4096));
    publish_dense_kernel<<<blocks, 256, 0, st>>> (pts_[0].as<const float2> (), pts_[1].as<const float2> (),
        flags_[1].as<const uint8_t> (), n, head, vectors);
    CV_CUDA_TRY_LAUNCH ("publish_dense_kernel");
    if (!draw_here)
      return {};
    return flow_draw_to (&(dargs_.as<FrameArgs> () + slot)->input, sized_overlay (*draw, copy_),
        pts_[0].as<const float> (), pts_[1].as<const float> (), flags_[1].as<const uint8_t> (), n, false, policy, st);
  });
  if (!s.ok ())
    return s;
  drawn_ = draw_here;
  done_recorded_[slot] = true;
  last_prev_ = 0;
  last_next_ = 1;
  last_n_ = n;
  last_count_ = nullptr;
  return {};
}

CudaStatus
FlowSession::results (int slot, const FlowResultsHeader ** head, const FlowVector ** vectors, HostBlockPtr * block)
{
  *head = nullptr;
  *vectors = nullptr;
  if (block)
    block->reset ();
  if (slot < 0 || slot > 1 || !done_recorded_[slot])
    return { cudaErrorInvalidValue, "flow: no results in that slot" };
  const FlowResultsHeader *h = static_cast<const FlowResultsHeader *> (slots_[slot].get ());
  /* written (the GPU sets the word last, after its other writes): no call */
  if (!done_seen (&h->done))
    CV_CUDA_TRY (cudaEventSynchronize (done_[slot].get ()));
  *head = h;
  *vectors = vectors_[slot];
  if (block) {
    *block = std::move (block_[slot]);
    if (*block)
      vectors_[slot] = nullptr; /* the caller's now */
  }
  return {};
}

CudaStatus
FlowSession::collect (int slot, std::vector<FlowVector> * out)
{
  const FlowResultsHeader *head;
  const FlowVector *v;
  CudaStatus s = results (slot, &head, &v);
  if (!s.ok ())
    return s;
  if (!v && head->count > 0)
    return { cudaErrorInvalidValue, "flow: the slot's vectors were taken" };
  out->assign (v, v + head->count);
  return {};
}

CudaStatus
FlowSession::track_sparse (const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
    std::vector<FlowVector> * out)
{
  out->clear ();
  CudaStatus s = enqueue_sparse (p, policy, stream);
  return s.ok () ? collect (cur_, out) : s;
}

CudaStatus
FlowSession::track_dense (int step, const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
    std::vector<FlowVector> * out)
{
  out->clear ();
  CudaStatus s = enqueue_dense (step, p, policy, stream);
  return s.ok () ? collect (cur_, out) : s;
}

CudaStatus
FlowSession::draw (const FlowOverlay & overlay, bool markers, const LaunchPolicy & policy, cudaStream_t stream) const
{
  if (last_n_ == 0 || drawn_)
    return {};
  return flow_draw (overlay, pts_[last_prev_].as<const float> (), pts_[last_next_].as<const float> (),
      flags_[last_next_].as<const uint8_t> (), last_n_, markers, policy, stream, last_count_);
}

CudaStatus
FlowSession::color (int step, float max_flow, Image8 dst, const LaunchPolicy & policy, cudaStream_t stream) const
{
  /* without results (first frame) every cell is "lost": black */
  return flow_color (pts_[last_prev_].as<const float> (), pts_[last_next_].as<const float> (),
      last_n_ ? flags_[last_next_].as<const uint8_t> () : nullptr, step, max_flow, dst, policy, stream);
}

void
FlowSession::release ()
{
  graphs_.clear ();
  /* the GPU may still write the slots or read the staging list */
  for (int i = 0; i < 2; i++)
    if (done_recorded_[i])
      cudaEventSynchronize (done_[i].get ());
  if (staged_recorded_)
    cudaEventSynchronize (staged_done_.get ());
  pyr_[0].release ();
  pyr_[1].release ();
  /* blocks out (in metas downstream) come back later, to a closed pool */
  if (pool_)
    pool_->close ();
  for (int i = 0; i < 2; i++) {
    block_[i].reset ();
    vectors_[i] = nullptr;
  }
  pool_.reset ();
  block_memory_.reset ();
  for (int i = 0; i < 2; i++) {
    pts_[i].reset ();
    flags_[i].reset ();
    slots_[i].reset ();
    slot_capacity_[i] = 0;
    done_[i].reset ();
    done_recorded_[i] = false;
  }
  counts_.reset ();
  args_.reset ();
  dargs_.reset ();
  staged_.reset ();
  staged_done_.reset ();
  staged_recorded_ = false;
  capacity_ = 0;
  in_ = 0;
  cur_ = 0;
  reset ();
}

}  // namespace cudavision
