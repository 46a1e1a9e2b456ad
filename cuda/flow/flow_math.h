/* cudavision — the arithmetic of OpenCV's pyramidal Lucas-Kanade
 * (modules/video/src/lkpyramid.cpp, 4.x), step for step, for the GPU kernels
 * and for the host model the tests compare with OpenCV without a GPU.
 *
 * - pyr_down_at: cv::pyrDown on 8-bit data, [1 4 6 4 1]^2 / 256 with
 *   (sum + 128) >> 8, BORDER_REFLECT_101 (what buildOpticalFlowPyramid
 *   builds each level with). Exact integers.
 * - scharr_at: calcScharrDeriv, the 3/10/3 Scharr pair as int16 (32 x the
 *   gradient), rows and columns reflected as it does.
 * - lk_track_point: LKTrackerInvoker for one point through every level:
 *   fixed-point bilinear weights (W_BITS = 14, cvRound), the window of the
 *   previous level (I scaled by 32, derivatives), the spatial gradient
 *   matrix scaled by 2^-20, the minimum-eigenvalue test, then at most
 *   `iterations` Newton steps on the next level, stopping when the step is
 *   below epsilon (squared, in double) or when it oscillates (then half
 *   the last step is taken back). Every float operation is rounded on its
 *   own (exact::fmul / exact::fadd: no fused multiply-add), as the CPU computes.
 *
 * Memory as OpenCV sees it: each level of both pyramids has a border of a
 * window width filled by BORDER_REFLECT_101, the derivatives a border of
 * zeros (BORDER_CONSTANT); a window may start up to a window width outside
 * the level and never reads beyond that border, so reflecting (or zeroing)
 * each coordinate reproduces OpenCV's reads exactly.
 *
 * The window sums are the one place this differs from OpenCV: they are
 * accumulated exactly in integers (OpenCV sums the same integer products in
 * float, in SIMD lane order), then rounded to float once. The result does
 * not depend on how the sum is split, so every thread mapping gives the
 * same bits. */
#pragma once

#include "../../core/flow/flow_params.h"
#include "../../core/exact_ops.h"
#include "../../core/simd.h"
#include "../../core/stencils.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace cudavision {

constexpr int kLkWBits = 14;                 /* OpenCV's W_BITS = W_BITS1 */
constexpr float kLkFltScale = 1.f / (1 << 20); /* FLT_SCALE */

CV_HD int
lk_descale (int x, int n)
{
  return (x + (1 << (n - 1))) >> n; /* CV_DESCALE: arithmetic shift, rounds half up */
}



CV_HD double
dot_rn (float x, float y) /* Point2f::ddot: (double) x * x + (double) y * y */
{
  return exact::dadd (exact::dmul (x, x), exact::dmul (y, y));
}

/* ------------------------------------------------------------- pyramid */

/* One pixel of cv::pyrDown: `src (x, y)` returns the source pixel at
 * already-reflected coordinates; (dx, dy) is the destination pixel, the
 * source `sw` x `sh`. */
template <typename Src>
CV_HD int
pyr_down_at (const Src & src, int dx, int dy, int sw, int sh)
{
  constexpr int k[5] = { 1, 4, 6, 4, 1 };
  int xs[5];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int i = 0; i < 5; i++)
    xs[i] = reflect101 (2 * dx - 2 + i, sw);
  int sum = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int j = 0; j < 5; j++) {
    const int y = reflect101 (2 * dy - 2 + j, sh);
    int row = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 0; i < 5; i++)
      row += k[i] * src (xs[i], y);
    sum += k[j] * row;
  }
  return (sum + 128) >> 8;
}

/* calcScharrDeriv at (x, y) of a `w` x `h` level: Ix, Iy as int16. */
template <typename Src>
CV_HD void
scharr_at (const Src & src, int x, int y, int w, int h, int *ix, int *iy)
{
  const int xm = reflect101 (x - 1, w), xp = reflect101 (x + 1, w);
  const int ym = reflect101 (y - 1, h), yp = reflect101 (y + 1, h);
  /* vertical pass: t0 smooths, t1 differentiates; then horizontal */
  auto t0 = [&] (int c) { return (src (c, ym) + src (c, yp)) * 3 + src (c, y) * 10; };
  auto t1 = [&] (int c) { return src (c, yp) - src (c, ym); };
  *ix = (int16_t) (t0 (xp) - t0 (xm));
  *iy = (int16_t) ((t1 (xm) + t1 (xp)) * 3 + t1 (x) * 10);
}

/* Ix in the low, Iy in the high 16 bits: the memory layout of OpenCV's
 * CV_16SC2 derivative images on a little-endian machine. */
CV_HD uint32_t
pack_deriv (int ix, int iy)
{
  return (uint32_t) (uint16_t) ix | ((uint32_t) (uint16_t) iy << 16);
}

CV_HD int
deriv_x (uint32_t d)
{
  return (int16_t) (d & 0xffffu);
}

CV_HD int
deriv_y (uint32_t d)
{
  return (int16_t) (d >> 16);
}

/* ------------------------------------------------------------ tracking */

