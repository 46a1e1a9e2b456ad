/* cudavision — Canny's hysteresis on bit masks (device code, included by
 * canny_kernels.cu only; canny.h describes the steps).
 *
 * A tile is kTileW x kTileH pixels; a row of it is one 32-bit word (bit c =
 * column c) and lane r of the warp that owns the tile holds row r. On such
 * masks one warp does a connectivity fill with a few integer operations per
 * step for the whole tile:
 *  - along a row, fill_runs takes every run of the mask that holds a seed
 *    in one step (an addition propagates the seeds like carries);
 *  - across rows, shuffles bring the neighbour rows' fill, dilated by one
 *    column (8-connectivity), into the mask;
 *  - repeat until nothing changes (__any_sync).
 * A tile's own hysteresis is one fill (strong pixels into candidates, E);
 * what is left (W: weak candidates not connected to a strong one inside
 * the tile) matters only where it reaches a border with a tile beyond. Each
 * such "open" component gets one node of a global union-find (one fill per
 * component groups its border pixels), and a record of the tile's border
 * lines lets canny.merge unite the nodes across tile borders, or with the
 * node 0, which stands for "strong", where they touch E of a neighbour.
 * canny.weak then finds each open component's root and raises the
 * pixels of the components whose root is 0, which the tile's fills
 * labelled (OpenTile::label). */
#pragma once

#include "canny.h"
#include "../common/warp_ops.cuh"

#include <cstddef>
#include <cstdint>

