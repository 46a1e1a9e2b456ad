/* cudavision — the taps of OpenCV's bit-exact 8-bit GaussianBlur
 * (smooth.dispatch.cpp, GaussianBlurFixedPoint): cudablur's kernels and
 * cudacanny's fused pre-blur run on them, host code computes them. */
#pragma once

#include <cstdint>

namespace cudavision {

constexpr int kBlurMaxKsize = 31;
constexpr int kBlurMaxRadius = (kBlurMaxKsize - 1) / 2;
/* Fraction bits of the taps: OpenCV's ufixedpoint16 (8.8). */
constexpr int kBlurTapShift = 8;

/* OpenCV's kernel size for a sigma on 8-bit images (createGaussianKernels):
 * cvRound(sigma * 3 * 2 + 1) | 1. Not capped: the caller decides what to do
 * above kBlurMaxKsize. */
int gaussian_ksize_for_sigma (double sigma);

/* The taps OpenCV's bit-exact 8-bit GaussianBlur uses for an odd `ksize`
 * (1..kBlurMaxKsize) and sigma > 0: getGaussianKernelBitExact in double,
 * then 8 fraction bits with error diffusion, the centre taking the
 * remainder so that they sum to 256 exactly. `taps` receives ksize values. */
void gaussian_taps_fixed (int ksize, double sigma, uint16_t *taps);

/* The separable kernel of one blur: symmetric halves, x[d] / y[d] being the
 * tap at distance d from the centre; entries beyond the radius are 0. */
struct BlurTaps {
  int ksize_x = 1;
  int ksize_y = 1;
  uint16_t x[kBlurMaxRadius + 1] = {};
  uint16_t y[kBlurMaxRadius + 1] = {};

  int radius_x () const { return (ksize_x - 1) / 2; }
  int radius_y () const { return (ksize_y - 1) / 2; }
  bool valid () const {
    return ksize_x >= 1 && ksize_x <= kBlurMaxKsize && (ksize_x & 1) && ksize_y >= 1 &&
        ksize_y <= kBlurMaxKsize && (ksize_y & 1);
  }
};

/* Taps for odd kernel sizes (1..31) and sigmas > 0, as cv::GaussianBlur
 * (src, dst, Size (ksize_x, ksize_y), sigma_x, sigma_y) uses them. */
BlurTaps make_blur_taps (int ksize_x, int ksize_y, double sigma_x, double sigma_y);

}  // namespace cudavision
