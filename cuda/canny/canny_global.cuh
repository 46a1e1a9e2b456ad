/* cudavision — canny.merge and canny.weak, steps 2 and 3 of canny.h
 * (device code, included by canny_kernels.cu only). */
#pragma once

#include "canny_hysteresis.cuh"

namespace cudavision {
namespace canny_detail {

/* canny.merge's work items per tile, as its launch asks the policy for
 * them (the tuning tables' key): the right line's rows, the bottom line's
 * columns, the two lower corners. The kernel itself strides over the open
 * tiles' items (kMergeItemsPerOpenTile each). */
constexpr int kMergeItems = kTileH + kTileW + 2;
static_assert (kMergeItems == 64, "merge items");

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
 * tiles have W on a border with a tile beyond): 128 items per listed open
 * tile, 32 consecutive ones per border line (a warp's loads of the list
 * and the line are one address). Reads the records; unites the open
 * components' nodes, and with node 0 next to E. Any block shape. */
__global__ void
canny_merge_kernel (const TileRecord *__restrict__ rec, const uint32_t *__restrict__ open_list,
    const DeviceState *state, int tiles_x, int tiles_y, int *parent)
{
  const long work = (long) state->open_count * kMergeItemsPerOpenTile;
  for (long item = linear_thread (); item < work; item += thread_count ()) {
    const long tile = __ldg (open_list + item / kMergeItemsPerOpenTile);
    const int k = (int) (item % kMergeItemsPerOpenTile);
    merge_item (rec, tile, k >> 5, k & 31, tiles_x, tiles_y, parent);
  }
}

/* A warp per open tile: the root of each of its components (a lane each;
 * the unions are over), then its W filled again from the components whose
 * root is node 0 (joined to a strong pixel), which become 255 (the tile
 * kernel wrote 0 there). Fixed 32 x 4 (warp-wide fills). */
__global__ void __launch_bounds__ (128)
canny_weak_kernel (uint8_t *dst, size_t pitch, int tiles_x, const uint32_t *__restrict__ open_list,
    const OpenTile *__restrict__ open_tiles, const int *__restrict__ parent, const DeviceState *state)
{
  const int lane = threadIdx.x;
  const long n = state->open_count;
  for (long o = (long) blockIdx.x * blockDim.y + threadIdx.y; o < n; o += (long) gridDim.x * blockDim.y) {
    const uint32_t tile = open_list[o];
    const OpenTile &t = open_tiles[tile];
    const int k = (int) t.components;
    uint32_t seed = 0;
#pragma unroll
    for (int half = 0; half < 2; half++) {
      const int i = lane + 32 * half;
      const bool strong = i < k && find_root (parent, tile_node (tile, i)) == 0;
      for (uint32_t m = __ballot_sync (kFull, strong); m; m &= m - 1) {
        const int p = t.rep[32 * half + __ffs (m) - 1];
        if (lane == p >> 5)
          seed |= 1u << (p & 31);
      }
    }
    if (!__any_sync (kFull, seed != 0))
      continue;
    const uint32_t F = warp_fill (seed, t.weak[lane]);
    const int x0 = (int) (tile % tiles_x) * kTileW, y0 = (int) (tile / tiles_x) * kTileH;
    for (uint32_t rows = __ballot_sync (kFull, F != 0); rows; rows &= rows - 1) {
      const int r = __ffs (rows) - 1;
      const uint32_t f = __shfl_sync (kFull, F, r);
      if ((f >> lane) & 1u)
        dst[(size_t) (y0 + r) * pitch + x0 + lane] = 255;
    }
  }
}

}  // namespace canny_detail
}  // namespace cudavision
