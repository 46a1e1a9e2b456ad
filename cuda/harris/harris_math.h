/* cudavision — the arithmetic of cv::cornerHarris / cv::cornerMinEigenVal
 * and of cv::goodFeaturesToTrack's candidate test, shared by the CUDA
 * kernels and the CPU tests (tests/gst/test_harris_math.cpp), which prove it
 * against OpenCV on machines without a GPU.
 *
 * OpenCV 4.6 (imgproc/src/corner.cpp, cornerEigenValsVecs):
 *   scale = 1 / ((1 << (ksize - 1)) * blockSize * 255)       (8-bit input)
 *   Dx, Dy = Sobel (src, CV_32F, ksize, scale, BORDER_REFLECT_101)
 *   cov    = boxFilter ([Dx², DxDy, Dy²], blockSize x blockSize,
 *                       unnormalized, anchor at blockSize / 2, REFLECT_101)
 *   Harris:     a*c - b² - k (a + c)²
 *   min eigen:  a' = a/2, c' = c/2:  (a' + c') - sqrt ((a' - c')² + b²)
 * The box filter reflects the *products* at the borders (not the source
 * before differentiating: DxDy would change sign), which is why the kernel
 * computes halo products at the reflected in-image position. */
#pragma once

#include "corner_params.h"
#include "../gray/gray_weights.h" /* CV_HD and the BT.601 luma */

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cudavision {

/* cv::borderInterpolate (p, len, BORDER_REFLECT_101), including its
 * repeated reflection for kernels wider than the image (1x1, 2x2 frames). */
CV_HD int
reflect101 (int p, int len)
{
  if ((unsigned) p < (unsigned) len)
    return p;
  if (len == 1)
    return 0;
  do {
    p = p < 0 ? -p : 2 * len - 2 - p;
  } while ((unsigned) p >= (unsigned) len);
  return p;
}

/* Binomial coefficient C(m, j), 0 outside 0..m. */
CV_HD constexpr int
binom (int m, int j)
{
  if (j < 0 || j > m)
    return 0;
  int r = 1;
  for (int t = 1; t <= j; t++)
    r = r * (m - t + 1) / t;
  return r;
}

/* cv::getDerivKernels for order 0 (smoothing) and 1 (derivative), ksize
 * 3, 5, 7: [1 2 1] and [-1 0 1], ..., [1 6 15 20 15 6 1] and
 * [-1 -4 -5 0 5 4 1] (the derivative is binomial(ksize-3) * [-1 0 1]). */
CV_HD constexpr int
sobel_smooth (int ksize, int i)
{
  return binom (ksize - 1, i);
}

CV_HD constexpr int
sobel_deriv (int ksize, int i)
{
  return binom (ksize - 3, i - 2) - binom (ksize - 3, i);
}

/* The unscaled Sobel derivatives at one pixel, exact in integers (at most
 * 255 * 20 * 64 for ksize 7). `at (i, j)` returns the pixel at column offset
 * i and row offset j, both in -ksize/2 .. ksize/2; borders are its job. */
template <int KSIZE, typename At>
CV_HD void
sobel_at (const At & at, int *dx, int *dy)
{
  constexpr int R = KSIZE / 2;
  int sx = 0, sy = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int j = 0; j < KSIZE; j++) {
    int row_deriv = 0, row_smooth = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 0; i < KSIZE; i++) {
      const int v = at (i - R, j - R);
      row_deriv += sobel_deriv (KSIZE, i) * v;
      row_smooth += sobel_smooth (KSIZE, i) * v;
    }
    sx += sobel_smooth (KSIZE, j) * row_deriv;
    sy += sobel_deriv (KSIZE, j) * row_smooth;
  }
  *dx = sx;
  *dy = sy;
}

/* cornerEigenValsVecs' derivative scale for 8-bit input, computed in double
 * as OpenCV does; the kernels take it as float, as OpenCV's float kernels. */
inline double
corner_deriv_scale (int ksize, int block_size)
{
  return 1.0 / ((double) (1 << (ksize - 1)) * block_size * 255.0);
}

/* Products without FMA contraction, so the device rounds as OpenCV's SIMD
 * code does: a*c - b*b near an edge cancels, and a fused multiply-add would
 * round it differently from the CPU. */
CV_HD float
mul_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fmul_rn (a, b);
#else
  return a * b;
#endif
}

CV_HD float
add_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fadd_rn (a, b);
#else
  return a + b;
#endif
}

CV_HD float
sub_rn (float a, float b)
{
#ifdef __CUDA_ARCH__
  return __fsub_rn (a, b);
#else
  return a - b;
#endif
}

