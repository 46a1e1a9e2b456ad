/* cudavision — the face detector's kernels (see facedetect.h).
 *
 * Thread mappings:
 *  - rows:    one warp per integral row; the row is resized on the fly
 *             (no level image is stored) and scanned 32 pixels at a time
 *             with warp shuffles, carrying the running sum between chunks.
 *             The policy's block is a number of warps (rows per block).
 *  - cols:    a block of bx columns x by threads; each thread sums one
 *             segment of its column, the block scans the segment totals in
 *             shared memory, and each thread rewrites its segment with the
 *             running total: two coalesced passes, any block shape.
 *  - cascade: one thread per window, 2D over the level's window grid. A
 *             thread leaves at the first stage that rejects its window;
 *             the rare survivors append themselves to the output list with
 *             one atomicAdd (the compaction).
 *  - draw:    one thread per border pixel, one grid row per box. */
#include "facedetect_kernels.h"
#include "face_draw.h"
#include "../common/launch_util.cuh"

#include <climits>

namespace cudavision {

namespace {

KernelTraits
traits (const char *name, BlockShape b, bool two_d)
{
  KernelTraits t;
  t.name = name;
  t.static_block = b;
  t.two_d = two_d;
  return t;
}

__global__ void
rows_kernel (const uint8_t *__restrict__ src, size_t src_pitch, int src_w, int src_h, int w, int h, double scale_x,
    double scale_y, uint32_t *__restrict__ sum, uint32_t *__restrict__ sq, size_t pitch)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int warps = (blockDim.x * blockDim.y) >> 5;
  const int warp = tid >> 5, lane = tid & 31;
  if (warp >= warps)
    return;  /* a partial last warp takes no row */
  for (int r = blockIdx.x * warps + warp; r <= h; r += gridDim.x * warps) {
    uint32_t *srow = sum + (size_t) r * pitch;
    uint32_t *qrow = sq + (size_t) r * pitch;
    if (r == 0) {
      for (int c = lane; c <= w; c += 32) {
        srow[c] = 0;
        qrow[c] = 0;
      }
      continue;
    }
    const haar::ResizeTap ty = haar::resize_tap (r - 1, scale_y, src_h);
    const uint8_t *p0 = src + (size_t) ty.i0 * src_pitch;
    const uint8_t *p1 = src + (size_t) ty.i1 * src_pitch;
    if (lane == 0) {
      srow[0] = 0;
      qrow[0] = 0;
    }
    uint32_t carry_s = 0, carry_q = 0;
    for (int x0 = 0; x0 < w; x0 += 32) {
      const int dx = x0 + lane;
      uint32_t v = 0;
      if (dx < w) {
        const haar::ResizeTap tx = haar::resize_tap (dx, scale_x, src_w);
        v = haar::resize_v (haar::resize_h (__ldg (p0 + tx.i0), __ldg (p0 + tx.i1), tx),
            haar::resize_h (__ldg (p1 + tx.i0), __ldg (p1 + tx.i1), tx), ty);
      }
      uint32_t s = v, q = v * v;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const uint32_t ps = __shfl_up_sync (0xffffffffu, s, o);
        const uint32_t pq = __shfl_up_sync (0xffffffffu, q, o);
        if (lane >= o) {
          s += ps;
          q += pq;
        }
      }
      if (dx < w) {
        srow[dx + 1] = carry_s + s;
        qrow[dx + 1] = carry_q + q;
      }
      carry_s += __shfl_sync (0xffffffffu, s, 31);
      carry_q += __shfl_sync (0xffffffffu, q, 31);
    }
  }
}

