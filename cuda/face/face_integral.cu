/* cudavision — the face detector's integral images, every level of a batch
 * in two launches (see facedetect_kernels.h).
 *
 *  - rows: one warp per integral row of any level (the BatchMap of row
 *    counts says which); the row is resized on the fly (no level image is
 *    stored) and scanned 32 pixels at a time with warp shuffles, carrying
 *    the running sum between chunks. The policy's block is a number of
 *    warps.
 *  - cols: a block of bx columns x by threads over one level's column
 *    group (the BatchMap of block counts says which); each thread sums one
 *    segment of its column, the block scans the segment totals in shared
 *    memory, and each thread rewrites its segment with the running total:
 *    two coalesced passes, any block shape.
 * A hand-written scan rather than CUB's: the rows are resized on the fly
 * into the scan, and both passes work on many short, differently sized
 * segments of one launch, which CUB's device scans do not take. */
#include "facedetect_kernels.h"
#include "../common/launch_util.cuh"

namespace cudavision {

namespace {

__global__ void
rows_kernel (ConstImage8 src, const facedetect::LevelDesc *__restrict__ levels, facedetect::BatchMap rows,
    uint32_t *__restrict__ sum, uint32_t *__restrict__ sq)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int warps = (blockDim.x * blockDim.y) >> 5;
  const int warp = tid >> 5, lane = tid & 31;
  if (warp >= warps)
    return;  /* a partial last warp takes no row */
  const int total = rows.total ();
  for (int g = blockIdx.x * warps + warp; g < total; g += gridDim.x * warps) {
    const int li = rows.level_of (g);
    const facedetect::LevelDesc & L = levels[li];
    const int r = g - rows.begin[li], w = L.width;
    uint32_t *srow = sum + L.offset + (size_t) r * L.pitch;
    uint32_t *qrow = sq + L.offset + (size_t) r * L.pitch;
    if (r == 0) {
      for (int c = lane; c <= w; c += 32) {
        srow[c] = 0;
        qrow[c] = 0;
      }
      continue;
    }
    const double scale_x = L.scale_x;
    const haar::ResizeTap ty = haar::resize_tap (r - 1, L.scale_y, src.height);
    const uint8_t *p0 = src.data + (size_t) ty.i0 * src.pitch;
    const uint8_t *p1 = src.data + (size_t) ty.i1 * src.pitch;
    if (lane == 0) {
      srow[0] = 0;
      qrow[0] = 0;
    }
    uint32_t carry_s = 0, carry_q = 0;
    for (int x0 = 0; x0 < w; x0 += 32) {
      const int dx = x0 + lane;
      uint32_t v = 0;
      if (dx < w) {
        const haar::ResizeTap tx = haar::resize_tap (dx, scale_x, src.width);
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
cols_kernel (const facedetect::LevelDesc *__restrict__ levels, facedetect::BatchMap blocks, uint32_t *__restrict__ sum,
    uint32_t *__restrict__ sq)
{
  extern __shared__ uint32_t part[];  /* [2][blockDim.y][blockDim.x] */
  const int li = blocks.level_of (blockIdx.x);
  const facedetect::LevelDesc & L = levels[li];
  const int bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int col = (blockIdx.x - blocks.begin[li]) * bx + tx;
  const int h = L.height;
  const int seg = (h + by - 1) / by;
  const int r0 = 1 + ty * seg;
  const int r1 = min (r0 + seg, h + 1);
  const bool active = col <= L.width;
  uint32_t *s_col = sum + L.offset + col, *q_col = sq + L.offset + col;
  const size_t pitch = L.pitch;
  uint32_t s = 0, q = 0;
  if (active)
#pragma unroll 4
    for (int r = r0; r < r1; r++) {
      s += s_col[r * pitch];
      q += q_col[r * pitch];
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
#pragma unroll 4
    for (int r = r0; r < r1; r++) {
      os += s_col[r * pitch];
      oq += q_col[r * pitch];
      s_col[r * pitch] = os;
      q_col[r * pitch] = oq;
    }
}

}  // namespace

const KernelTraits &
facedetect_rows_traits ()
{
  /* x-only: a block is a number of warps, each one row */
  static const KernelTraits t = kernel_traits ("facedetect.rows", { 128, 1 }, false);
  return t;
}

/* Fixed: x is a warp of columns, y the segments of each column, and the
 * grid has one block per column group whatever the shape; more segments
 * only add parallelism, so a full block of 32 x 32 is the kernel's shape
 * (measured on an H100, docs/BLOCK-SIZING.md: the best of every shape at 9
 * of 12 sizes, within 3% at the others; the model, which sees an ordinary
 * 2D kernel, chose shapes up to 14x slower). */
const KernelTraits &
facedetect_cols_traits ()
{
  static const KernelTraits t = [] {
    KernelTraits k = kernel_traits ("facedetect.cols", { 32, 32 }, true);
    k.fixed_block = true;
    return k;
  }();
  return t;
}

namespace facedetect {

CudaStatus
launch_integrals (ConstImage8 src, const BatchView & b, const LaunchPolicy & policy, cudaStream_t stream,
    const HookContext & hc)
{
  {
    const KernelTraits & t = facedetect_rows_traits ();
    LaunchConfig c = policy.choose (t, cached_resources (rows_kernel), hc.frame_width, hc.frame_height);
    /* The shape's thread count is what matters here: whole warps, one row
     * each. A block under one warp would take no row at all. */
    if (c.block.threads () < 32)
      c.block = { 32, 1 };
    const BatchMap rows = make_batch_map (*b.plan, *b.batch, [] (const LevelDesc & d) { return d.height + 1; });
    const unsigned warps = c.block.threads () / 32;
    c.grid_x = (unsigned) ((rows.total () + warps - 1) / warps);
    c.grid_y = 1;
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
    rows_kernel<<<dim3 (c.grid_x), block_dim (c), 0, stream>>> (src, b.levels, rows, b.sum, b.sq);
    CV_CUDA_TRY_LAUNCH ("facedetect rows_kernel");
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  }
  {
    const KernelTraits & t = facedetect_cols_traits ();
    KernelResources res = cached_resources (cols_kernel);
    res.dynamic_smem_per_thread = 2 * sizeof (uint32_t);
    LaunchConfig c = policy.choose (t, res, hc.frame_width, hc.frame_height);
    const unsigned bx = c.block.x;
    /* Threads along y split each column into segments: one block per
     * column group of each level. */
    const BatchMap blocks = make_batch_map (*b.plan, *b.batch,
        [bx] (const LevelDesc & d) { return (d.width + 1 + (int) bx - 1) / (int) bx; });
    c.grid_x = (unsigned) blocks.total ();
    c.grid_y = 1;
    const size_t smem = (size_t) c.block.threads () * 2 * sizeof (uint32_t);
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
    cols_kernel<<<dim3 (c.grid_x), block_dim (c), smem, stream>>> (b.levels, blocks, b.sum, b.sq);
    CV_CUDA_TRY_LAUNCH ("facedetect cols_kernel");
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  }
  return {};
}

}  // namespace facedetect
}  // namespace cudavision
