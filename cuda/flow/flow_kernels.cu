/* cudavision — Lucas-Kanade tracking and drawing kernels, their launchers
 * and cudaflow's device state (flow.h describes the steps, flow_math.h the
 * arithmetic; the pyramids are flow_pyramid.cu's). */
#include "../harris/corner_marker.h"
#include "flow.h"
#include "flow_draw.h"
#include "flow_math.h"
#include "lk_window.h"
#include "../common/launch_util.cuh"

#include <algorithm>

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
    float2 *__restrict__ prev_out, float2 *__restrict__ next_xy, uint8_t *__restrict__ status, int n)
{
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
      flow_color_rgb (sub_rn (q.x, p.x), sub_rn (q.y, p.y), max_flow, &r, &g, &b);
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
    int n, uint8_t *frame, size_t pitch, int w, int h, int channels, int ro, int go, int bo)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (!status[i])
      continue;
    const int x0 = flow_round_px (prev[i].x), y0 = flow_round_px (prev[i].y);
    const int x1 = flow_round_px (next[i].x), y1 = flow_round_px (next[i].y);
    const int steps = flow_line_steps (x0, y0, x1, y1);
    const int last = min (steps, kFlowLineMax);
    for (int k = 0; k <= last; k++) {
      int x, y;
      flow_line_pixel (x0, y0, x1, y1, steps, k, &x, &y);
      if (x >= 0 && y >= 0 && x < w && y < h)
        paint_line_pixel (frame + (size_t) y * pitch + (size_t) x * channels, channels, ro, go, bo);
    }
  }
}

__global__ void
flow_markers_kernel (const float2 *__restrict__ next, const uint8_t *__restrict__ status, int n, uint8_t *frame,
    size_t pitch, int w, int h, int channels, int ro, int go, int bo)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (!status[i])
      continue;
    const int cx = flow_round_px (next[i].x), cy = flow_round_px (next[i].y);
    for (int k = 0; k < kCornerMarkerPixels; k++) {
      int dx, dy;
      corner_marker_offset (k, &dx, &dy);
      const int x = cx + dx, y = cy + dy;
      if (x >= 0 && y >= 0 && x < w && y < h)
        paint_marker_pixel (frame + (size_t) y * pitch + (size_t) x * channels, channels, ro, go, bo);
    }
  }
}

/* ------------------------------------------------------------ launchers */

KernelTraits
make_traits (const char *name, BlockShape shape, bool two_d)
{
  KernelTraits t;
  t.name = name;
  t.static_block = shape;
  t.two_d = two_d;
  return t;
}

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
    uint8_t *status, int n, const LaunchPolicy & policy, cudaStream_t stream)
{
  auto kernel = lk_kernel<KS, GRID>;
  const LaunchConfig c = policy.choose (flow_lk_traits (), cached_resources (kernel), (long) n * 32, 1);
  const dim3 block = whole_warps (c);
  const unsigned warps = block.x * block.y / 32;
  const unsigned grid = (unsigned) std::min<long> ((n + warps - 1) / warps, 1L << 30);
  kernel<<<grid, block, 0, stream>>> (a, reinterpret_cast<const float2 *> (in_xy), alive,
      reinterpret_cast<float2 *> (prev_out), reinterpret_cast<float2 *> (next_xy), status, n);
  CV_CUDA_TRY_LAUNCH ("lk_kernel");
  return {};
}

template <bool GRID>
CudaStatus
launch_lk_window (const LkArgs & a, const float *in_xy, const uint8_t *alive, float *prev_out, float *next_xy,
    uint8_t *status, int n, const LaunchPolicy & policy, cudaStream_t stream)
{
  switch (lk_segments_per_lane (a.cfg.window)) {
    case 1: return launch_lk<1, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, policy, stream);
    case 2: return launch_lk<2, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, policy, stream);
    case 4: return launch_lk<4, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, policy, stream);
    default: return launch_lk<8, GRID> (a, in_xy, alive, prev_out, next_xy, status, n, policy, stream);
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
  static const KernelTraits t = make_traits ("flow.lk", { 128, 1 }, false);
  return t;
}

