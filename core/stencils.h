/* cudavision — the border rule and the Sobel stencils that the Harris,
 * Canny and flow code share with their CPU references: OpenCV's
 * BORDER_REFLECT_101 and cv::getDerivKernels in exact integers. */
#pragma once

#include "hd.h"

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

/* The taps of sobel_smooth and sobel_deriv as one constant: device loops
 * index it with an unrolled counter, and a constexpr table is what makes
 * the compiler fold each tap to a number (called in the loop, binom's
 * division loop was left in the code, once a tap and a row). */
template <int KSIZE> struct SobelTaps {
  int smooth[KSIZE] = {};
  int deriv[KSIZE] = {};
  constexpr SobelTaps ()
  {
    for (int i = 0; i < KSIZE; i++) {
      smooth[i] = sobel_smooth (KSIZE, i);
      deriv[i] = sobel_deriv (KSIZE, i);
    }
  }
};

/* One Sobel pass over KSIZE values v (0) .. v (KSIZE - 1): the sums of
 * the derivative taps and of the smoothing taps times them, the two
 * halves of every separable Sobel (a row here, a column there). */
template <int KSIZE, typename V>
CV_HD void
sobel_pass (const V & v, int *deriv, int *smooth)
{
  constexpr SobelTaps<KSIZE> taps;
  int d = 0, s = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int i = 0; i < KSIZE; i++) {
    const int x = v (i);
    s += taps.smooth[i] * x;
    d += taps.deriv[i] * x;
  }
  *deriv = d;
  *smooth = s;
}

/* The unscaled Sobel derivatives at one pixel, exact in integers (at most
 * 255 * 20 * 64 for ksize 7). `at (i, j)` returns the pixel at column offset
 * i and row offset j, both in -ksize/2 .. ksize/2; borders are its job. */
template <int KSIZE, typename At>
CV_HD void
sobel_at (const At & at, int *dx, int *dy)
{
  constexpr int R = KSIZE / 2;
  constexpr SobelTaps<KSIZE> taps;
  int sx = 0, sy = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int j = 0; j < KSIZE; j++) {
    int row_deriv, row_smooth;
    sobel_pass<KSIZE> ([&] (int i) { return at (i - R, j - R); }, &row_deriv, &row_smooth);
    sx += taps.smooth[j] * row_deriv;
    sy += taps.deriv[j] * row_smooth;
  }
  *dx = sx;
  *dy = sy;
}

}  // namespace cudavision