__global__ void
cols_kernel (uint32_t *__restrict__ sum, uint32_t *__restrict__ sq, size_t pitch, int w, int h)
{
  extern __shared__ uint32_t part[];  /* [2][blockDim.y][blockDim.x] */
  const int bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * bx + tx;
  const int seg = (h + by - 1) / by;
  const int r0 = 1 + ty * seg;
  const int r1 = min (r0 + seg, h + 1);
  const bool active = col <= w;
  uint32_t s = 0, q = 0;
  if (active)
    for (int r = r0; r < r1; r++) {
      s += sum[(size_t) r * pitch + col];
      q += sq[(size_t) r * pitch + col];
    }
  part[ty * bx + tx] = s;
  part[(by + ty) * bx + tx] = q;
  __syncthreads ();
  uint32_t os = 0, oq = 0;
  for (int k = 0; k < ty; k++) {
    os += part[k * bx + tx];
    oq += part[(by + k) * bx + tx];
  }
  if (active)
    for (int r = r0; r < r1; r++) {
      const size_t i = (size_t) r * pitch + col;
      os += sum[i];
      oq += sq[i];
      sum[i] = os;
      sq[i] = oq;
    }
}

template <bool STUMPS>
__global__ void
cascade_kernel (haar::CascadeView c, const uint32_t *__restrict__ sum, const uint32_t *__restrict__ sq, int pitch,
    int grid_x, int grid_y, int step, float scale, int win_w, int win_h, int4 *__restrict__ list, unsigned capacity)
{
  const int gx = blockIdx.x * blockDim.x + threadIdx.x;
  if (gx >= grid_x)
    return;
  const int x = gx * step;
  for (int gy = blockIdx.y * blockDim.y + threadIdx.y; gy < grid_y; gy += gridDim.y * blockDim.y) {
    const int y = gy * step;
    const uint32_t *row_s = sum + (size_t) y * pitch;
    const uint32_t *row_q = sq + (size_t) y * pitch;
    if (haar::eval_window<STUMPS> (c, row_s + x, row_q + x, pitch, INT_MAX) != 1)
      continue;
    if (!haar::evaluated_by_opencv<STUMPS> (c, row_s, row_q, pitch, gx, step))
      continue;
    const unsigned i = atomicAdd (reinterpret_cast<unsigned *> (list), 1u);
    if (i < capacity)
      list[1 + i] = make_int4 (haar::round_f (haar::fmul ((float) x, scale)),
          haar::round_f (haar::fmul ((float) y, scale)), win_w, win_h);
  }
}

__global__ void
draw_kernel (uint8_t *frame, size_t pitch, int width, int height, const int4 *__restrict__ boxes, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int b = blockIdx.y * blockDim.y + threadIdx.y; b < n; b += gridDim.y * blockDim.y) {
    const int4 r = boxes[b];
    const BoxBorder border = box_border (r.x, r.y, r.z, r.w, width, height);
    if (i >= border.count ())
      continue;
    int x, y;
    border.pixel (i, &x, &y);
    *reinterpret_cast<uint32_t *> (frame + (size_t) y * pitch + (size_t) x * 4) = kFaceBoxPixel;
  }
}

void
hook_call (const facedetect::HookContext & hc, const KernelTraits & t, long w, long h, const LaunchConfig & c,
    bool end, cudaStream_t stream)
{
  if (hc.hook && *hc.hook) {
    FaceKernelLaunch l;
    l.kernel = t.name;
    l.level = hc.level;
    l.width = w;
    l.height = h;
    l.config = c;
    (*hc.hook) (l, end, stream);
  }
}

}  // namespace

const KernelTraits &
facedetect_rows_traits ()
{
  /* x-only: a block is a number of warps, each one row */
  static const KernelTraits t = traits ("facedetect.rows", { 128, 1 }, false);
  return t;
}

const KernelTraits &
facedetect_cols_traits ()
{
  static const KernelTraits t = traits ("facedetect.cols", { 32, 16 }, true);
  return t;
}

const KernelTraits &
facedetect_cascade_traits ()
{
  static const KernelTraits t = traits ("facedetect.cascade", { 32, 8 }, true);
  return t;
}

const KernelTraits &
facedetect_draw_traits ()
{
  static const KernelTraits t = traits ("facedetect.draw", { 256, 1 }, false);
  return t;
}

