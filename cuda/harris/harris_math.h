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

#include "../../core/harris/corner_params.h"
#include "../../core/exact_ops.h"
#include "../../core/simd.h"
#include "../../core/stencils.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace cudavision {

/* cornerEigenValsVecs' derivative scale for 8-bit input, computed in double
 * as OpenCV does; the kernels take it as float, as OpenCV's float kernels. */
inline double
corner_deriv_scale (int ksize, int block_size)
{
  return 1.0 / ((double) (1 << (ksize - 1)) * block_size * 255.0);
}

/* The response from the box-filtered products (a = ΣDx², b = ΣDxDy,
 * c = ΣDy²), in OpenCV's float arithmetic and order (calcHarris,
 * calcMinEigenVal). */
CV_HD float
corner_response (float a, float b, float c, CornerMethod method, float k)
{
  if (method == CornerMethod::Harris) {
    const float t = exact::fadd (a, c);
    return exact::fsub (exact::fsub (exact::fmul (a, c), exact::fmul (b, b)), exact::fmul (exact::fmul (k, t), t));
  }
  const float ha = exact::fmul (a, 0.5f), hc = exact::fmul (c, 0.5f);
  const float d = exact::fsub (ha, hc);
  return exact::fsub (exact::fadd (ha, hc), sqrtf (exact::fadd (exact::fmul (d, d), exact::fmul (b, b))));
}

/* Floats as unsigned integers that order the same way, for atomicMax on
 * responses that may be negative (Harris on edges) and for radix-sort keys.
 * 0 is below every float, so a zeroed word is a valid "no maximum yet". */
CV_HD uint32_t
float_to_ordered (float f)
{
  const uint32_t u = hd_float_as_u32 (f);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

CV_HD float
ordered_to_float (uint32_t o)
{
  return hd_u32_as_float ((o & 0x80000000u) ? (o & 0x7fffffffu) : ~o);
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
  return (double) exact::fadd (exact::fmul (fx, fx), exact::fmul (fy, fy)) < min_d2;
}

}  // namespace cudavision