namespace cudavision {
namespace canny_detail {

/* A tile row in one word (bit c = column c): 30 columns, as the stencil's
 * warp (lane = column) has a column of halo on each side. */
constexpr int kTileW = kCannyTileW;
constexpr int kTileH = kCannyTileH;
static_assert (kTileW <= 30 && kTileH == 32, "a row in a word, a row per lane");
constexpr uint32_t kRowMask = (1u << kTileW) - 1u;
constexpr unsigned kFull = 0xffffffffu;
/* Node slots per tile. Distinct open components own pairwise non-adjacent
 * border pixels, and the open border of a tile is at most its perimeter (a
 * cycle of 2 (30 + 32) - 4 = 120 pixels): at most 60 components. */
constexpr int kNodesPerTile = 64;

/* The border lines of a tile, as canny.merge needs them. Bit i of a line is
 * row i of a column (left, right) or column i of a row (top, bottom). */
enum { kLeft = 0, kRight = 1, kTop = 2, kBottom = 3 };
struct TileRecord {
  uint32_t weak[4];     /* W on each line (only lines with a tile beyond are read) */
  uint32_t edge[4];     /* E on each line */
  uint8_t comp[4][32];  /* the open component of each W bit (0 on a tile with nothing open) */
};

/* The open components' labels, bit-sliced: a pixel of component c has
 * bit b of c + 1 in row word [b][row], a pixel of none 0 in every plane.
 * canny.weak picks the pixels of the components joined to a strong pixel
 * with a few bit operations a component, where filling W again from a
 * pixel of each took as many dependent steps as the longest component's
 * span (label_planes: the planes a tile of k components uses). */
constexpr int kLabelPlanes = 7;
static_assert ((1 << kLabelPlanes) > kNodesPerTile, "c + 1 in kLabelPlanes bits");
__host__ __device__ constexpr int
label_planes (int components)
{
  int b = 0;
  while (b < kLabelPlanes && (components >> b) != 0)
    b++;
  return b;
}

/* A tile with open components: what canny.weak needs. */
struct OpenTile {
  uint32_t label[kLabelPlanes][kTileH]; /* the first label_planes (components) planes */
  uint32_t components;              /* (written for every tile: 0 if not open) */
  uint32_t pixels;                  /* the components' pixels (canny_read_counts) */
};

/* The automatic value and the median's histogram. canny.tile writes the
 * value every frame (no reset before a frame); the counts of
 * canny_read_counts are summed on the host from the OpenTiles. */
struct DeviceState {
  uint32_t auto_value; /* the automatic mode's value of the last frame */
  uint32_t hist[256];  /* the median's histogram: zero between frames */
};

/* Where the hysteresis keeps its state; all device pointers. */
struct HystArgs {
  uint8_t *dst;
  size_t dpitch;
  int w, h;
  int tiles_x, tiles_y;
  int *parent;           /* union-find: node 0 (strong), then kNodesPerTile per tile */
  TileRecord *records;   /* per tile */
  OpenTile *open_tiles;  /* per tile (components: every tile, the rest: open tiles) */
  DeviceState *state;
};

__host__ __device__ inline int
tile_node (long tile, int k)
{
  return (int) (1 + tile * kNodesPerTile + k);
}

/* ------------------------------------------------------------ bit fills */

/* Every run of `m` that holds a bit of `s` (s within m): from each seed to
 * the top of its run, and the same on the mirrored words for the bottom,
 * the two halves independent of each other (the fill's chain of dependent
 * steps is its longest half). Adding s to m carries through m's run from
 * each seed: the bits that flip are the run from the lowest seed up, and
 * the first bit past its top (outside m); seeds above the lowest keep
 * their bit and are added back. The mirrored sum may carry out of bit 31,
 * which only loses that first bit past the top. */
__device__ __forceinline__ uint32_t
fill_runs (uint32_t m, uint32_t s)
{
  const uint32_t up = (((m + s) ^ m) | s) & m;
  const uint32_t bm = __brev (m), bs = __brev (s);
  const uint32_t down = __brev ((((bm + bs) ^ bm) | bs) & bm);
  return up | down;
}

/* The pixels of `mask` 8-connected through `mask` to `seed`, over the
 * warp's tile (lane = row). A step: the runs of the fill's rows
 * (fill_runs), then the neighbour rows' fill, dilated by one column, into
 * the mask; two steps a test of whether anything changed (the test is a
 * vote, which the steps need not wait for). Lane 0's shuffle from above
 * (and lane 31's from below) gives its own fill, whose dilation within the
 * mask adds nothing to a row of whole runs: no lane needs a test. All 32
 * lanes must call it. */
__device__ __forceinline__ uint32_t
warp_fill (uint32_t seed, uint32_t mask)
{
  uint32_t f = seed & mask;
  for (;;) {
    f = fill_runs (mask, f);
    const uint32_t x0 = __shfl_up_sync (kFull, f, 1) | __shfl_down_sync (kFull, f, 1);
    f |= (x0 | (x0 << 1) | (x0 >> 1)) & mask;
    f = fill_runs (mask, f);
    const uint32_t x = __shfl_up_sync (kFull, f, 1) | __shfl_down_sync (kFull, f, 1);
    const uint32_t v = (x | (x << 1) | (x >> 1)) & mask & ~f;
    if (!__any_sync (kFull, v != 0))
      return f;
    f |= v;
  }
}

/* ------------------------------------------------------------ union-find */

/* While unions run: loads bypass L1 (not coherent within a launch). Path
 * halving keeps the trees shallow, with a compare-and-swap so that it never
 * undoes a concurrent link: it only replaces the exact parent it read by
 * that parent's parent. Node 0 (strong) is a root for good: a walk that
 * reaches it stops there without reading it (on an edge-rich frame nearly
 * every find ends at node 0, and a read of its parent, one address for
 * all of them, would queue at one L2 slice). */
__device__ __forceinline__ int
find_global (int *parent, int x)
{
  if (x == 0)
    return 0;
  for (;;) {
    const int p = __ldcg (parent + x);
    if (p == x || p == 0)
      return p;
    const int gp = __ldcg (parent + p);
    if (gp == p)
      return p;
    atomicCAS (parent + x, p, gp);
    if (gp == 0)
      return 0;
    x = gp;
  }
}

/* Lock-free union (Playne & Hawick): the larger root is linked under the
 * smaller with atomicMin; a failed link (someone linked that root first)
 * retries from what it found there. Parents only ever decrease, so every
 * union ends; node 0 (strong) is the smallest, so a component joined to a
 * strong pixel ends with root 0. */
__device__ __forceinline__ void
unite_global (int *parent, int a, int b)
{
  for (;;) {
    a = find_global (parent, a);
    b = find_global (parent, b);
    if (a == b)
      return;
    const int hi = max (a, b);
    const int old = atomicMin (&parent[hi], min (a, b));
    if (old == hi)
      return;
    (a > b ? a : b) = old;
  }
}

/* The union of node a with node 0 (strong): a's root is linked under 0. */
__device__ __forceinline__ void
unite_strong (int *parent, int a)
{
  for (;;) {
    a = find_global (parent, a);
    if (a == 0)
      return;
    const int old = atomicMin (&parent[a], 0);
    if (old == a)
      return;
    a = old; /* someone linked a first: on from there */
  }
}

/* Bytes 0 and 1 of the result: 0xff where bit 7, resp. 15, of v is set, 0
 * elsewhere (prmt's sign-replicating selectors, which __byte_perm's
 * documentation does not promise). */
__device__ __forceinline__ uint32_t
sign_bytes01 (uint32_t v)
{
  uint32_t r;
  asm ("prmt.b32 %0, %1, 0, 0x98;" : "=r"(r) : "r"(v));
  return r;
}

/* ------------------------------------------------------------ one tile */

/* The tile's W pixels on the lines that have a tile beyond (lane = row):
 * where open components touch their neighbours. */
__device__ __forceinline__ uint32_t
open_border (uint32_t mask, int tx, int ty, const HystArgs & a)
{
  const int lane = threadIdx.x & 31;
  uint32_t border = (tx > 0 ? 1u : 0u) | (tx + 1 < a.tiles_x ? 1u << (kTileW - 1) : 0u);
  if ((lane == 0 && ty > 0) || (lane == kTileH - 1 && ty + 1 < a.tiles_y))
    border = kRowMask;
  return border & mask;
}

/* The record's W and E lines (lanes 0..7 store them). */
__device__ __forceinline__ void
tile_record_lines (uint32_t W, uint32_t E, TileRecord *rec)
{
  const int lane = threadIdx.x & 31;
  const uint32_t wl = __ballot_sync (kFull, W & 1u), wr = __ballot_sync (kFull, (W >> (kTileW - 1)) & 1u);
  const uint32_t el = __ballot_sync (kFull, E & 1u), er = __ballot_sync (kFull, (E >> (kTileW - 1)) & 1u);
  const uint32_t wt = __shfl_sync (kFull, W, 0), wb = __shfl_sync (kFull, W, kTileH - 1);
  const uint32_t et = __shfl_sync (kFull, E, 0), eb = __shfl_sync (kFull, E, kTileH - 1);
  const uint32_t words[8] = { wl, wr, wt, wb, el, er, et, eb };
  uint32_t mine = 0;
#pragma unroll
  for (int i = 0; i < 8; i++)
    mine = lane == i ? words[i] : mine;
  if (lane < 8)
    (lane < 4 ? rec->weak : rec->edge)[lane & 3] = mine;
}

/* A tile that is not open: canny.weak reads that it has no components
 * (and canny_read_counts copies the pixel count beside it: defined memory
 * for compute-sanitizer's initcheck); the component lines are 0, as
 * canny.merge loads them with a pixel's other words, before it knows
 * whether it needs them. */
__device__ __forceinline__ void
tile_not_open (long tile, TileRecord *rec, const HystArgs & a)
{
  const int lane = threadIdx.x & 31;
  reinterpret_cast<uint32_t *> (rec->comp)[lane] = 0; /* the four lines, 4 bytes a lane */
  if (lane == 0) {
    a.open_tiles[tile].components = 0;
    a.open_tiles[tile].pixels = 0;
  }
}

/* The tile's pixels of dst: 255 on E, 0 elsewhere (open components are
 * raised to 255 by canny.weak). */
__device__ __forceinline__ void
tile_pixels (uint32_t E, int tx, int ty, const HystArgs & a)
{
  const int lane = threadIdx.x & 31;
  const int x0 = tx * kTileW, y0 = ty * kTileH;
  const int rows = min (kTileH, a.h - y0), cols = min (kTileW, a.w - x0);
  if (rows == kTileH && cols == kTileW && ((reinterpret_cast<uintptr_t> (a.dst) | a.dpitch) & 1u) == 0) {
    /* a whole tile, its rows at even addresses (x0 is even): two pixels a
     * lane, two rows a step (lanes 0..14 row 2t, lanes 16..30 row 2t + 1;
     * half the instructions of a byte a lane and a row a step). The lane's
     * two bits go to bits 7 and 15 (times 0x4080), whose sign bytes
     * __byte_perm spreads to 0x00 or 0xff. */
    const int half = lane >> 4, k = lane & 15;
    uint8_t *out = a.dst + (size_t) (y0 + half) * a.dpitch + x0 + 2 * k;
    if (!__any_sync (kFull, E != 0)) {
      /* no edge in the tile (most tiles of a photograph): zeros */
#pragma unroll
      for (int t = 0; t < kTileH / 2; t++)
        if (k < kTileW / 2)
          *reinterpret_cast<uint16_t *> (out + (size_t) (2 * t) * a.dpitch) = 0;
      return;
    }
#pragma unroll
    for (int t = 0; t < kTileH / 2; t++) {
      const uint32_t e = __shfl_sync (kFull, E, 2 * t + half);
      const uint32_t bits = ((e >> (2 * k)) & 3u) * 0x4080u;
      if (k < kTileW / 2)
        *reinterpret_cast<uint16_t *> (out + (size_t) (2 * t) * a.dpitch) = (uint16_t) sign_bytes01 (bits);
    }
    return;
  }
  /* a row per step (lane = column) */
  uint8_t *out = a.dst + (size_t) y0 * a.dpitch + x0 + lane;
  for (int r = 0; r < rows; r++) {
    const uint32_t e = __shfl_sync (kFull, E, r);
    if (lane < cols)
      out[(size_t) r * a.dpitch] = ((e >> lane) & 1u) ? 255 : 0;
  }
}

/* The hysteresis of one tile by one warp, lane = row: `cand` and `strong`
 * are the row's candidates and strong pixels (bits 0..kTileW-1, 0 outside
 * the frame). Writes the tile's pixels of dst, its record, and for an open
 * tile its nodes and OpenTile: the open components one fill each, in
 * order. */
__device__ __forceinline__ void
tile_hysteresis (uint32_t cand, uint32_t strong, int tx, int ty, const HystArgs & a)
{
  const int lane = threadIdx.x & 31;
  const long tile = (long) ty * a.tiles_x + tx;
  const uint32_t E = warp_fill (strong, cand);
  const uint32_t W = cand & ~E;

  const bool multi = a.tiles_x > 1 || a.tiles_y > 1;
  TileRecord *rec = a.records + tile;
  if (multi)
    tile_record_lines (W, E, rec);
  uint32_t border = open_border (W, tx, ty, a);
  if (__any_sync (kFull, border != 0)) {
    OpenTile *ot = a.open_tiles + tile;
    /* this lane's left and right pixel (lane = row), top and bottom pixel
     * (lane = column): their component */
    int cl = 0, cr = 0, ct = 0, cb = 0;
    uint32_t covered = 0;
    uint32_t label[kLabelPlanes] = {};
    int k = 0;
    for (; k < kNodesPerTile; k++) {
      const uint32_t rows = __ballot_sync (kFull, border != 0);
      if (!rows)
        break;
      const int r0 = __ffs (rows) - 1;
      const int c0 = __ffs (__shfl_sync (kFull, border, r0)) - 1;
      const uint32_t F = warp_fill (lane == r0 ? 1u << c0 : 0u, W);
      const uint32_t top = __shfl_sync (kFull, F, 0), bottom = __shfl_sync (kFull, F, kTileH - 1);
      cl = (F & 1u) ? k : cl;
      cr = ((F >> (kTileW - 1)) & 1u) ? k : cr;
      ct = ((top >> lane) & 1u) ? k : ct;
      cb = ((bottom >> lane) & 1u) ? k : cb;
#pragma unroll
      for (int b = 0; b < kLabelPlanes; b++)
        label[b] |= ((k + 1) >> b) & 1 ? F : 0u;
      if (lane == 0) {
        const int node = tile_node (tile, k);
        a.parent[node] = node;
      }
      covered |= F;
      border &= ~F;
    }
    rec->comp[kLeft][lane] = (uint8_t) cl;
    rec->comp[kRight][lane] = (uint8_t) cr;
    rec->comp[kTop][lane] = (uint8_t) ct;
    rec->comp[kBottom][lane] = (uint8_t) cb;
    const int planes = label_planes (k);
#pragma unroll
    for (int b = 0; b < kLabelPlanes; b++)
      if (b < planes)
        ot->label[b][lane] = label[b];
    const uint32_t pixels = warp_sum ((uint32_t) __popc (covered));
    if (lane == 0) {
      ot->components = (uint32_t) k;
      ot->pixels = pixels; /* for canny_read_counts */
    }
  } else if (multi) {
    tile_not_open (tile, rec, a);
  }
  tile_pixels (E, tx, ty, a);
}

/* ------------------------------------------------------------ one tile, four warps */

/* The band kernel's hysteresis: once warp 0 has filled E, the block's
 * warps label the tile's open W components side by side, one fill each
 * (open_labels_fill), instead of warp 0 filling them one after the other.
 * A warp claims the first pixel of a run of W on an open border line
 * (claim) and fills that run's component; the fill marks the component's
 * border pixels done (done), so that no warp starts from them again. Two
 * warps may still fill one component at once (from two of its runs,
 * claimed together): the fill that first claims the component's first
 * border pixel in row order (every fill of it finds the same) gives it
 * the next number, its label in the planes and its pixels on the border
 * lines. The numbers differ from run to run; the components and the
 * output do not. */
struct OpenLabels {
  uint32_t claim[kTileH];               /* border run starts a warp has taken */
  uint32_t done[kTileH];                /* border pixels of filled components */
  uint32_t first[kTileH];               /* first border pixels of numbered components */
  uint32_t components;                  /* numbered so far */
  uint32_t pixels;                      /* their pixels */
  uint32_t label[kLabelPlanes][kTileH]; /* as OpenTile::label */
  uint8_t comp[4][kTileH];              /* as TileRecord::comp */
};

/* Lane `lane` of a warp of the block clears one word of each array. */
__device__ __forceinline__ void
open_labels_clear (OpenLabels & l)
{
  const int lane = threadIdx.x & 31;
  l.claim[lane] = 0;
  l.done[lane] = 0;
  l.first[lane] = 0;
#pragma unroll
  for (int b = 0; b < kLabelPlanes; b++)
    l.label[b][lane] = 0;
  reinterpret_cast<uint32_t *> (l.comp)[lane] = 0;
  if (lane == 0)
    l.components = l.pixels = 0;
}

/* Every warp of the block (lane = row; `W` the tile's candidates outside
 * E): the open W components of the tile, into `l` (cleared before, read
 * after a barrier). */
__device__ __forceinline__ void
open_labels_fill (uint32_t W, int tx, int ty, const HystArgs & a, OpenLabels & l)
{
  const int lane = threadIdx.x & 31;
  const uint32_t border = open_border (W, tx, ty, a);
  /* a border pixel with a border pixel to its left or above is in the
   * same component as that one: never a seed */
  const uint32_t above = __shfl_up_sync (kFull, border, 1);
  const uint32_t starts = border & ~(border << 1) & ~(lane ? above | (above << 1) | (above >> 1) : 0u);
  volatile uint32_t *claim = l.claim, *done = l.done;
  for (;;) {
    const uint32_t avail = starts & ~claim[lane] & ~done[lane];
    const uint32_t rows = __ballot_sync (kFull, avail != 0);
    if (!rows)
      return;
    const int r0 = __ffs (rows) - 1;
    const uint32_t w0 = __shfl_sync (kFull, avail, r0);
    const uint32_t bit = w0 & (0u - w0);
    uint32_t taken = 0;
    if (lane == r0)
      taken = atomicOr (l.claim + r0, bit) & bit;
    if (__shfl_sync (kFull, taken, r0))
      continue; /* another warp took it first */
    const uint32_t F = warp_fill (lane == r0 ? bit : 0u, W);
    if (F & border)
      atomicOr (l.done + lane, F & border);
    /* the component's first border pixel in row order numbers it once */
    const uint32_t fb = F & border;
    const int fr = __ffs (__ballot_sync (kFull, fb != 0)) - 1;
    const uint32_t fw = __shfl_sync (kFull, fb, fr);
    const uint32_t fbit = fw & (0u - fw);
    int k = -1;
    if (lane == fr && !(atomicOr (l.first + fr, fbit) & fbit))
      k = (int) atomicAdd (&l.components, 1u);
    k = __shfl_sync (kFull, k, fr);
    if (k < 0)
      continue; /* another warp's fill of it numbered it */
    /* its label, k + 1, into the planes (other components' fills set
     * other bits of the same words) */
    if (F)
      for (int b = 0; b < kLabelPlanes; b++)
        if (((k + 1) >> b) & 1)
          atomicOr (&l.label[b][lane], F);
    const uint32_t top = __shfl_sync (kFull, F, 0), bottom = __shfl_sync (kFull, F, kTileH - 1);
    if (F & 1u)
      l.comp[kLeft][lane] = (uint8_t) k;
    if ((F >> (kTileW - 1)) & 1u)
      l.comp[kRight][lane] = (uint8_t) k;
    if ((top >> lane) & 1u)
      l.comp[kTop][lane] = (uint8_t) k;
    if ((bottom >> lane) & 1u)
      l.comp[kBottom][lane] = (uint8_t) k;
    const uint32_t pixels = warp_sum ((uint32_t) __popc (F));
    if (lane == 0)
      atomicAdd (&l.pixels, pixels);
  }
}

/* Warp 0 after the barrier: tile_hysteresis with the open components of
 * `l` (open_labels_fill) and its own E. */
__device__ __forceinline__ void
tile_hysteresis_labelled (uint32_t cand, uint32_t E, int tx, int ty, const HystArgs & a, const OpenLabels & l)
{
  const int lane = threadIdx.x & 31;
  const long tile = (long) ty * a.tiles_x + tx;
  const uint32_t W = cand & ~E;
  const bool multi = a.tiles_x > 1 || a.tiles_y > 1;
  TileRecord *rec = a.records + tile;
  if (multi)
    tile_record_lines (W, E, rec);
  const int k = (int) l.components;
  if (k > 0) {
    OpenTile *ot = a.open_tiles + tile;
    reinterpret_cast<uint32_t *> (rec->comp)[lane] = reinterpret_cast<const uint32_t *> (l.comp)[lane];
    const int planes = label_planes (k);
    for (int b = 0; b < planes; b++)
      ot->label[b][lane] = l.label[b][lane];
    for (int c = lane; c < k; c += 32) {
      const int node = tile_node (tile, c);
      a.parent[node] = node;
    }
    if (lane == 0) {
      ot->components = (uint32_t) k;
      ot->pixels = l.pixels; /* for canny_read_counts */
    }
  } else if (multi) {
    tile_not_open (tile, rec, a);
  }
  tile_pixels (E, tx, ty, a);
}

/* ------------------------------------------------------------ canny.merge */

/* Bits i - 1, i, i + 1 (those in 0..31): what pixel i of a line touches
 * on the line across. */
__device__ __forceinline__ uint32_t
reach (int i)
{
  return (uint32_t) ((7ull << i) >> 1);
}

/* Whether pixel i of a line with W `w` is the first of its run (of W
 * along the line: one component, its pixels 4-connected) to touch
 * `across`, a line of the tile beyond: a run is united once per thing it
 * touches, by its first pixel that touches it. */
__device__ __forceinline__ bool
first_touch (uint32_t w, uint32_t across, int i)
{
  if (!((w >> i) & 1u) || !(across & reach (i)))
    return false;
  return i == 0 || !((w >> (i - 1)) & 1u) || !(across & reach (i - 1));
}

/* Pixel i of line s of tile X (the lines' W and E: xw, xe, of the tile Y
 * beyond: yw, ye; cx: the pixel's component, if W; yc_*: the components
 * of Y's pixels i - 1, i, i + 1, where W), for the pair's one
 * merging side: every 8-adjacency across the line that involves this
 * pixel or pixel i of Y's line: W next to E joins the W's component to
 * node 0, W next to W unites the two components. Each touching pair of
 * runs once: pixel i takes the first pixel of each run of Y's W within its
 * reach, except those that pixel i - 1 of its own run reaches too (only a
 * run that starts at i + 1 is then new). */
__device__ __forceinline__ void
merge_pixel (long x_tile, long y_tile, int i, int cx, int yc_before, int yc_at, int yc_after, uint32_t xw, uint32_t xe,
    uint32_t yw, uint32_t ye, int *parent)
{
  if ((xw >> i) & 1u) {
    const int nx = tile_node (x_tile, cx);
    if (first_touch (xw, ye, i))
      unite_strong (parent, nx);
    const uint32_t r = yw & reach (i);
    uint32_t t = r & ~(r << 1);
    if (i > 0 && ((xw >> (i - 1)) & 1u))
      t &= (uint32_t) (2ull << i);
    for (; t; t &= t - 1) {
      const int b = __ffs (t) - 1; /* i - 1, i or i + 1 */
      unite_global (parent, nx, tile_node (y_tile, b < i ? yc_before : b == i ? yc_at : yc_after));
    }
  }
  if (first_touch (yw, xe, i))
    unite_strong (parent, tile_node (y_tile, yc_at));
}

/* Item i of a pair of adjacent tiles X and Y (Y to the right of X, line
 * s = kRight, or below it, s = kBottom): pixel i of X's line and pixel i
 * of Y's facing line, merged from X's side (merge_pixel) when either is
 * W. The lines' words are one address for the warp's lanes. Every load
 * at once, before the test that most items end at: one memory latency
 * before the first union instead of three. */
__device__ __forceinline__ void
merge_line_item (const TileRecord *__restrict__ rec, long x_tile, long y_tile, int s, int i, int *parent)
{
  const TileRecord *X = rec + x_tile, *Y = rec + y_tile;
  const int sy = s ^ 1;
  const uint32_t xw = __ldg (&X->weak[s]), yw = __ldg (&Y->weak[sy]);
  const uint32_t xe = __ldg (&X->edge[s]), ye = __ldg (&Y->edge[sy]);
  const int cx = __ldg (&X->comp[s][i]);
  const int yc_before = __ldg (&Y->comp[sy][max (i - 1, 0)]), yc_at = __ldg (&Y->comp[sy][i]),
            yc_after = __ldg (&Y->comp[sy][min (i + 1, 31)]);
  if (!(((xw | yw) >> i) & 1u))
    return;
  merge_pixel (x_tile, y_tile, i, cx, yc_before, yc_at, yc_after, xw, xe, yw, ye, parent);
}

/* The diagonal pair of a lower corner: X's bottom pixel of line sx (bit
 * 31: row 31, column 0 on the left line, 29 on the right) against D's top
 * pixel of line sd (bit 0), D the tile below X and beside it. The lines
 * meet elsewhere (merge_line_item); this is the adjacency they miss. */
__device__ __forceinline__ void
merge_corner_item (const TileRecord *__restrict__ rec, long x_tile, int sx, long d_tile, int sd, int *parent)
{
  const TileRecord *X = rec + x_tile, *D = rec + d_tile;
  /* every load at once (merge_line_item) */
  const bool xw = (__ldg (&X->weak[sx]) >> (kTileH - 1)) & 1u, dw = __ldg (&D->weak[sd]) & 1u;
  const bool xe = (__ldg (&X->edge[sx]) >> (kTileH - 1)) & 1u, de = __ldg (&D->edge[sd]) & 1u;
  const int cx = __ldg (&X->comp[sx][kTileH - 1]), cd = __ldg (&D->comp[sd][0]);
  if (!xw && !dw)
    return;
  if (xw) {
    const int nx = tile_node (x_tile, cx);
    if (de)
      unite_strong (parent, nx);
    else if (dw)
      unite_global (parent, nx, tile_node (d_tile, cd));
  } else if (xe) {
    unite_strong (parent, tile_node (d_tile, cd));
  }
}

/* Item k (0 .. kMergeItems - 1) of tile `tile`: the adjacencies across its
 * right and bottom borders and its two lower corners, so that each pair
 * of touching tiles is merged once. Items 0 .. 31: the right line's rows
 * (a warp); 32 .. 61: the bottom line's columns, 62: the lower right
 * corner, 63: the lower left one (the second warp). */
__device__ __forceinline__ void
merge_item (const TileRecord *__restrict__ rec, int tile, int k, int tiles_x, int tiles_y, int *parent)
{
  const int tx = tile % tiles_x, ty = tile / tiles_x;
  if (k < kTileH) {
    if (tx + 1 < tiles_x)
      merge_line_item (rec, tile, tile + 1, kRight, k, parent);
    return;
  }
  if (ty + 1 >= tiles_y)
    return;
  const long below = (long) tile + tiles_x;
  if (k < kTileH + kTileW)
    merge_line_item (rec, tile, below, kBottom, k - kTileH, parent);
  else if (k == kTileH + kTileW && tx + 1 < tiles_x)
    merge_corner_item (rec, tile, kRight, below + 1, kLeft, parent);
  else if (k == kTileH + kTileW + 1 && tx > 0)
    merge_corner_item (rec, tile, kLeft, below - 1, kRight, parent);
}

/* After the last union: the root of node x (read only). */
__device__ __forceinline__ int
find_root (const int *__restrict__ parent, int x)
{
  for (;;) {
    const int p = __ldg (parent + x);
    if (p == x || p == 0)
      return p;
    x = p;
  }
}

}  // namespace canny_detail
}  // namespace cudavision