/* One pyramid level of both frames: the previous frame's image and
 * derivatives (int16 pairs, pack_deriv's layout), the next frame's image. */
struct LkLevel {
  const uint8_t *prev = nullptr;
  size_t prev_pitch = 0;
  const void *deriv = nullptr;
  size_t deriv_pitch = 0;
  const uint8_t *next = nullptr;
  size_t next_pitch = 0;
  int width = 0, height = 0;
};

/* calcOpticalFlowPyrLK's parameters as the tracker uses them. */
struct LkConfig {
  int window = 21;
  int levels = 3;        /* highest level index (flow_pyramid_levels) */
  int max_iters = 30;    /* clamped to 0..100 */
  double eps2 = 1e-4;    /* epsilon clamped to 0..10, squared */
  float min_eig = 1e-4f;
};

inline LkConfig
lk_config (const FlowParams & p, int levels)
{
  LkConfig c;
  c.window = p.window;
  c.levels = levels;
  c.max_iters = p.iterations < 0 ? 0 : p.iterations > 100 ? 100 : p.iterations;
  const double e = p.epsilon < 0 ? 0 : p.epsilon > 10 ? 10 : p.epsilon;
  c.eps2 = e * e;
  c.min_eig = (float) p.min_eig;
  return c;
}

struct LkWeights {
  int w00, w01, w10, w11;
};

CV_HD LkWeights
lk_weights (float a, float b)
{
  const float one = (float) (1 << kLkWBits);
  LkWeights w;
  w.w00 = exact::round_f (exact::fmul (exact::fmul (exact::fsub (1.f, a), exact::fsub (1.f, b)), one));
  w.w01 = exact::round_f (exact::fmul (exact::fmul (a, exact::fsub (1.f, b)), one));
  w.w10 = exact::round_f (exact::fmul (exact::fmul (exact::fsub (1.f, a), b), one));
  w.w11 = (1 << kLkWBits) - w.w00 - w.w01 - w.w10;
  return w;
}

/* A pixel of a level as OpenCV's bordered buffer holds it. `direct`: the
 * caller knows (x, y) is inside the level. */
CV_HD int
lk_pixel (const uint8_t *img, size_t pitch, int w, int h, int x, int y, bool direct)
{
  if (!direct) {
    x = reflect101 (x, w);
    y = reflect101 (y, h);
  }
  return hd_load_u8 (img + (size_t) y * pitch + x);
}

CV_HD uint32_t
lk_deriv (const LkLevel & L, int x, int y, bool direct)
{
  if (!direct && ((unsigned) x >= (unsigned) L.width || (unsigned) y >= (unsigned) L.height))
    return 0; /* BORDER_CONSTANT */
  return hd_load_u32 (static_cast<const char *> (L.deriv) + (size_t) y * L.deriv_pitch + 4 * (size_t) x);
}

/* The previous level's window sample at (x, y) (its top-left source
 * pixel): I * 32 and the two derivatives, bilinear in fixed point. */
CV_HD void
lk_prev_sample (const LkLevel & L, int x, int y, bool direct, const LkWeights & w, int *iv, int *ix, int *iy)
{
  const int W = L.width, H = L.height;
  *iv = lk_descale (lk_pixel (L.prev, L.prev_pitch, W, H, x, y, direct) * w.w00 +
          lk_pixel (L.prev, L.prev_pitch, W, H, x + 1, y, direct) * w.w01 +
          lk_pixel (L.prev, L.prev_pitch, W, H, x, y + 1, direct) * w.w10 +
          lk_pixel (L.prev, L.prev_pitch, W, H, x + 1, y + 1, direct) * w.w11,
      kLkWBits - 5);
  const uint32_t d00 = lk_deriv (L, x, y, direct), d01 = lk_deriv (L, x + 1, y, direct);
  const uint32_t d10 = lk_deriv (L, x, y + 1, direct), d11 = lk_deriv (L, x + 1, y + 1, direct);
  *ix = lk_descale (deriv_x (d00) * w.w00 + deriv_x (d01) * w.w01 + deriv_x (d10) * w.w10 + deriv_x (d11) * w.w11,
      kLkWBits);
  *iy = lk_descale (deriv_y (d00) * w.w00 + deriv_y (d01) * w.w01 + deriv_y (d10) * w.w10 + deriv_y (d11) * w.w11,
      kLkWBits);
}

/* The next level's sample at (x, y), I * 32. */
CV_HD int
lk_next_sample (const LkLevel & L, int x, int y, bool direct, const LkWeights & w)
{
  const int W = L.width, H = L.height;
  return lk_descale (lk_pixel (L.next, L.next_pitch, W, H, x, y, direct) * w.w00 +
          lk_pixel (L.next, L.next_pitch, W, H, x + 1, y, direct) * w.w01 +
          lk_pixel (L.next, L.next_pitch, W, H, x, y + 1, direct) * w.w10 +
          lk_pixel (L.next, L.next_pitch, W, H, x + 1, y + 1, direct) * w.w11,
      kLkWBits - 5);
}

