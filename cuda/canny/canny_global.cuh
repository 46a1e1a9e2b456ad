/* cudavision — canny.merge and canny.weak, steps 2 and 3 of canny.h
 * (device code, included by canny_kernels.cu only). */
#pragma once

#include "canny_hysteresis.cuh"
#include "../common/launch_util.cuh"

namespace cudavision {
namespace canny_detail {

/* canny.merge's work items per tile, a thread each (merge_item): the
 * right line's rows, the bottom line's columns, the two lower corners.
 * One pixel a thread keeps each thread's chain of unions short: the
 * kernel's time is its longest chain, not its total work. */
constexpr int kMergeItems = kTileH + kTileW + 2;
static_assert (kMergeItems == 64, "merge items: two warps a tile");

/* ------------------------------------------------------------ steps 2-3 */

__device__ __forceinline__ long
linear_thread ()
{
  const long block = (long) blockIdx.y * gridDim.x + blockIdx.x;
  return block * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ long
thread_count ()
{
  return (long) gridDim.x * gridDim.y * blockDim.x * blockDim.y;
}

/* All 8-adjacencies across tile borders that involve a W pixel (only open
 * tiles have W on a border with a tile beyond), each pair of tiles merged
 * once (merge_item): kMergeItems threads a tile, the pixels without W on
 * either side end at their first loads. Reads the records; unites the
 * open components' nodes, and with node 0 next to E. Any block shape. */
__global__ void
canny_merge_kernel (const TileRecord *__restrict__ rec, int tiles_x, int tiles_y, int *parent)
{
  allow_next_grid ();        /* canny.weak may launch: it waits for this grid's end */
  wait_for_previous_grid (); /* launched before canny.tile's end */
  const long work = (long) tiles_x * tiles_y * kMergeItems;
  for (long item = linear_thread (); item < work; item += thread_count ())
    merge_item (rec, (int) (item / kMergeItems), (int) (item % kMergeItems), tiles_x, tiles_y, parent);
}

/* A warp per tile; for an open one, the root of each of its components
 * (the unions are over), then the pixels of the components whose root
 * is node 0 (joined to a strong pixel) from the tile's label planes,
 * which become 255 (the tile kernel wrote 0 there). The planes are
 * loaded with the roots, not after them. Fixed 32 x 4 (a row a lane). */
__global__ void __launch_bounds__ (128)
canny_weak_kernel (uint8_t *dst, size_t pitch, int tiles_x, int tiles, const OpenTile *__restrict__ open_tiles,
    const int *__restrict__ parent)
{
  wait_for_previous_grid (); /* launched before canny.merge's end */
  const int lane = threadIdx.x;
  for (int tile = blockIdx.x * blockDim.y + threadIdx.y; tile < tiles; tile += gridDim.x * blockDim.y) {
    const OpenTile &t = open_tiles[tile];
    const int k = (int) __ldg (&t.components);
    if (k == 0)
      continue;
    /* this lane's row of each plane the tile wrote */
    const int planes = label_planes (k);
    uint32_t label[kLabelPlanes];
#pragma unroll
    for (int b = 0; b < kLabelPlanes; b++)
      label[b] = b < planes ? __ldg (&t.label[b][lane]) : 0u;
    /* components lane and lane + 32: up to 32 components (nearly every
     * open tile) one walk to the root a lane, all walks side by side */
    const int c0 = lane, c1 = lane + 32;
    const bool s0 = c0 < k && find_root (parent, tile_node (tile, c0)) == 0;
    const bool s1 = c1 < k && find_root (parent, tile_node (tile, c1)) == 0;
    const uint32_t m0 = __ballot_sync (kFull, s0), m1 = __ballot_sync (kFull, s1);
    if (!(m0 | m1))
      continue;
    /* the row's pixels labelled c + 1 for each such component c */
    uint32_t F = 0;
#pragma unroll
    for (int h = 0; h < 2; h++)
      for (uint32_t m = h ? m1 : m0; m; m &= m - 1) {
        const uint32_t v = (uint32_t) (32 * h + __ffs (m));
        uint32_t match = kRowMask;
#pragma unroll
        for (int b = 0; b < kLabelPlanes; b++)
          match &= ((v >> b) & 1u) ? label[b] : ~label[b];
        F |= match;
      }
    /* a row a step (lane = column), the steps independent of each other,
     * in groups of 8 rows, a group without a filled row skipped (most of
     * a tile's rows on a frame of few edges) */
    const int x0 = (tile % tiles_x) * kTileW, y0 = (tile / tiles_x) * kTileH;
    uint8_t *out = dst + (size_t) y0 * pitch + x0 + lane;
    const uint32_t rows = __ballot_sync (kFull, F != 0);
#pragma unroll
    for (int g = 0; g < kTileH; g += 8) {
      if (!((rows >> g) & 0xffu))
        continue;
#pragma unroll
      for (int r = g; r < g + 8; r++)
        if ((__shfl_sync (kFull, F, r) >> lane) & 1u)
          out[(size_t) r * pitch] = 255;
    }
  }
}

}  // namespace canny_detail
}  // namespace cudavision
