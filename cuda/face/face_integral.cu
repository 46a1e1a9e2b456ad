/* cudavision — the face detector's integral images, every level of a batch
 * in three launches (see facedetect_kernels.h).
 *
 * The integrals are most of a frame's memory traffic: 8 bytes per pixel
 * of every level, about 380 MB at 3840x2160, more than L2 holds. They are
 * written once, and nothing of that size is read: a summed-area table in
 * tiles with small carries between them (Nehab et al., "GPU-efficient
 * recursive filtering and summed-area tables", 2011), where the former
 * row-then-column scans wrote the row sums, read them twice and wrote
 * them again (docs/PERFORMANCE.md, "Why the kernels are built as they are").
 * The tiles are the integral's, 128 entries wide and 32 tall: entry
 * (x, y) stands for pixel (x - 1, y - 1) of the level and row 0 and
 * column 0 for zeros, so that the integral is the inclusive sum of the
 * entries above and left, and every tile row is one aligned run of 512
 * bytes. A warp takes a tile, each lane 4 neighbouring columns of it.
 *  - tiles: four warps a tile, eight rows each (kTileWarps).
 *    Resizes the tile from the luma (INTER_LINEAR_EXACT: the columns'
 *    taps computed once per tile, row r's by lane r and passed round by a
 *    shuffle), stores the level image as bytes and sums each column (the
 *    warps' column sums meet in shared memory); each row's sum over the
 *    tile is a warp reduction. Writes the
 *    level image (1 byte a pixel) and the carries: each row's tile sums
 *    and each column's tile sums, of the pixels and their squares.
 *  - carries: a thread per row and per column of every level. A row
 *    thread turns its tile sums into the sums of the row left of each
 *    tile (an exclusive scan over the tiles), a column thread its column
 *    sums into the sums above each tile; the 32 row threads of one tile
 *    row (a warp) also add up their left sums into the tile's left block.
 *  - integral: from the carries, the integral's row above the tile (the
 *    sums above each column, scanned along the tile's columns, plus the
 *    left blocks of the tiles above); then each row of the level image,
 *    scanned along the tile (in each lane, then over the lanes with warp
 *    shuffles) and started at the row's left sum, accumulates down the
 *    tile's columns. Writes the integrals, 16 bytes a lane.
 * All sums are uint32 and wrap as OpenCV's CV_32S integrals do: modulo
 * 2^32 the order of the additions changes nothing. A hand-written scan
 * rather than CUB's: the scans are short (a tile row, or a level's
 * tiles) and of many differently sized levels in one launch. */
#include "facedetect_kernels.h"
#include "../common/launch_util.cuh"
#include "../common/warp_ops.cuh"