const KernelTraits &
flow_color_traits ()
{
  static const KernelTraits t = make_traits ("flow.color", { 32, 8 }, true);
  return t;
}

const KernelTraits &
flow_draw_traits ()
{
  static const KernelTraits t = make_traits ("flow.draw", { 128, 1 }, false);
  return t;
}

/* ------------------------------------------------------------- tracking */

CudaStatus
flow_track_points (const FlowPyramid & prev, const FlowPyramid & next, const float *prev_xy, const uint8_t *alive,
    int n, float *next_xy, uint8_t *status, const FlowParams & p, bool clip_to_frame, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  if (n <= 0)
    return {};
  CudaStatus s = check_track (prev, next, p);
  if (!s.ok ())
    return s;
  const LkArgs a = lk_args (prev, next, p, clip_to_frame, 0);
  return launch_lk_window<false> (a, prev_xy, alive, nullptr, next_xy, status, n, policy, stream);
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
  return launch_lk_window<true> (a, nullptr, nullptr, prev_xy, next_xy, status, n, policy, stream);
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
flow_draw (Image8 frame, bool gray, PackedRgb layout, const float *prev_xy, const float *next_xy,
    const uint8_t *status, int n, bool markers, const LaunchPolicy & policy, cudaStream_t stream)
{
  if (n <= 0 || frame.width <= 0 || frame.height <= 0)
    return {};
  const PackedRgbLayout l = gray ? PackedRgbLayout { 1, 0, 0, 0 } : packed_rgb_layout (layout);
  const float2 *prev = reinterpret_cast<const float2 *> (prev_xy), *next = reinterpret_cast<const float2 *> (next_xy);
  LaunchConfig c = policy.choose (flow_draw_traits (), cached_resources (flow_lines_kernel), n, 1);
  flow_lines_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (prev, next, status, n, frame.data, frame.pitch,
      frame.width, frame.height, l.channels, l.r, l.g, l.b);
  CV_CUDA_TRY_LAUNCH ("flow_lines_kernel");
  if (!markers)
    return {};
  c = policy.choose (flow_draw_traits (), cached_resources (flow_markers_kernel), n, 1);
  flow_markers_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (next, status, n, frame.data, frame.pitch,
      frame.width, frame.height, l.channels, l.r, l.g, l.b);
  CV_CUDA_TRY_LAUNCH ("flow_markers_kernel");
  return {};
}

/* -------------------------------------------------------------- session */

CudaStatus
FlowSession::push_frame (const CornerInput & frame, const FlowParams & p, const LaunchPolicy & policy,
    cudaStream_t stream)
{
  const int prev = cur_;
  cur_ = 1 - cur_;
  const CudaStatus s = pyr_[cur_].build (frame, p.window, p.max_level, policy, stream);
  if (!s.ok ()) {
    reset ();
    return s;
  }
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
  built_ = false;
  has_prev_ = false;
  n_ = 0;
  last_n_ = 0;
  alive_host_.clear ();
}

CudaStatus
FlowSession::ensure_points (int n)
{
  if (n <= capacity_)
    return {};
  for (int i = 0; i < 2; i++) {
    CudaStatus s = pts_[i].allocate ((size_t) n * 2 * sizeof (float));
    if (s.ok ())
      s = flags_[i].allocate ((size_t) n);
    if (!s.ok ())
      return s;
  }
  CudaStatus s = host_.allocate ((size_t) n * (4 * sizeof (float) + 1));
  if (!s.ok ())
    return s;
  capacity_ = n;
  return {};
}

CudaStatus
FlowSession::set_points (const std::vector<float> & xy, cudaStream_t stream)
{
  const int n = (int) (xy.size () / 2);
  CudaStatus s = ensure_points (n);
  if (!s.ok ())
    return s;
  if (n > 0) {
    /* from pageable memory: the call returns once `xy` is staged */
    CV_CUDA_TRY (cudaMemcpyAsync (pts_[in_].get (), xy.data (), (size_t) n * 2 * sizeof (float),
        cudaMemcpyHostToDevice, stream));
    CV_CUDA_TRY (cudaMemsetAsync (flags_[in_].get (), 1, (size_t) n, stream));
  }
  n_ = n;
  alive_host_.assign ((size_t) n, 1);
  return {};
}

CudaStatus
FlowSession::download (int n, int prev_buf, int next_buf, cudaStream_t stream, std::vector<FlowVector> * out,
    bool only_alive)
{
  float *prev = static_cast<float *> (host_.get ());
  float *next = prev + 2 * (size_t) n;
  uint8_t *status = reinterpret_cast<uint8_t *> (next + 2 * (size_t) n);
  CV_CUDA_TRY (cudaMemcpyAsync (prev, pts_[prev_buf].get (), (size_t) n * 2 * sizeof (float), cudaMemcpyDeviceToHost,
      stream));
  CV_CUDA_TRY (cudaMemcpyAsync (next, pts_[next_buf].get (), (size_t) n * 2 * sizeof (float), cudaMemcpyDeviceToHost,
      stream));
  CV_CUDA_TRY (cudaMemcpyAsync (status, flags_[next_buf].get (), (size_t) n, cudaMemcpyDeviceToHost, stream));
  CV_CUDA_TRY (cudaStreamSynchronize (stream));
  out->clear ();
  out->reserve ((size_t) n);
  for (int i = 0; i < n; i++) {
    if (only_alive && !alive_host_[(size_t) i])
      continue;
    FlowVector v;
    v.prev_x = prev[2 * i];
    v.prev_y = prev[2 * i + 1];
    v.x = next[2 * i];
    v.y = next[2 * i + 1];
    v.status = status[i];
    out->push_back (v);
  }
  if (only_alive)
    alive_host_.assign (status, status + n);
  return {};
}

CudaStatus
FlowSession::track_sparse (const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
    std::vector<FlowVector> * out)
{
  out->clear ();
  last_n_ = 0;
  if (!has_prev_ || n_ == 0)
    return {};
  const int to = 1 - in_;
  CudaStatus s = flow_track_points (pyr_[1 - cur_], pyr_[cur_], pts_[in_].as<const float> (),
      flags_[in_].as<const uint8_t> (), n_, pts_[to].as<float> (), flags_[to].as<uint8_t> (), p, true, policy,
      stream);
  if (!s.ok ())
    return s;
  last_prev_ = in_;
  last_next_ = to;
  last_n_ = n_;
  s = download (n_, in_, to, stream, out, true);
  in_ = to; /* the results are the points of the next frame */
  return s;
}

CudaStatus
FlowSession::track_dense (int step, const FlowParams & p, const LaunchPolicy & policy, cudaStream_t stream,
    std::vector<FlowVector> * out)
{
  out->clear ();
  last_n_ = 0;
  if (!has_prev_)
    return {};
  const FlowPyramid & cur = pyr_[cur_];
  const int n = flow_grid_cols (cur.width (), step) * flow_grid_rows (cur.height (), step);
  CudaStatus s = ensure_points (n);
  if (!s.ok ())
    return s;
  s = flow_track_grid (pyr_[1 - cur_], cur, step, pts_[0].as<float> (), pts_[1].as<float> (), flags_[1].as<uint8_t> (),
      p, true, policy, stream);
  if (!s.ok ())
    return s;
  last_prev_ = 0;
  last_next_ = 1;
  last_n_ = n;
  return download (n, 0, 1, stream, out, false);
}

CudaStatus
FlowSession::draw (Image8 frame, bool gray, PackedRgb layout, bool markers, const LaunchPolicy & policy,
    cudaStream_t stream) const
{
  return flow_draw (frame, gray, layout, pts_[last_prev_].as<const float> (), pts_[last_next_].as<const float> (),
      flags_[last_next_].as<const uint8_t> (), last_n_, markers, policy, stream);
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
  pyr_[0].release ();
  pyr_[1].release ();
  for (int i = 0; i < 2; i++) {
    pts_[i].reset ();
    flags_[i].reset ();
  }
  host_.reset ();
  capacity_ = 0;
  in_ = 0;
  cur_ = 0;
  reset ();
}

}  // namespace cudavision
