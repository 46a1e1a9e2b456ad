/* cudavision — the arithmetic of cv::Canny on 8-bit images, shared by the
 * CUDA kernels and the host model (cpu/canny_cpu.h), which the CPU tests
 * hold against OpenCV on machines without a GPU.
 *
 * OpenCV 4.6 (imgproc/src/canny.cpp, Canny (src, dst, low, high, ksize,
 * L2gradient)) on one channel:
 *  - ksize 7: both thresholds are divided by 16 first, and the Sobel
 *    derivatives are taken with scale 1/16 (a 7x7 Sobel of 8-bit data
 *    reaches 163200, beyond the CV_16S it stores);
 *  - low > high: swapped;
 *  - L2: each threshold capped at 32767 and squared (if > 0); then both
 *    are floored to int (cvFloor);
 *  - dx, dy = Sobel (src, CV_16S, ksize, BORDER_REPLICATE). For ksize 3
 *    and 5 the integer kernels give exact integers. For ksize 7 the 1/16
 *    makes the smoothing half of the separable kernel non-integer, so
 *    OpenCV filters in float: every partial sum is a multiple of 1/16
 *    below 2^20, exact in float, and the result is rounded to nearest,
 *    ties to even (cvRound), i.e. round_half_even (S / 16) of the exact
 *    integer Sobel S;
 *  - magnitude |dx| + |dy| (L1) or dx^2 + dy^2 (L2), in int; 0 outside
 *    the image;
 *  - a pixel is a candidate when m > low and it is a maximum along the
 *    gradient direction, quantized with the fixed-point tangent test
 *    below (TG22 = tan(22.5 deg) * 2^15, asymmetric > / >= comparisons);
 *    a strong one when also m > high;
 *  - hysteresis: the result is 255 on every candidate 8-connected
 *    (through candidates) to a strong one, 0 elsewhere.
 * Everything here is integer (the thresholds aside, computed in double
 * exactly as OpenCV does): host and device agree bit for bit. */
#pragma once

#include "../stencils.h"

#include <cmath>

namespace cudavision {

/* What a pixel is after non-maximum suppression and the double threshold. */
enum : int { kCannyNone = 0, kCannyWeak = 1, kCannyStrong = 2 };

struct CannyThresholds {
  int low = 0;
  int high = 0;
};

/* cv::Canny's integer thresholds for magnitudes (see above). */
CV_HD CannyThresholds
canny_thresholds (double low, double high, int aperture, bool l2)
{
  if (aperture == 7) {
    low = low / 16.0;
    high = high / 16.0;
  }
  if (low > high) {
    const double t = low;
    low = high;
    high = t;
  }
  if (l2) {
    low = fmin (32767.0, low);
    high = fmin (32767.0, high);
    if (low > 0)
      low *= low;
    if (high > 0)
      high *= high;
  }
  return { (int) floor (low), (int) floor (high) };
}

/* The automatic thresholds: high = the frame's Otsu threshold or median,
 * low = high / 2 (not rounded: cv::Canny floors after its own scaling). */
CV_HD CannyThresholds
canny_auto_thresholds (unsigned value, int aperture, bool l2)
{
  return canny_thresholds ((double) value / 2.0, (double) value, aperture, l2);
}

/* The derivative cv::Canny stores for an exact integer Sobel sum `s`:
 * itself for ksize 3 and 5; round_half_even (s / 16) for ksize 7 (|s| <=
 * 163200, so the result fits in a short and never saturates). */
CV_HD int
canny_deriv (int s, int aperture)
{
  if (aperture != 7)
    return s;
  const int q = s >> 4; /* floor (s / 16): arithmetic shift */
  const int r = s & 15;
  return r > 8 ? q + 1 : r < 8 ? q : q + (q & 1);
}

CV_HD int
canny_magnitude (int dx, int dy, bool l2)
{
  return l2 ? dx * dx + dy * dy : (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* OpenCV's non-maximum test of magnitude m with derivatives (xs, ys);
 * mag (di, dj) is the magnitude at column offset di and row offset dj
 * (0 outside the image). */
template <typename Mag>
CV_HD bool
canny_local_max (int m, int xs, int ys, const Mag & mag)
{
  constexpr int kTg22 = 13573; /* (int) (tan (22.5 deg) * 2^15 + 0.5) */
  const int x = xs < 0 ? -xs : xs;
  const int y = (ys < 0 ? -ys : ys) << 15;
  const int tg22x = x * kTg22;
  if (y < tg22x) /* within 22.5 deg of horizontal: compare left / right */
    return m > mag (-1, 0) && m >= mag (1, 0);
  const int tg67x = tg22x + (x << 16);
  if (y > tg67x) /* within 22.5 deg of vertical: above / below */
    return m > mag (0, -1) && m >= mag (0, 1);
  const int s = (xs ^ ys) < 0 ? -1 : 1; /* diagonal */
  return m > mag (-s, -1) && m > mag (s, 1);
}

/* kCannyNone, kCannyWeak or kCannyStrong for one in-image pixel. */
template <typename Mag>
CV_HD int
canny_classify (int m, int xs, int ys, CannyThresholds t, const Mag & mag)
{
  if (!(m > t.low) || !canny_local_max (m, xs, ys, mag))
    return kCannyNone;
  return m > t.high ? kCannyStrong : kCannyWeak;
}

/* canny_classify without branches, for the stencil kernels (a warp's
 * lanes take different directions; branches would run each path in turn):
 * the same tests on the 3x3 magnitudes around the pixel, named by column
 * (l, centre, r) and row (0 above, 1 its own, 2 below). Both neighbours of
 * the direction are selected, then compared: > and >= along the axes, >
 * and > on the diagonals (m + 1 > b is m >= b; m stays far below INT_MAX).
 * Sets *cand (a candidate) and *strong (also above the high threshold). */
CV_HD void
canny_classify_flat (int m, int xs, int ys, CannyThresholds t, int ml0, int m0, int mr0, int ml1, int mr1, int ml2,
    int m2, int mr2, bool *cand, bool *strong)
{
  constexpr int kTg22 = 13573;
  const int x = xs < 0 ? -xs : xs;
  const int y = (ys < 0 ? -ys : ys) << 15;
  const int tg22x = x * kTg22;
  const bool hor = y < tg22x;
  const bool ver = y > tg22x + (x << 16); /* never with hor */
  const bool neg = (xs ^ ys) < 0;         /* s = -1: (+1, -1) and (-1, +1) */
  const int a = hor ? ml1 : ver ? m0 : neg ? mr0 : ml0;
  const int b = hor ? mr1 : ver ? m2 : neg ? ml2 : mr2;
  const int mb = hor || ver ? m + 1 : m;
  *cand = m > t.low && m > a && mb > b;
  *strong = *cand && m > t.high;
}

/* The median the automatic thresholds use: the lower median, the value at
 * 0-based rank (n - 1) / 2 of the n sorted pixels, i.e. the smallest v
 * with at least rank + 1 pixels <= v. */
CV_HD unsigned
canny_median_rank (unsigned long long n)
{
  return (unsigned) ((n - 1) / 2);
}

}  // namespace cudavision
