/* cudavision — canny.merge, canny.roots and canny.weak, steps 2-4 of
 * canny.h (device code, included by canny_kernels.cu only). */
#pragma once

#include "canny_hysteresis.cuh"

namespace cudavision {
namespace canny_detail {

/* canny.merge's work items per tile: the right line's rows, the bottom
 * line's columns, the two lower corners. */
constexpr int kMergeItems = kTileH + kTileW + 2;
static_assert (kMergeItems == 64, "merge items");

/* ------------------------------------------------------------ steps 2-4 */

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

/* Every tile's right line against the next tile's left one, its bottom
 * line against the top one of the tile below, and its lower corners
 * against the diagonal tiles: all 8-adjacencies across tile borders, one
 * work item per pixel of a right or bottom line. Reads only the records;
 * unites the open components' nodes (and with node 0 next to E). */
__global__ void
canny_merge_kernel (const TileRecord *__restrict__ rec, int tiles_x, int tiles_y, long work, int *parent)
{
  for (long i = linear_thread (); i < work; i += thread_count ()) {
    const long tile = i / kMergeItems;
    const int k = (int) (i - tile * kMergeItems);
    const int tx = (int) (tile % tiles_x), ty = (int) (tile / tiles_x);
    const TileRecord *A = rec + tile;
    if (k < kTileH) {
      if (tx + 1 < tiles_x)
        merge_lines (A, tile, kRight, A + 1, tile + 1, kLeft, k, parent);
    } else if (k < kTileH + kTileW) {
      if (ty + 1 < tiles_y)
        merge_lines (A, tile, kBottom, A + tiles_x, tile + tiles_x, kTop, k - kTileH, parent);
    } else if (k == kTileH + kTileW) {
      if (tx + 1 < tiles_x && ty + 1 < tiles_y)
        merge_corner (A, tile, kRight, kTileH - 1, A + tiles_x + 1, tile + tiles_x + 1, kLeft, 0, parent);
    } else {
      if (tx > 0 && ty + 1 < tiles_y)
        merge_corner (A, tile, kLeft, kTileH - 1, A + tiles_x - 1, tile + tiles_x - 1, kRight, 0, parent);
    }
  }
}

/* Every listed node takes its final root as parent (full compression) and
 * its tile learns whether that root is node 0 (strong). */
__global__ void
canny_roots_kernel (int *parent, const uint32_t *__restrict__ nodes, OpenTile *open_tiles, const DeviceState *state)
{
  const long n = state->root_count;
  for (long i = linear_thread (); i < n; i += thread_count ()) {
    const int node = (int) nodes[i];
    const int r = find_compress (parent, node);
    open_tiles[(node - 1) / kNodesPerTile].strong[(node - 1) % kNodesPerTile] = r == 0 ? 1 : 0;
  }
}

/* A warp per open tile: its W filled again from the components that joined
 * a strong pixel, which become 255 (the tile kernel wrote 0 there). Fixed
 * 32 x 4 (warp-wide fills). */
__global__ void __launch_bounds__ (128)
canny_weak_kernel (uint8_t *dst, size_t pitch, int tiles_x, const uint32_t *__restrict__ open_list,
    const OpenTile *__restrict__ open_tiles, const DeviceState *state)
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
      for (uint32_t m = __ballot_sync (kFull, i < k && t.strong[i]); m; m &= m - 1) {
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
