/* cudavision — the taps of OpenCV's bit-exact 8-bit GaussianBlur
 * (gaussian_taps.h). */
#include "gaussian_taps.h"

#include <cmath>
#include <vector>

namespace cudavision {

int
gaussian_ksize_for_sigma (double sigma)
{
  /* OpenCV: cvRound (sigma * (depth == CV_8U ? 3 : 4) * 2 + 1) | 1, with
   * cvRound rounding half to even. */
  if (!(sigma > 0))
    return 1;
  const double v = sigma * 3 * 2 + 1;
  if (v > 1e6)
    return 1000001;
  return (int) std::nearbyint (v) | 1;
}

void
gaussian_taps_fixed (int ksize, double sigma, uint16_t *taps)
{
  const int n = ksize;
  if (n == 1) {
    taps[0] = 1 << kBlurTapShift;
    return;
  }
  /* getGaussianKernelBitExact (softdouble there; double here: the values
   * are rounded to 8 fraction bits below, so a last-ulp difference of exp
   * cannot matter short of an exact tie). */
  std::vector<double> k (n);
  if (sigma <= 0) {
    /* OpenCV's fixed small kernels and its sigma rule; cudablur never asks
     * (sigma > 0 there), kept for completeness. */
    static const double k3[] = { 0.25, 0.5, 0.25 };
    static const double k5[] = { 0.0625, 0.25, 0.375, 0.25, 0.0625 };
    static const double k7[] = { 0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125 };
    static const double k9[] = { 4. / 256, 13. / 256, 30. / 256, 51. / 256, 60. / 256, 51. / 256, 30. / 256,
      13. / 256, 4. / 256 };
    const double *fixed = n == 3 ? k3 : n == 5 ? k5 : n == 7 ? k7 : n == 9 ? k9 : nullptr;
    if (fixed)
      k.assign (fixed, fixed + n);
    else
      sigma = std::fma ((double) n, 0.15, 0.35);
  }
  if (sigma > 0) {
    const double scale2x = -0.125 / (sigma * sigma);
    const int n2 = (n - 1) / 2;
    std::vector<double> values (n2 + 1);
    double sum = 0;
    for (int i = 0, x = 1 - n; i < n2; i++, x += 2) {
      const double t = std::exp ((double) (x * x) * scale2x);
      values[i] = t;
      sum += t;
    }
    sum *= 2;
    sum += 1;
    const double mul1 = 1 / sum;
    for (int i = 0; i < n2; i++) {
      const double t = values[i] * mul1;
      k[i] = t;
      k[n - 1 - i] = t;
    }
    k[n2] = 1 * mul1;
  }
  /* getGaussianKernelFixedPoint_ED: error diffusion from the outside in,
   * cvRound (half to even), the centre takes what is left of 256. */
  const double mult = (double) (1 << kBlurTapShift);
  const int n2 = n / 2;
  double err = 0;
  long sum = 0;
  for (int i = 0; i < n2; i++) {
    const double adj = k[i] * mult + err;
    const long v = (long) std::nearbyint (adj);
    err = adj - (double) v;
    taps[i] = (uint16_t) v;
    taps[n - 1 - i] = (uint16_t) v;
    sum += v;
  }
  taps[n2] = (uint16_t) ((1 << kBlurTapShift) - 2 * sum);
}

BlurTaps
make_blur_taps (int ksize_x, int ksize_y, double sigma_x, double sigma_y)
{
  BlurTaps t;
  t.ksize_x = ksize_x;
  t.ksize_y = ksize_y;
  if (!t.valid ())
    return t;
  uint16_t full[kBlurMaxKsize];
  gaussian_taps_fixed (ksize_x, sigma_x, full);
  for (int d = 0; d <= t.radius_x (); d++)
    t.x[d] = full[t.radius_x () + d];
  gaussian_taps_fixed (ksize_y, sigma_y, full);
  for (int d = 0; d <= t.radius_y (); d++)
    t.y[d] = full[t.radius_y () + d];
  return t;
}

}  // namespace cudavision