namespace cudavision {

namespace {

using facedetect::BatchMap;
using facedetect::LevelCarries;
using facedetect::LevelDesc;

/* A warp's tile: its level and its column and row of tiles. */
struct Tile {
  int level, tx, ty;
};

__device__ __forceinline__ Tile
locate_tile (const LevelDesc *levels, const BatchMap & tiles, int g)
{
  Tile t;
  t.level = tiles.level_of (g);
  const int local = g - tiles.begin[t.level];
  const int ntx = facedetect::tile_columns (levels[t.level].width + 1);
  t.ty = local / ntx;
  t.tx = local - t.ty * ntx;
  return t;
}

/* Each lane takes this many neighbouring columns of its tile. */
constexpr int kLaneColumns = facedetect::kIntegralTileWidth / 32;
static_assert (kLaneColumns == 4, "a lane's columns are one 32-bit load of the level image");
static_assert (facedetect::kIntegralTileHeight == 32, "a tile row of rows is one warp of the carries kernel");
static_assert (facedetect::kIntegralAlign % kLaneColumns == 0, "a lane's columns are all inside the pitch or none");
/* Rows of a tile handled together: their loads in flight at once. */
constexpr int kRowBatch = 4;

/* A row's resize tap, packed for a shuffle: the first source row, whether
 * the second is the next one, and the second's weight. */
__device__ __forceinline__ uint32_t
pack_tap (const haar::ResizeTap & t)
{
  return (uint32_t) t.i0 | (uint32_t) (t.i1 - t.i0) << 16 | (uint32_t) t.w1 << 17;
}
__device__ __forceinline__ haar::ResizeTap
unpack_tap (uint32_t p)
{
  const int i0 = (int) (p & 0xffffu), w1 = (int) (p >> 17);
  return { i0, i0 + (int) ((p >> 16) & 1u), haar::kResizeOne - w1, w1 };
}

/* Warps that share a tile in the tiles kernel, each a run of its rows:
 * one warp walking all 32 rows left small frames (a few hundred tiles)
 * waiting on that chain. */
constexpr int kTileWarps = 4;
constexpr int kWarpRows = facedetect::kIntegralTileHeight / kTileWarps;
static_assert (kWarpRows % kRowBatch == 0, "a warp's rows are whole batches");

/* The tiles cover the integral's entries, (height + 1) x (width + 1):
 * entry (x, y) stands for pixel (x - 1, y - 1) of the level, and row 0
 * and column 0 for zeros. The integral is then the inclusive sum over
 * the entries above and left. Entries past the width, up to the pitch,
 * are zeros in the level image. A tile is kTileWarps warps of a block,
 * each kWarpRows rows; their column sums meet in shared memory. At most
 * 80 registers (77, no spills; 116 with unpacked column taps): six blocks
 * of 128 threads an SM instead of four, for a kernel that waits on its
 * gathered loads rather than its instructions. */
__global__ void __launch_bounds__ (768) tiles_kernel (ConstImage8 src, const LevelDesc *__restrict__ levels,
    BatchMap tiles, uint8_t *__restrict__ image, uint2 *__restrict__ carries)
{
  /* [tile of the block][warp][column j of the lanes][lane]: the warps'
   * column sums (lane l's column j is column 4 l + j of the tile; a warp's
   * store or load is 32 consecutive entries, no bank conflicts) */
  extern __shared__ uint2 column_parts[];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int per_block = (blockDim.x * blockDim.y) / (32 * kTileWarps);
  const int warp = tid >> 5, lane = tid & 31;
  const int slot = warp / kTileWarps, part = warp % kTileWarps;
  const int total = tiles.total ();
  uint2 *parts = column_parts + slot * kTileWarps * facedetect::kIntegralTileWidth;
  /* the loop is the block's (its barrier): every warp runs every turn */
  for (int base = blockIdx.x * per_block; base < total; base += gridDim.x * per_block) {
    const int g = base + slot;
    const bool active = slot < per_block && g < total;
    int rows = 0, x0 = 0, width = 0;
    size_t col_carries = 0;
    if (active) {
      const Tile t = locate_tile (levels, tiles, g);
      const LevelDesc & L = levels[t.level];
      const LevelCarries k = facedetect::level_carries (L);
      x0 = t.tx * facedetect::kIntegralTileWidth + lane * kLaneColumns;
      const int y0 = t.ty * facedetect::kIntegralTileHeight + part * kWarpRows;
      rows = max (0, min (kWarpRows, L.height + 1 - y0));
      width = L.width + 1;
      col_carries = k.cols + (size_t) t.ty * width + t.tx * facedetect::kIntegralTileWidth;
      const bool stored = x0 < L.pitch;
      /* the columns' taps, once per tile, packed (a register each, not
       * four: the kernel's registers bound its occupancy); lane r
       * computes row r's */
      uint32_t tx[kLaneColumns], col_in = 0;
#pragma unroll
      for (int j = 0; j < kLaneColumns; j++) {
        tx[j] = 0;
        if (x0 + j > 0 && x0 + j <= L.width) {
          tx[j] = pack_tap (haar::resize_tap (x0 + j - 1, L.scale_x, src.width));
          col_in |= 1u << j;
        }
      }
      const int ly = y0 + lane;
      const uint32_t my_tap =
          lane < rows && ly > 0 ? pack_tap (haar::resize_tap (ly - 1, L.scale_y, src.height)) : 0u;
      uint8_t *out = image + L.offset + (size_t) y0 * L.pitch + x0;
      uint32_t col_s[kLaneColumns] = {}, col_q[kLaneColumns] = {};
      uint32_t row_s = 0, row_q = 0;
      for (int r0 = 0; r0 < rows; r0 += kRowBatch) {
        uint32_t v[kRowBatch][kLaneColumns];
#pragma unroll
        for (int i = 0; i < kRowBatch; i++) {
          const int r = r0 + i;
          const haar::ResizeTap ty = unpack_tap (__shfl_sync (0xffffffffu, my_tap, r & 31));
          const bool row_in = r < rows && y0 + r > 0;
          const uint8_t *p0 = src.data + (size_t) ty.i0 * src.pitch;
          const uint8_t *p1 = src.data + (size_t) ty.i1 * src.pitch;
#pragma unroll
          for (int j = 0; j < kLaneColumns; j++) {
            v[i][j] = 0;
            if (row_in && ((col_in >> j) & 1u)) {
              const haar::ResizeTap c = unpack_tap (tx[j]);
              v[i][j] = haar::resize_v (haar::resize_h (__ldg (p0 + c.i0), __ldg (p0 + c.i1), c),
                  haar::resize_h (__ldg (p1 + c.i0), __ldg (p1 + c.i1), c), ty);
            }
          }
        }
#pragma unroll
        for (int i = 0; i < kRowBatch; i++) {
          const int r = r0 + i;
          if (r >= rows)
            break;
          uint32_t s = 0, q = 0;
#pragma unroll
          for (int j = 0; j < kLaneColumns; j++) {
            col_s[j] += v[i][j];
            col_q[j] += v[i][j] * v[i][j];
            s += v[i][j];
            q += v[i][j] * v[i][j];
          }
          if (stored)
            *reinterpret_cast<uint32_t *> (out + (size_t) r * L.pitch) =
                v[i][0] | v[i][1] << 8 | v[i][2] << 16 | v[i][3] << 24;
          s = warp_sum (s);
          q = warp_sum (q);
          if (lane == r) {  /* lane r keeps row r's sums: one coalesced store */
            row_s = s;
            row_q = q;
          }
        }
      }
      if (lane < rows)
        carries[k.rows + (size_t) t.tx * (L.height + 1) + y0 + lane] = make_uint2 (row_s, row_q);
#pragma unroll
      for (int j = 0; j < kLaneColumns; j++)
        parts[part * facedetect::kIntegralTileWidth + j * 32 + lane] = make_uint2 (col_s[j], col_q[j]);
    }
    __syncthreads ();
    /* the tile's column sums: warp `part` adds up column `part` of each
     * lane's four */
    if (active) {
      const int c = lane * kLaneColumns + part;
      uint2 sum = make_uint2 (0, 0);
#pragma unroll
      for (int w = 0; w < kTileWarps; w++) {
        const uint2 p = parts[w * facedetect::kIntegralTileWidth + part * 32 + lane];
        sum.x += p.x;
        sum.y += p.y;
      }
      const int x = x0 - lane * kLaneColumns + c;
      if (x < width)
        carries[col_carries + c] = sum;
    }
    __syncthreads ();  /* the parts are read before the next turn writes them */
  }
}

/* Carries scanned per thread this many at a time: the loads of a chunk
 * go out before its stores (a load after a store to the same array would
 * wait for it: one L2 round trip per tile). */
constexpr int kScanChunk = 8;

/* Replaces the n sums at p, p + stride, ... by their exclusive prefix
 * sums (nothing loaded or stored unless `valid`); visit (t, s, q) sees
 * each prefix in turn, in every thread. */
template <typename Visit>
__device__ __forceinline__ void
scan_carries (uint2 *p, size_t stride, int n, bool valid, Visit visit)
{
  uint32_t s = 0, q = 0;
  for (int t0 = 0; t0 < n; t0 += kScanChunk) {
    uint2 v[kScanChunk];
#pragma unroll
    for (int i = 0; i < kScanChunk; i++)
      v[i] = valid && t0 + i < n ? p[(size_t) (t0 + i) * stride] : make_uint2 (0, 0);
#pragma unroll
    for (int i = 0; i < kScanChunk; i++) {
      const int t = t0 + i;
      if (t >= n)
        break;
      if (valid)
        p[(size_t) t * stride] = make_uint2 (s, q);
      visit (t, s, q);
      s += v[i].x;
      q += v[i].y;
    }
  }
}

__global__ void
carries_kernel (const LevelDesc *__restrict__ levels, BatchMap threads, uint2 *__restrict__ carries)
{
  const int g = blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
  if (g >= threads.total ())
    return;  /* whole warps: every level's thread count is a multiple of 32 */
  const int li = threads.level_of (g);
  const LevelDesc & L = levels[li];
  const LevelCarries k = facedetect::level_carries (L);
  const int width = L.width + 1, height = L.height + 1;
  const int ntx = facedetect::tile_columns (width), nty = facedetect::tile_rows (height);
  const int local = g - threads.begin[li];
  const int row_threads = nty * facedetect::kIntegralTileHeight;
  if (local < row_threads) {
    /* a row: the sums left of each tile; the warp, one tile row, sums
     * them into the tiles' left blocks (every lane takes part) */
    const int y = local;
    scan_carries (carries + k.rows + y, height, ntx, y < height, [&] (int t, uint32_t s, uint32_t q) {
      const uint32_t bs = warp_sum (s), bq = warp_sum (q);
      if ((y & 31) == 0)
        carries[k.blocks + (size_t) t * nty + (y >> 5)] = make_uint2 (bs, bq);
    });
    return;
  }
  /* a column: the sums above each tile */
  const int x = local - row_threads;
  if (x < width)
    scan_carries (carries + k.cols + x, width, nty, true, [] (int, uint32_t, uint32_t) {});
}

__global__ void
integral_kernel (const LevelDesc *__restrict__ levels, BatchMap tiles, const uint8_t *__restrict__ image,
    const uint2 *__restrict__ carries, uint32_t *__restrict__ sum, uint32_t *__restrict__ sq)
{
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int warps = (blockDim.x * blockDim.y) >> 5;
  const int warp = tid >> 5, lane = tid & 31;
  if (warp >= warps)
    return;
  const int total = tiles.total ();
  for (int g = blockIdx.x * warps + warp; g < total; g += gridDim.x * warps) {
    const Tile t = locate_tile (levels, tiles, g);
    const LevelDesc & L = levels[t.level];
    const LevelCarries k = facedetect::level_carries (L);
    const int width = L.width + 1, height = L.height + 1;
    const int nty = facedetect::tile_rows (height);
    const int x0 = t.tx * facedetect::kIntegralTileWidth + lane * kLaneColumns;
    const int y0 = t.ty * facedetect::kIntegralTileHeight;
    const int rows = min (facedetect::kIntegralTileHeight, height - y0);
    const bool stored = x0 < L.pitch;
    /* the integral's row above the tile: everything above it, left of
     * and in its columns (a lane's own columns in turn, the lanes before
     * it by a warp scan, the tiles to the left by their blocks) */
    uint32_t acc_s[kLaneColumns], acc_q[kLaneColumns];
    uint32_t run_s = 0, run_q = 0;
#pragma unroll
    for (int j = 0; j < kLaneColumns; j++) {
      const uint2 a = x0 + j < width ? carries[k.cols + (size_t) t.ty * width + x0 + j] : make_uint2 (0, 0);
      run_s += a.x;
      run_q += a.y;
      acc_s[j] = run_s;
      acc_q[j] = run_q;
    }
    const uint2 lanes_before = warp_inclusive_scan (make_uint2 (run_s, run_q), lane);
    uint32_t corner_s = 0, corner_q = 0;
    for (int u = lane; u < t.ty; u += 32) {
      const uint2 b = carries[k.blocks + (size_t) t.tx * nty + u];
      corner_s += b.x;
      corner_q += b.y;
    }
    corner_s = warp_sum (corner_s) + lanes_before.x - run_s;
    corner_q = warp_sum (corner_q) + lanes_before.y - run_q;
#pragma unroll
    for (int j = 0; j < kLaneColumns; j++) {
      acc_s[j] += corner_s;
      acc_q[j] += corner_q;
    }
    /* lane r: row r's sums left of the tile */
    const uint2 left = lane < rows ? carries[k.rows + (size_t) t.tx * height + y0 + lane] : make_uint2 (0, 0);
    const size_t first = L.offset + (size_t) y0 * L.pitch + x0;
    for (int r0 = 0; r0 < rows; r0 += kRowBatch) {
      uint32_t v[kRowBatch];
#pragma unroll
      for (int i = 0; i < kRowBatch; i++)
        v[i] = stored && r0 + i < rows
            ? *reinterpret_cast<const uint32_t *> (image + first + (size_t) (r0 + i) * L.pitch)
            : 0u;
#pragma unroll
      for (int i = 0; i < kRowBatch; i++) {
        const int r = r0 + i;
        if (r >= rows)
          break;
        uint32_t ps[kLaneColumns], pq[kLaneColumns];
        uint32_t s = 0, q = 0;
#pragma unroll
        for (int j = 0; j < kLaneColumns; j++) {
          const uint32_t e = (v[i] >> (8 * j)) & 0xffu;
          s += e;
          q += e * e;
          ps[j] = s;
          pq[j] = q;
        }
        const uint2 p = warp_inclusive_scan (make_uint2 (s, q), lane);
        /* the row's sum left of this lane's columns */
        const uint32_t base_s = p.x - s + __shfl_sync (0xffffffffu, left.x, r);
        const uint32_t base_q = p.y - q + __shfl_sync (0xffffffffu, left.y, r);
#pragma unroll
        for (int j = 0; j < kLaneColumns; j++) {
          acc_s[j] += base_s + ps[j];
          acc_q[j] += base_q + pq[j];
        }
        if (stored) {
          const size_t o = first + (size_t) r * L.pitch;
          *reinterpret_cast<uint4 *> (sum + o) = make_uint4 (acc_s[0], acc_s[1], acc_s[2], acc_s[3]);
          *reinterpret_cast<uint4 *> (sq + o) = make_uint4 (acc_q[0], acc_q[1], acc_q[2], acc_q[3]);
        }
      }
    }
  }
}

/* Launch shape of a kernel whose block is a number of warps. */
LaunchConfig
warp_config (const KernelTraits & t, const KernelResources & res, const LaunchPolicy & policy,
    const facedetect::HookContext & hc)
{
  LaunchConfig c = policy.choose (t, res, hc.frame_width, hc.frame_height);
  /* whole warps: a block under one warp would take no tile at all */
  c.block = { std::max (32u, c.block.threads () / 32 * 32), 1 };
  c.grid_y = 1;
  return c;
}

}  // namespace

/* x-only: a block is a number of tiles, kTileWarps warps each (the
 * policy's thread count rounded down to whole tiles; its register count
 * caps it at 512 threads). */
const KernelTraits &
facedetect_tiles_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.tiles", { 128, 1 }, false);
  return t;
}