/* The response from the box-filtered products (a = ΣDx², b = ΣDxDy,
 * c = ΣDy²), in OpenCV's float arithmetic and order (calcHarris,
 * calcMinEigenVal). */
CV_HD float
corner_response (float a, float b, float c, CornerMethod method, float k)
{
  if (method == CornerMethod::Harris) {
    const float t = add_rn (a, c);
    return sub_rn (sub_rn (mul_rn (a, c), mul_rn (b, b)), mul_rn (mul_rn (k, t), t));
  }
  const float ha = mul_rn (a, 0.5f), hc = mul_rn (c, 0.5f);
  const float d = sub_rn (ha, hc);
  return sub_rn (add_rn (ha, hc), sqrtf (add_rn (mul_rn (d, d), mul_rn (b, b))));
}

/* Floats as unsigned integers that order the same way, for atomicMax on
 * responses that may be negative (Harris on edges) and for radix-sort keys.
 * 0 is below every float, so a zeroed word is a valid "no maximum yet". */
CV_HD uint32_t
float_bits (float f)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (f);
#else
  uint32_t u;
  std::memcpy (&u, &f, sizeof u);
  return u;
#endif
}

CV_HD float
bits_float (uint32_t u)
{
#ifdef __CUDA_ARCH__
  return __uint_as_float (u);
#else
  float f;
  std::memcpy (&f, &u, sizeof f);
  return f;
#endif
}

CV_HD uint32_t
float_to_ordered (float f)
{
  const uint32_t u = float_bits (f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

CV_HD float
ordered_to_float (uint32_t o)
{
  return bits_float ((o & 0x80000000u) ? (o & 0x7fffffffu) : ~o);
}

/* goodFeaturesToTrack's threshold: threshold (eig, eig, maxVal * quality, 0,
 * THRESH_TOZERO) compares each float with the threshold cast to float. */
CV_HD float
corner_threshold (float max_response, double quality)
{
  return (float) ((double) max_response * quality);
}

CV_HD float
to_zero (float v, float thresh)
{
  return v > thresh ? v : 0.f;
}

/* goodFeaturesToTrack's candidate test at an interior pixel: nonzero after
 * thresholding and equal to the 3x3 dilation of the thresholded map, i.e.
 * not below any thresholded neighbour (plateaus all qualify, as in OpenCV).
 * `at (i, j)` is the raw response at offset (i, j) in -1..1. */
template <typename At>
CV_HD bool
is_corner_candidate (const At & at, float thresh, float *value)
{
  const float v = to_zero (at (0, 0), thresh);
  *value = v;
  if (v == 0.f)
    return false;
  bool ok = true;
  for (int j = -1; j <= 1; j++)
    for (int i = -1; i <= 1; i++)
      ok = ok && !(to_zero (at (i, j), thresh) > v);
  return ok;
}

/* Sort key of a candidate: descending keys order by response, then by
 * raster index, the later pixel first; that is goodFeaturesToTrack's
 * greaterThanPtr on a continuous map (equal values: higher address first). */
CV_HD uint64_t
corner_key (float value, uint32_t index)
{
  return ((uint64_t) float_to_ordered (value) << 32) | index;
}

CV_HD float
corner_key_value (uint64_t key)
{
  return ordered_to_float ((uint32_t) (key >> 32));
}

CV_HD uint32_t
corner_key_index (uint64_t key)
{
  return (uint32_t) key;
}

/* The device's sort key: the same order as corner_key, with the position
 * as (y << 16) | x instead of y * width + x. For x < width <= 65536 both
 * order pixels alike (row first, then column), and the position comes back
 * without a division. Candidates are positive responses (above a threshold
 * that is at least 0), so a key is never 0: 0 marks "none". */
CV_HD uint64_t
corner_key_yx (float value, int x, int y)
{
  return ((uint64_t) float_to_ordered (value) << 32) | ((uint32_t) y << 16) | (uint32_t) x;
}

CV_HD int
corner_key_x (uint64_t key)
{
  return (int) (key & 0xffffu);
}

CV_HD int
corner_key_y (uint64_t key)
{
  return (int) ((key >> 16) & 0xffffu);
}

/* goodFeaturesToTrack's distance test between integer positions: dx and dy
 * as floats, dx*dx + dy*dy in float, compared in double with the squared
 * minimum distance (OpenCV squares minDistance in double). True when the
 * two are too close, i.e. the weaker one is suppressed. The float sum
 * grows with |dx| and |dy|, which the cell pruning relies on. */
CV_HD bool
corners_too_close (int dx, int dy, double min_d2)
{
  const float fx = (float) dx, fy = (float) dy;
  return (double) add_rn (mul_rn (fx, fx), mul_rn (fy, fy)) < min_d2;
}

}  // namespace cudavision