namespace facedetect {

CudaStatus
launch_rows (ConstImage8 src, int w, int h, uint32_t *sum, uint32_t *sq, size_t pitch, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc)
{
  const KernelTraits & t = facedetect_rows_traits ();
  LaunchConfig c = policy.choose (t, cached_resources (rows_kernel), w, h);
  /* The shape's thread count is what matters here: whole warps, one row
   * each. A block under one warp would take no row at all. */
  if (c.block.threads () < 32)
    c.block = { 32, 1 };
  const unsigned warps = c.block.threads () / 32;
  c.grid_x = (unsigned) ((h + 1 + warps - 1) / warps);
  c.grid_y = 1;
  const double scale_x = 1. / ((double) w / src.width);
  const double scale_y = 1. / ((double) h / src.height);
  hook_call (hc, t, w, h, c, false, stream);
  rows_kernel<<<dim3 (c.grid_x), block_dim (c), 0, stream>>> (src.data, src.pitch, src.width, src.height, w, h,
      scale_x, scale_y, sum, sq, pitch);
  CV_CUDA_TRY_LAUNCH ("facedetect rows_kernel");
  hook_call (hc, t, w, h, c, true, stream);
  return {};
}

CudaStatus
launch_cols (uint32_t *sum, uint32_t *sq, size_t pitch, int w, int h, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc)
{
  const KernelTraits & t = facedetect_cols_traits ();
  KernelResources res = cached_resources (cols_kernel);
  res.dynamic_smem_per_thread = 2 * sizeof (uint32_t);
  LaunchConfig c = policy.choose (t, res, w + 1, h);
  /* Threads along y split each column into segments: one row of blocks. */
  c.grid_y = 1;
  const size_t smem = (size_t) c.block.threads () * 2 * sizeof (uint32_t);
  hook_call (hc, t, w + 1, h, c, false, stream);
  cols_kernel<<<dim3 (c.grid_x), block_dim (c), smem, stream>>> (sum, sq, pitch, w, h);
  CV_CUDA_TRY_LAUNCH ("facedetect cols_kernel");
  hook_call (hc, t, w + 1, h, c, true, stream);
  return {};
}

CudaStatus
launch_cascade (const haar::CascadeView & cascade, bool stumps, const uint32_t *sum, const uint32_t *sq,
    size_t pitch, const FaceLevel & level, int4 *list, unsigned capacity, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc)
{
  if (level.grid_x <= 0 || level.grid_y <= 0)
    return {};
  const KernelTraits & t = facedetect_cascade_traits ();
  auto kernel = stumps ? cascade_kernel<true> : cascade_kernel<false>;
  const LaunchConfig c = policy.choose (t, cached_resources (kernel), level.grid_x, level.grid_y);
  hook_call (hc, t, level.grid_x, level.grid_y, c, false, stream);
  kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (cascade, sum, sq, (int) pitch, level.grid_x, level.grid_y,
      level.step, level.scale, level.win_width, level.win_height, list, capacity);
  CV_CUDA_TRY_LAUNCH ("facedetect cascade_kernel");
  hook_call (hc, t, level.grid_x, level.grid_y, c, true, stream);
  return {};
}

CudaStatus
launch_draw (Image8 frame, const int4 *boxes, int n, int max_border, const LaunchPolicy & policy,
    cudaStream_t stream, const HookContext & hc)
{
  if (n <= 0 || max_border <= 0)
    return {};
  const KernelTraits & t = facedetect_draw_traits ();
  const LaunchConfig c = policy.choose (t, cached_resources (draw_kernel), max_border, n);
  hook_call (hc, t, max_border, n, c, false, stream);
  draw_kernel<<<grid_dim (c), block_dim (c), 0, stream>>> (frame.data, frame.pitch, frame.width, frame.height,
      boxes, n);
  CV_CUDA_TRY_LAUNCH ("facedetect draw_kernel");
  hook_call (hc, t, max_border, n, c, true, stream);
  return {};
}

}  // namespace facedetect
}  // namespace cudavision
