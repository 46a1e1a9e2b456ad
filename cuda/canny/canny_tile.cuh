/* cudavision — canny.tile, step 1 of canny.h (device code, included by
 * canny_kernels.cu only): the stencils (Sobel, magnitudes, non-maximum
 * suppression, double threshold) as a candidate word and a strong word per
 * tile row, then the tile's hysteresis (canny_hysteresis.cuh). */
#pragma once

#include "canny_hysteresis.cuh"
#include "../common/launch_util.cuh"
#include "../../core/gaussian_taps.h"

namespace cudavision {
namespace canny_detail {

constexpr int kTileThreads = 256; /* 32 x 8: eight warps */
constexpr int kWarps = kTileThreads / 32;
/* The generic tile kernel computes a 32 x 32 span (its thread layout) and
 * classifies the tile's 30 columns of it; 4 rows a thread. */
constexpr int kSpan = 32;
constexpr int kPixPerThread = kSpan * kSpan / kTileThreads;
static_assert (kTileH == kSpan && kTileW <= kSpan, "the generic kernel's span holds a tile");

/* ------------------------------------------------------------ step 1 */

struct TileArgs {
  const uint8_t *src;
  size_t spitch;
  CannyThresholds th;          /* when auto_value is null */
  const uint32_t *auto_value;  /* device: the automatic mode's value */
  bool l2;
  int blur_r;                  /* fused pre-blur radius, 0: none */
  int taps_x[kBlurMaxRadius + 1];
  int taps_y[kBlurMaxRadius + 1];
  HystArgs hy;
};

__device__ __forceinline__ int
clampi (int v, int lo, int hi)
{
  return min (max (v, lo), hi);
}

/* A byte through the read-only path, zero-extended: __ldg's uint8_t
 * result costs a mask (and 255) wherever it is widened again. */
__device__ __forceinline__ int
ldg_u8 (const uint8_t *p)
{
  int v;
  asm ("ld.global.nc.u8 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}

/* The frame's thresholds (from the automatic value on the device when there
 * is one); the first thread also resets node 0 and reports the value (0
 * without one: no reset of the state before the frame). */
__device__ __forceinline__ CannyThresholds
tile_thresholds (const TileArgs & a, int aperture)
{
  const bool first = blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0;
  if (first)
    a.hy.parent[0] = 0;
  if (!a.auto_value) {
    if (first)
      a.hy.state->auto_value = 0;
    return a.th;
  }
  const uint32_t v = *a.auto_value;
  if (first)
    a.hy.state->auto_value = v;
  return canny_auto_thresholds (v, aperture, a.l2);
}

/* One tile of canny.tile for Sobel 3x3 (canny_tile3_kernel), by one warp,
 * lane l on column c = x0 - 1 + l: lanes 1..30 are the tile's pixels,
 * lanes 0 and 31 the magnitudes their non-maximum suppression needs. Rows:
 * y0 - 2 .. y0 + 33 loaded, magnitudes y0 - 1 .. y0 + 32, pixels y0 ..
 * y0 + 31. Per source row: the Sobel row pass; two rows later the column
 * pass, the magnitude and its left and right neighbours (shuffles); two
 * rows later again the suppression and double threshold of a pixel row,
 * without branches (canny_classify_flat), skipped when no pixel of the row
 * is above the low threshold (most rows of a photograph). Each row's
 * candidate and strong words (ballots, bit 0 = lane 0) go to words[r]. */

/* R pixel rows of a tile, r0 .. r0 + R - 1, from R + 4 source rows: the
 * whole tile (R = 32) for the warp kernel's inner tiles, a band of 8 for
 * the band kernel. Fully unrolled with every intermediate in registers;
 * each lane loads its three source columns itself (three byte loads: cheaper
 * than the two shuffles and border selects they replace), a few rows ahead
 * for a tile, all of a band's before its first row (one memory latency a
 * band). CLAMP: a tile of the outer ring (cv::Canny's replicated border by
 * clamped loads, magnitudes 0 outside the frame, pixels outside it never
 * candidates); without it no clamping and no bounds tests. */
template <bool L2, int R, bool CLAMP>
__device__ __forceinline__ void
tile3_words_rows (const TileArgs & a, CannyThresholds th, int x0, int y0, int r0, uint2 *words)
{
  const int lane = threadIdx.x;
  const int w = a.hy.w, h = a.hy.h;
  constexpr int kRows = R + 4;
  const int c = x0 - 1 + lane; /* the lane's column */
  const bool col_in = !CLAMP || (c >= 0 && c < w);
  const bool pix_col = !CLAMP || (lane >= 1 && lane <= kTileW && c < w);
  const int cl = CLAMP ? clampi (c - 1, 0, w - 1) : c - 1;
  const int cc = CLAMP ? clampi (c, 0, w - 1) : c;
  const int cr = CLAMP ? clampi (c + 1, 0, w - 1) : c + 1;
  const int ys = y0 + r0 - 2; /* source row 0 */
  /* loads issued this many rows ahead: all of them for a band of 8 rows,
   * 4 for a tile (more spill at the warp kernel's 64 registers) */
  constexpr int kAhead = R <= 8 ? kRows : 4;
  int vl[kRows], vc[kRows], vr[kRows];
  /* inside the frame: column c - 1 of source row 0, three loads off one
   * pointer a row */
  const uint8_t *p = a.src + (size_t) ys * a.spitch + (c - 1);
  auto load = [&] (int j) {
    if (CLAMP) {
      const uint8_t *row = a.src + (size_t) clampi (ys + j, 0, h - 1) * a.spitch;
      vl[j] = ldg_u8 (row + cl);
      vc[j] = ldg_u8 (row + cc);
      vr[j] = ldg_u8 (row + cr);
    } else {
      const uint8_t *q = p + (size_t) j * a.spitch;
      vl[j] = ldg_u8 (q);
      vc[j] = ldg_u8 (q + 1);
      vr[j] = ldg_u8 (q + 2);
    }
  };
#pragma unroll
  for (int j = 0; j < kAhead; j++)
    load (j);
  int d[kRows], s[kRows], M[kRows], ML[kRows], MR[kRows], DX[kRows], DY[kRows];
#pragma unroll
  for (int j = 0; j < kRows; j++) {
    if (j + kAhead < kRows)
      load (j + kAhead);
    d[j] = vr[j] - vl[j];
    s[j] = vl[j] + vr[j] + 2 * vc[j];
    if (j >= 2) {
      const int i = j - 2; /* magnitude row ys + 1 + i */
      const int dx = d[j - 2] + d[j] + 2 * d[j - 1], dy = s[j] - s[j - 2];
      const int y = ys + 1 + i;
      const int m = col_in && (!CLAMP || (y >= 0 && y < h)) ? canny_magnitude (dx, dy, L2) : 0;
      M[i] = m;
      ML[i] = __shfl_up_sync (kFull, m, 1);
      MR[i] = __shfl_down_sync (kFull, m, 1);
      DX[i] = dx;
      DY[i] = dy;
    }
    if (j >= 4) {
      const int r = j - 4; /* pixel row y0 + r0 + r: magnitude rows r, r + 1, r + 2 */
      const bool pix = pix_col && (!CLAMP || y0 + r0 + r < h);
      const int m = M[r + 1];
      uint32_t cw = 0, sw = 0;
      if (__any_sync (kFull, pix && m > th.low)) {
        bool cand, strong;
        canny_classify_flat (m, DX[r + 1], DY[r + 1], th, ML[r], M[r], MR[r], ML[r + 1], MR[r + 1], ML[r + 2], M[r + 2],
            MR[r + 2], &cand, &strong);
        cw = __ballot_sync (kFull, pix && cand);
        sw = __ballot_sync (kFull, pix && strong);
      }
      if (lane == 0)
        words[r0 + r] = make_uint2 (cw, sw);
    }
  }
}

/* The outer ring of tiles: cv::Canny's replicated border by clamped loads,
 * magnitudes 0 outside the frame, pixels outside the frame never
 * candidates. A rolled loop over the rows (the values of the last rows
 * carried in registers, the next row's loads in flight): few registers,
 * so that this path does not raise the kernel's count. */
template <bool L2>
__device__ __forceinline__ void
tile3_words_border (const TileArgs & a, CannyThresholds th, int x0, int y0, uint2 *words)
{
  const int lane = threadIdx.x;
  const int w = a.hy.w, h = a.hy.h;
  const int c = x0 - 1 + lane;
  const bool col_in = c >= 0 && c < w;
  const bool pix_col = lane >= 1 && lane <= kTileW && c < w;
  const int cl = clampi (c - 1, 0, w - 1), cc = clampi (c, 0, w - 1), cr = clampi (c + 1, 0, w - 1);
  constexpr int kRows = kTileH + 4;
  const uint8_t *row = a.src + (size_t) clampi (y0 - 2, 0, h - 1) * a.spitch;
  int nl = __ldg (row + cl), nc = __ldg (row + cc), nr = __ldg (row + cr);
  int dA = 0, dB = 0, sA = 0, sB = 0;         /* row passes of source rows j - 2, j - 1 */
  int m0 = 0, l0 = 0, r0 = 0, m1 = 0, l1 = 0, r1 = 0; /* magnitude rows i - 2, i - 1 and neighbours */
  int dx1 = 0, dy1 = 0;                        /* derivatives of magnitude row i - 1 */
#pragma unroll 1
  for (int j = 0; j < kRows; j++) {
    const int vl = nl, vc = nc, vr = nr;
    if (j + 1 < kRows) {
      row = a.src + (size_t) clampi (y0 - 1 + j, 0, h - 1) * a.spitch;
      nl = __ldg (row + cl);
      nc = __ldg (row + cc);
      nr = __ldg (row + cr);
    }
    const int dj = vr - vl, sj = vl + vr + 2 * vc;
    if (j >= 2) {
      const int i = j - 2; /* magnitude row y0 - 1 + i */
      const int dx = dA + dj + 2 * dB, dy = sj - sA;
      const int y = y0 - 1 + i;
      const int m = col_in && y >= 0 && y < h ? canny_magnitude (dx, dy, L2) : 0;
      const int ml = __shfl_up_sync (kFull, m, 1), mr = __shfl_down_sync (kFull, m, 1);
      if (j >= 4) {
        const int r = j - 4; /* pixel row y0 + r: magnitude rows i - 2, i - 1, i */
        const bool pix = pix_col && y0 + r < h;
        uint32_t cw = 0, sw = 0;
        if (__any_sync (kFull, pix && m1 > th.low)) {
          bool cand, strong;
          canny_classify_flat (m1, dx1, dy1, th, l0, m0, r0, l1, r1, ml, m, mr, &cand, &strong);
          cw = __ballot_sync (kFull, pix && cand);
          sw = __ballot_sync (kFull, pix && strong);
        }
        if (lane == 0)
          words[r] = make_uint2 (cw, sw);
      }
      m0 = m1;
      l0 = l1;
      r0 = r1;
      m1 = m;
      l1 = ml;
      r1 = mr;
      dx1 = dx;
      dy1 = dy;
    }
    dA = dB;
    dB = dj;
    sA = sB;
    sB = sj;
  }
}

/* canny.tile for Sobel 3x3 without a fused pre-blur (the common case): a
 * warp per tile (its words by tile3_words_rows or tile3_words_border),
 * then its hysteresis; a block per warp (32 x 1, grid tiles_x wide): the
 * tiles take different times, and a warp that is done frees its slot at
 * once instead of waiting for the slowest of its block. 32 blocks an SM
 * (Turing holds 16). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kTile3BlocksPerSm = 16;
#else
constexpr int kTile3BlocksPerSm = 4 * kWarps;
#endif
template <bool L2> __global__ void __launch_bounds__ (32, kTile3BlocksPerSm) canny_tile3_kernel (TileArgs a)
{
  __shared__ uint2 s_words[kTileH];
  allow_next_grid (); /* canny.merge may launch: it waits for this grid's end */
  const int lane = threadIdx.x;
  const CannyThresholds th = tile_thresholds (a, 3);
  const HystArgs &hy = a.hy;
  const int tx = blockIdx.x;
  /* a vote, so that the compiler sees the warp stay converged (no
   * divergence checks before each shuffle) */
  if (__all_sync (kFull, tx >= hy.tiles_x))
    return;
  uint2 *words = s_words;
  const int x0 = tx * kTileW;
  const bool in_x = x0 >= 2 && x0 + 31 < hy.w;
  for (int ty = blockIdx.y; ty < hy.tiles_y; ty += gridDim.y) {
    const int y0 = ty * kTileH;
    if (in_x && y0 >= 2 && y0 + 33 < hy.h)
      tile3_words_rows<L2, kTileH, false> (a, th, x0, y0, 0, words);
    else
      tile3_words_border<L2> (a, th, x0, y0, words);
    __syncwarp ();
    const uint2 cs = words[lane];
    __syncwarp (); /* read before the next tile's stores */
    /* bit 0 of a ballot is lane 0 (column x0 - 1): shift it out */
    tile_hysteresis ((cs.x >> 1) & kRowMask, (cs.y >> 1) & kRowMask, tx, ty, hy);
  }
}

/* canny.tile for Sobel 3x3 on frames with few tiles (camera sizes, where
 * every tile is resident at once and the kernel takes as long as one
 * tile's chain of dependent steps): a block of kBandWarps warps per tile,
 * each the words of a band of rows (tile3_words_rows), then warp 0 the
 * tile's E and every warp some of its open components (open_labels_fill).
 * The chain is a band's rows, not the tile's, and the E fill plus about a
 * quarter of the open components' fills, not all of them. */
constexpr int kBandWarps = 4;
constexpr int kBandRows = kTileH / kBandWarps;
/* 64 registers: eight blocks (a tile each) an SM */
template <bool L2> __global__ void __launch_bounds__ (32 * kBandWarps, 8) canny_tile3_band_kernel (TileArgs a)
{
  __shared__ uint2 s_words[kTileH];
  __shared__ OpenLabels s_open;
  __shared__ uint32_t s_e[kTileH];
  __shared__ bool s_tile_open;
  allow_next_grid (); /* canny.merge may launch: it waits for this grid's end */
  const int lane = threadIdx.x, warp = threadIdx.y;
  const CannyThresholds th = tile_thresholds (a, 3);
  const HystArgs & hy = a.hy;
  const int tx = blockIdx.x;
  if (tx >= hy.tiles_x)
    return;
  const int x0 = tx * kTileW;
  const bool in_x = x0 >= 2 && x0 + 31 < hy.w;
  for (int ty = blockIdx.y; ty < hy.tiles_y; ty += gridDim.y) {
    const int y0 = ty * kTileH;
    if (warp == 1)
      open_labels_clear (s_open);
    if (in_x && y0 >= 2 && y0 + 33 < hy.h)
      tile3_words_rows<L2, kBandRows, false> (a, th, x0, y0, warp * kBandRows, s_words);
    else
      tile3_words_rows<L2, kBandRows, true> (a, th, x0, y0, warp * kBandRows, s_words);
    __syncthreads ();
    const uint2 cs = s_words[lane];
    /* bit 0 of a ballot is lane 0 (column x0 - 1): shift it out */
    const uint32_t cand = (cs.x >> 1) & kRowMask, strong = (cs.y >> 1) & kRowMask;
    /* E by warp 0, then the open components, if any, by every warp */
    if (warp == 0) {
      const uint32_t e = warp_fill (strong, cand);
      s_e[lane] = e;
      const bool open = __any_sync (kFull, open_border (cand & ~e, tx, ty, hy) != 0);
      if (lane == 0)
        s_tile_open = open;
    }
    __syncthreads ();
    /* W (cand & ~E) is formed again in each callee rather than once here:
     * passing it down compiled to another schedule that measured slower at
     * 720p (docs/PERFORMANCE.md, "Why the kernels are built as they are"). */
    const uint32_t E = s_e[lane];
    if (s_tile_open) { /* the same for the whole block */
      open_labels_fill (cand & ~E, tx, ty, hy, s_open);
      __syncthreads ();
    }
    if (warp == 0)
      tile_hysteresis_labelled (cand, E, tx, ty, hy, s_open);
    __syncthreads (); /* the words and labels are read before the next tile's stores */
  }
}

/* Shared memory of the generic tile kernel (apertures 5 and 7, the fused
 * pre-blur). b: the (blurred) source over the span, the NMS halo (1) and
 * the Sobel halo (R), with cv::Canny's replicated border already applied;
 * mag: magnitudes over the span and the NMS halo, 0 outside the frame. */
template <int K, bool BLUR>
struct TileSmem {
  static constexpr int R = K / 2;
  static constexpr int BW = kSpan + 2 + 2 * R;
  static constexpr int MW = kSpan + 2;
  static constexpr int SW = BLUR ? BW + 2 * kBlurMaxRadius : 1;
  uint8_t b[BW][BW];
  int mag[MW][MW];
  union {
    struct {
      uint8_t s[SW][SW]; /* source, reflect-101 */
      int h[SW][BW];     /* row pass, 8.8 fixed point */
    } blur;
    struct {
      int16_t d[BW][MW]; /* row derivative */
      int16_t s[BW][MW]; /* row smoothing */
    } rows;
  } u;
};

/* b = the pre-blurred frame over the tile (cv::GaussianBlur's fixed point,
 * reflect-101), at replicated positions: b[r][c] is the blurred pixel at
 * (clamp (X0 + c), clamp (Y0 + r)). The row pass runs at the clamped
 * columns and the column pass at the clamped rows, so the reflect-101
 * neighbourhood of each clamped position is read from the source tile. */
template <int K>
__device__ __forceinline__ void
load_blurred (TileSmem<K, true> &sm, const TileArgs &a, const int (*taps)[kBlurMaxRadius + 1], int X0, int Y0,
    int tid)
{
  using S = TileSmem<K, true>;
  const int w = a.hy.w, h = a.hy.h;
  const int rb = a.blur_r;
  const int sw = S::BW + 2 * rb;
  for (int i = tid; i < sw * sw; i += kTileThreads) {
    const int r = i / sw, c = i - r * sw;
    sm.u.blur.s[r][c] = a.src[(size_t) reflect101 (Y0 - rb + r, h) * a.spitch + reflect101 (X0 - rb + c, w)];
  }
  __syncthreads ();
  for (int i = tid; i < sw * S::BW; i += kTileThreads) {
    const int r = i / S::BW, c = i - r * S::BW;
    const int cx = clampi (X0 + c, 0, w - 1) - X0 + rb;
    const uint8_t *row = sm.u.blur.s[r];
    int acc = taps[0][0] * row[cx];
    for (int d = 1; d <= rb; d++)
      acc += taps[0][d] * (row[cx - d] + row[cx + d]);
    sm.u.blur.h[r][c] = acc;
  }
  __syncthreads ();
  for (int i = tid; i < S::BW * S::BW; i += kTileThreads) {
    const int r = i / S::BW, c = i - r * S::BW;
    const int cy = clampi (Y0 + r, 0, h - 1) - Y0 + rb;
    int acc = taps[1][0] * sm.u.blur.h[cy][c];
    for (int d = 1; d <= rb; d++)
      acc += taps[1][d] * (sm.u.blur.h[cy - d][c] + sm.u.blur.h[cy + d][c]);
    sm.b[r][c] = (uint8_t) ((acc + (1 << 15)) >> 16);
  }
}

template <int K>
__device__ __forceinline__ void
load_plain (TileSmem<K, false> &sm, const TileArgs &a, int X0, int Y0, int tid)
{
  using S = TileSmem<K, false>;
  for (int i = tid; i < S::BW * S::BW; i += kTileThreads) {
    const int r = i / S::BW, c = i - r * S::BW;
    sm.b[r][c] = a.src[(size_t) clampi (Y0 + r, 0, a.hy.h - 1) * a.spitch + clampi (X0 + c, 0, a.hy.w - 1)];
  }
}

/* The exact Sobel at magnitude position (mr, mc) from the row passes. */
template <int K, bool BLUR>
__device__ __forceinline__ void
sobel_from_rows (const TileSmem<K, BLUR> &sm, int mr, int mc, int *dx, int *dy)
{
  constexpr SobelTaps<K> taps;
  int sx = 0, sy = 0;
#pragma unroll
  for (int j = 0; j < K; j++) {
    sx += taps.smooth[j] * sm.u.rows.d[mr + j][mc];
    sy += taps.deriv[j] * sm.u.rows.s[mr + j][mc];
  }
  *dx = canny_deriv (sx, K);
  *dy = canny_deriv (sy, K);
}

/* canny.tile for apertures 5 and 7 and the fused pre-blur: a block per
 * tile, the stencil staged in shared memory by all its threads, then the
 * candidate and strong words go to warp 0 for the hysteresis. The body of
 * canny_tile_kernel and canny_blur_tile_kernel. */
template <int K, bool BLUR>
__device__ __forceinline__ void
tile_staged (const TileArgs & a)
{
  using S = TileSmem<K, BLUR>;
  __shared__ S sm;
  /* the taps, indexed at run time: from shared memory, not from the
   * parameter struct (which dynamic indexing would copy to local memory) */
  __shared__ int s_taps[2][kBlurMaxRadius + 1];
  __shared__ uint32_t s_cand[kTileH], s_strong[kTileH];
  allow_next_grid (); /* canny.merge may launch: it waits for this grid's end */
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (BLUR) {
#pragma unroll
    for (int i = 0; i <= kBlurMaxRadius; i++) {
      if (tid == i)
        s_taps[0][i] = a.taps_x[i];
      else if (tid == kBlurMaxRadius + 1 + i)
        s_taps[1][i] = a.taps_y[i];
    }
  } /* read after load_blurred's first barrier */
  const int lx = threadIdx.x;  /* this thread's pixels: column lx, rows ly0 + 8k */
  const int ly0 = threadIdx.y;
  const CannyThresholds th = tile_thresholds (a, K);
  const int w = a.hy.w, h = a.hy.h;

  const int tx = blockIdx.x; /* the grid is tiles_x wide */
  const int x0 = tx * kTileW;
  for (int ty = blockIdx.y; ty < a.hy.tiles_y; ty += gridDim.y) {
    const int y0 = ty * kTileH;
    const int X0 = x0 - 1 - S::R, Y0 = y0 - 1 - S::R;

    /* 1. the (blurred) source with the replicated border */
    if constexpr (BLUR)
      load_blurred<K> (sm, a, s_taps, X0, Y0, tid);
    else
      load_plain<K> (sm, a, X0, Y0, tid);
    __syncthreads ();

    /* 2. Sobel row passes over every row of b, at the magnitude columns */
    for (int i = tid; i < S::BW * S::MW; i += kTileThreads) {
      const int r = i / S::MW, c = i - r * S::MW;
      int d, s;
      sobel_pass<K> ([&] (int k) { return (int) sm.b[r][c + k]; }, &d, &s);
      sm.u.rows.d[r][c] = (int16_t) d;
      sm.u.rows.s[r][c] = (int16_t) s;
    }
    __syncthreads ();

    /* 3. column passes: derivatives and magnitudes. A thread keeps its own
     * pixels' derivatives in registers; the halo ring (132 positions) is
     * spread over the first threads. */
    int dxs[kPixPerThread], dys[kPixPerThread], ms[kPixPerThread];
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      const int ly = ly0 + 8 * k;
      const int x = x0 + lx, y = y0 + ly;
      sobel_from_rows (sm, ly + 1, lx + 1, &dxs[k], &dys[k]);
      ms[k] = x < w && y < h ? canny_magnitude (dxs[k], dys[k], a.l2) : 0;
      sm.mag[ly + 1][lx + 1] = ms[k];
    }
    if (tid < 4 * S::MW - 4) {
      int mr, mc;
      if (tid < S::MW) {
        mr = 0;
        mc = tid;
      } else if (tid < 2 * S::MW) {
        mr = S::MW - 1;
        mc = tid - S::MW;
      } else if (tid < 3 * S::MW - 2) {
        mr = tid - 2 * S::MW + 1;
        mc = 0;
      } else {
        mr = tid - (3 * S::MW - 2) + 1;
        mc = S::MW - 1;
      }
      const int x = x0 - 1 + mc, y = y0 - 1 + mr;
      int m = 0;
      if (x >= 0 && x < w && y >= 0 && y < h) {
        int dx, dy;
        sobel_from_rows (sm, mr, mc, &dx, &dy);
        m = canny_magnitude (dx, dy, a.l2);
      }
      sm.mag[mr][mc] = m;
    }
    __syncthreads ();

    /* 4. non-maximum suppression and the double threshold over the tile's
     * columns; each row's words by ballot */
#pragma unroll
    for (int k = 0; k < kPixPerThread; k++) {
      const int ly = ly0 + 8 * k;
      int cls = kCannyNone;
      if (lx < kTileW && x0 + lx < w && y0 + ly < h) {
        cls = canny_classify (ms[k], dxs[k], dys[k], th,
            [&] (int di, int dj) { return sm.mag[ly + 1 + dj][lx + 1 + di]; });
      }
      const uint32_t cw = __ballot_sync (kFull, cls != kCannyNone);
      const uint32_t sw = __ballot_sync (kFull, cls == kCannyStrong);
      if (lx == 0) {
        s_cand[ly] = cw;
        s_strong[ly] = sw;
      }
    }
    __syncthreads ();

    /* 5. the hysteresis of the tile: warp 0 */
    if (ly0 == 0)
      tile_hysteresis (s_cand[lx], s_strong[lx], tx, ty, a.hy);
    __syncthreads (); /* the next tile reuses the shared memory */
  }
}

template <int K>
__global__ void
__launch_bounds__ (kTileThreads) canny_tile_kernel (TileArgs a)
{
  tile_staged<K, false> (a);
}

/* With the fused pre-blur: five blocks an SM, 48 registers a thread (the
 * compiler alone takes 56 for apertures 3 and 5: four blocks an SM).
 * Turing holds 1024 threads an SM: four blocks there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kBlurTileBlocksPerSm = 4;
#else
constexpr int kBlurTileBlocksPerSm = 5;
#endif
template <int K>
__global__ void
__launch_bounds__ (kTileThreads, kBlurTileBlocksPerSm) canny_blur_tile_kernel (TileArgs a)
{
  tile_staged<K, true> (a);
}

}  // namespace canny_detail
}  // namespace cudavision