/* x-only: a block is a number of threads, each one row or column. */
const KernelTraits &
facedetect_carries_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.carries", { 128, 1 }, false);
  return t;
}

/* x-only: a block is a number of warps, each one tile at a time. */
const KernelTraits &
facedetect_integral_traits ()
{
  static const KernelTraits t = kernel_traits ("facedetect.integral", { 128, 1 }, false);
  return t;
}

namespace facedetect {

CudaStatus
launch_integrals (ConstImage8 src, const BatchView & b, const LaunchPolicy & policy, cudaStream_t stream,
    const facedetect::HookContext & hc)
{
  const BatchMap tiles = make_batch_map (*b.plan, *b.batch,
      [] (const LevelDesc & d) { return tile_columns (d.width + 1) * tile_rows (d.height + 1); });
  if (tiles.total () == 0)
    return {};
  {
    const KernelTraits & t = facedetect_tiles_traits ();
    KernelResources res = cached_resources (tiles_kernel);
    res.dynamic_smem_per_thread = kTileWarps * kIntegralTileWidth * sizeof (uint2) / (32 * kTileWarps);
    LaunchConfig c = warp_config (t, res, policy, hc);
    /* whole tiles: kTileWarps warps each */
    const unsigned tile_threads = 32 * kTileWarps;
    c.block = { std::max (tile_threads, c.block.threads () / tile_threads * tile_threads), 1 };
    const unsigned per_block = c.block.threads () / tile_threads;
    c.grid_x = (unsigned) ((tiles.total () + per_block - 1) / per_block);
    const size_t smem = (size_t) per_block * kTileWarps * kIntegralTileWidth * sizeof (uint2);
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
    tiles_kernel<<<dim3 (c.grid_x), block_dim (c), smem, stream>>> (src, b.levels, tiles, b.image, b.carries);
    CV_CUDA_TRY_LAUNCH ("facedetect tiles_kernel");
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  }
  {
    const KernelTraits & t = facedetect_carries_traits ();
    LaunchConfig c = warp_config (t, cached_resources (carries_kernel), policy, hc);
    /* a thread per row (whole warps per level: a warp is one tile row)
     * and per column (rounded up likewise, so no warp spans two levels) */
    const BatchMap threads = make_batch_map (*b.plan, *b.batch, [] (const LevelDesc & d) {
      /* rows: whole tile rows; columns: rounded up to whole warps */
      return tile_rows (d.height + 1) * kIntegralTileHeight + (d.width + 1 + 31) / 32 * 32;
    });
    c.grid_x = (unsigned) ((threads.total () + c.block.threads () - 1) / c.block.threads ());
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
    carries_kernel<<<dim3 (c.grid_x), block_dim (c), 0, stream>>> (b.levels, threads, b.carries);
    CV_CUDA_TRY_LAUNCH ("facedetect carries_kernel");
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  }
  {
    const KernelTraits & t = facedetect_integral_traits ();
    LaunchConfig c = warp_config (t, cached_resources (integral_kernel), policy, hc);
    const unsigned warps = c.block.threads () / 32;
    c.grid_x = (unsigned) ((tiles.total () + warps - 1) / warps);
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, false, stream);
    integral_kernel<<<dim3 (c.grid_x), block_dim (c), 0, stream>>> (b.levels, tiles, b.image, b.carries, b.sum,
        b.sq);
    CV_CUDA_TRY_LAUNCH ("facedetect integral_kernel");
    hook_call (hc, t, hc.frame_width, hc.frame_height, c, true, stream);
  }
  return {};
}

}  // namespace facedetect
}  // namespace cudavision