/* The window anchored at (x, y) with its bilinear neighbours inside the
 * level: every read is direct. */
CV_HD bool
lk_window_inside (const LkLevel & L, int x, int y, int win)
{
  return x >= 0 && y >= 0 && x + win < L.width && y + win < L.height;
}

/* Exact window sums. */
struct LkSums3 {
  long long a11 = 0, a12 = 0, a22 = 0;
};
struct LkSums2 {
  long long b1 = 0, b2 = 0;
};

/* One point through levels cfg.levels .. 0, as LKTrackerInvoker does it.
 * `ex` owns the window and computes its sums: ex.setup (L, x, y, direct,
 * weights) samples the previous level's window anchored at (x, y) with
 * lk_prev_sample, keeps it and returns sum Ix^2, Ix*Iy, Iy^2; ex.iterate
 * (L, x, y, direct, weights) returns sum diff*Ix, diff*Iy with diff =
 * lk_next_sample - the kept I. Returns the status; *nx, *ny get the point
 * in the next frame (nextPts). */
template <typename Exec>
CV_HD int
lk_track_point (Exec & ex, const LkLevel *levels, const LkConfig & c, float px, float py, float *nx, float *ny)
{
  const int win = c.window;
  const float half = (float) (win - 1) * 0.5f;
  int status = 1;
  float sx = 0.f, sy = 0.f; /* nextPts[ptidx] */
  for (int level = c.levels; level >= 0; level--) {
    const LkLevel & L = levels[level];
    const float scale = (float) (1. / (1 << level)); /* a power of two: the products are exact */
    float ppx = exact::fmul (px, scale), ppy = exact::fmul (py, scale);
    float npx, npy;
    if (level == c.levels) {
      npx = ppx;
      npy = ppy;
    } else {
      npx = exact::fmul (sx, 2.f);
      npy = exact::fmul (sy, 2.f);
    }
    sx = npx;
    sy = npy;

    ppx = exact::fsub (ppx, half);
    ppy = exact::fsub (ppy, half);
    const int ipx = (int) floorf (ppx), ipy = (int) floorf (ppy);
    if (ipx < -win || ipx >= L.width || ipy < -win || ipy >= L.height) {
      if (level == 0)
        status = 0;
      continue;
    }
    LkWeights w = lk_weights (exact::fsub (ppx, (float) ipx), exact::fsub (ppy, (float) ipy));
    const LkSums3 A = ex.setup (L, ipx, ipy, lk_window_inside (L, ipx, ipy, win), w);
    const float A11 = exact::fmul ((float) A.a11, kLkFltScale);
    const float A12 = exact::fmul ((float) A.a12, kLkFltScale);
    const float A22 = exact::fmul ((float) A.a22, kLkFltScale);
    float D = exact::fsub (exact::fmul (A11, A22), exact::fmul (A12, A12));
    const float d = exact::fsub (A11, A22);
    const float root = sqrtf (exact::fadd (exact::fmul (d, d), exact::fmul (exact::fmul (4.f, A12), A12)));
    const float min_eig = exact::fdiv (exact::fsub (exact::fadd (A22, A11), root), (float) (2 * win * win));
    if (min_eig < c.min_eig || D < FLT_EPSILON) {
      if (level == 0)
        status = 0;
      continue;
    }
    D = exact::fdiv (1.f, D);

    npx = exact::fsub (npx, half);
    npy = exact::fsub (npy, half);
    float pdx = 0.f, pdy = 0.f;
    for (int j = 0; j < c.max_iters; j++) {
      const int inx = (int) floorf (npx), iny = (int) floorf (npy);
      if (inx < -win || inx >= L.width || iny < -win || iny >= L.height) {
        if (level == 0)
          status = 0;
        break;
      }
      w = lk_weights (exact::fsub (npx, (float) inx), exact::fsub (npy, (float) iny));
      const LkSums2 B = ex.iterate (L, inx, iny, lk_window_inside (L, inx, iny, win), w);
      const float b1 = exact::fmul ((float) B.b1, kLkFltScale), b2 = exact::fmul ((float) B.b2, kLkFltScale);
      const float dx = exact::fmul (exact::fsub (exact::fmul (A12, b2), exact::fmul (A22, b1)), D);
      const float dy = exact::fmul (exact::fsub (exact::fmul (A12, b1), exact::fmul (A11, b2)), D);
      npx = exact::fadd (npx, dx);
      npy = exact::fadd (npy, dy);
      sx = exact::fadd (npx, half);
      sy = exact::fadd (npy, half);
      if (dot_rn (dx, dy) <= c.eps2)
        break;
      if (j > 0 && (double) fabsf (exact::fadd (dx, pdx)) < 0.01 && (double) fabsf (exact::fadd (dy, pdy)) < 0.01) {
        sx = exact::fsub (sx, exact::fmul (dx, 0.5f));
        sy = exact::fsub (sy, exact::fmul (dy, 0.5f));
        break;
      }
      pdx = dx;
      pdy = dy;
    }
  }
  *nx = sx;
  *ny = sy;
  return status;
}

}  // namespace cudavision
