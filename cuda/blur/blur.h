/* cudavision — Gaussian blur of 8-bit frames on the GPU (cudablur).
 *
 * Fidelity: the kernels compute exactly what OpenCV's bit-exact 8-bit
 * GaussianBlur computes (opencv/modules/imgproc/src/smooth.dispatch.cpp,
 * GaussianBlurFixedPoint): taps in unsigned 8.8 fixed point (sum exactly
 * 256, rounded with error diffusion), a row pass into 8.8 fixed point
 * (sum of tap * pixel, at most 65280), a column pass into 16.16 and
 * (v + 2^15) >> 16. Every intermediate is an integer below 2^24, so the GPU
 * carries them in float registers exactly (FFMA runs at twice the rate of
 * IMAD) and the result is bit-exact, not merely within 1. Border:
 * reflect-101 with the index folded as often as needed, so images smaller
 * than the kernel (1x1, 2x2, ...) work and match OpenCV (which shrinks the
 * kernel to 1 along a dimension of length 1: the same result).
 *
 * Three implementations, selectable for benchmarks (BlurVariant):
 *  - Direct:  GRAY8, radius up to 4 (blur_direct.h): one launch, no
 *             barrier; a lane owns 16 pixels (one 16-byte load) of a run of
 *             rows (3x3 and 5x5: streamed, as many rows as fill one
 *             resident wave, aligned rows prefetched through a shared-memory
 *             ring; 7x7 and 9x9: 2), column sums packed two to a
 *             32-bit integer, the columns beside its 16 from neighbouring
 *             lanes by warp shuffle.
 *  - Fused:   one launch; a block loads its tile plus a halo of R rows and
 *             R pixels into shared memory (16-byte loads), runs the row pass
 *             into a float tile in shared memory, then the column pass from
 *             it. One read and one write of the frame.
 *  - TwoPass: a row kernel writes the 8.8 intermediate as uint16 to a
 *             scratch buffer; a column kernel reads it back. Two launches and
 *             2 * 2 bytes more traffic per sample, no redundant row work on
 *             halo rows.
 * Auto picks Direct for 3x3 and 5x5 on GRAY8 frames of 1920x1080 and
 * more, Fused elsewhere (blur_default_variant: what measured the fastest).
 *
 * No GStreamer here: plain pointers, pitches, sizes and a stream. */
#pragma once

#include "../common/cuda_check.h"
#include "../common/cuda_raii.h"
#include "../common/image.h"
#include "../policy/launch_policy.h"

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

enum class BlurVariant { Auto, Fused, TwoPass, Direct };
const char *blur_variant_name (BlurVariant v);

/* What Auto resolves to: Fused, for both channel counts and all radii. A
 * frame is read once and written once, against three times that traffic
 * (the uint16 intermediate is written and read back) for TwoPass, while the
 * fused form's redundant row work on the halo rows is (rows + 2R) / rows =
 * 1.125 at R = 2 and 1.94 at the largest radius with the default 32x8
 * block (4 output rows per thread). Direct, which needs no shared memory,
 * measured slower than Fused on an H100 (5x5 GRAY8: 24.3 against 9.6 us at
 * 1080p, 28.0 against 21.3 us at 4K). bench/ measures all three through
 * gaussian_blur (..., variant). */
BlurVariant blur_default_variant (int channels, int width, int height, const BlurTaps & taps);

/* Scratch bytes the TwoPass variant needs (the uint16 intermediate). */
size_t blur_scratch_bytes (int channels, int width, int height);

/* Blurs `src` into `dst` (same size, `channels` interleaved 8-bit channels:
 * 1 for GRAY8, 4 for the RGBA family; each channel independently). Device
 * pointers; `dst` must not alias `src`. Asynchronous on `stream`, no host
 * synchronization. `scratch` (device, grown as needed) is required for
 * TwoPass and may be null otherwise. Every launch asks `policy`; the result
 * does not depend on the block shape. This is also the benchmark hook:
 * pass a variant other than Auto to time one implementation (Direct where
 * it does not apply runs Fused). */
CudaStatus gaussian_blur (ConstImage8 src, Image8 dst, int channels, const BlurTaps & taps,
    const LaunchPolicy & policy, cudaStream_t stream, DeviceBuffer * scratch,
    BlurVariant variant = BlurVariant::Auto);

/* Blurs a plane of two interleaved channels (NV12's UV: `src`'s width in
 * samples) as cv::GaussianBlur blurs a 2-channel image: each channel
 * apart, with the same taps, through `planes` (device, grown as needed:
 * the channels as four planes) and gaussian_blur. Asynchronous. */
CudaStatus gaussian_blur_interleaved2 (ConstImage8 src, Image8 dst, const BlurTaps & taps, const LaunchPolicy & policy,
    cudaStream_t stream, DeviceBuffer * planes, DeviceBuffer * scratch);

/* The kernels' traits, for the tuner and the benchmarks. Radii are grouped
 * into compiled classes (1, 2, 3, 4, 5, 6, 8, 10, 12, 15: the taps are
 * zero-padded up to the class); the name says which, e.g.
 * "blur.fused.c1.r5". Each thread produces 4 bytes of a row (4 GRAY8 pixels
 * or 1 RGBA pixel) on 4 rows (Direct: 16 GRAY8 pixels on 2 rows, one
 * channel, radius classes up to 4; for a larger radius its traits are the
 * fused kernel's, which is what runs then). */
enum class BlurKernel { Fused, Rows, Columns, Direct };
const KernelTraits & blur_traits (BlurKernel kernel, int channels, int radius);
/* The compiled radius class that serves `radius` (0..15). */
int blur_radius_class (int radius);
/* Dynamic shared memory per thread the launchers declare to the launch
 * policy for a kernel (its tiles at the default 32x8 shape / 256): the
 * model's shared-memory input. Host-only; the offline model evaluator
 * (tools/tune/model_eval.cpp) uses it too. */
size_t blur_smem_per_thread (BlurKernel kernel, int channels, int radius);

}  // namespace cudavision
