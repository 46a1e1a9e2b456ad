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
#include "../../core/gaussian_taps.h"
#include "../../core/image.h"
#include "../../core/policy/launch_policy.h"

#include <cstdint>

namespace cudavision {

enum class BlurVariant { Auto, Fused, TwoPass, Direct };
const char *blur_variant_name (BlurVariant v);

/* What Auto resolves to: Direct for GRAY8 frames of 1920x1080 and more
 * with radii up to 2, Fused elsewhere. Fused reads and writes a frame once,
 * against three times that traffic for TwoPass (the uint16 intermediate is
 * written and read back), while its redundant row work on the halo rows is
 * (rows + 2R) / rows = 1.125 at R = 2 and 1.94 at the largest radius with
 * the default 32x8 block (4 output rows per thread); Direct, with no
 * shared memory, is faster on large GRAY8 frames (docs/PERFORMANCE.md,
 * "Why the kernels are built as they are"). bench/ measures all three
 * through gaussian_blur (..., variant). */
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

/* The kernels' traits, for the tuner and the benchmarks, for `channels`
 * (1 or 4) and `radius`. Radii are grouped into compiled classes (1, 2, 3,
 * 4, 5, 6, 8, 10, 12, 15: the taps are zero-padded up to the class); the
 * name says which, e.g. "blur.fused.c1.r5". Each thread produces 4 bytes of
 * a row (4 GRAY8 pixels or 1 RGBA pixel) on 4 rows. The direct kernel
 * (blur_direct.h) takes GRAY8 only: 16 pixels on 2 rows, radius classes up
 * to 4; for a larger radius its traits are the fused kernel's, which is
 * what runs then. */
const KernelTraits & blur_fused_traits (int channels, int radius);
const KernelTraits & blur_rows_traits (int channels, int radius);
const KernelTraits & blur_columns_traits (int channels, int radius);
const KernelTraits & blur_direct_traits (int radius);
/* The compiled radius class that serves `radius` (0..15). */
int blur_radius_class (int radius);
/* Dynamic shared memory per thread the launchers declare to the launch
 * policy for a kernel (its tiles at the default 32x8 shape / 256): the
 * model's shared-memory input. Host-only; the offline model evaluator
 * (tools/tune/model_eval.cpp) uses it too. */
enum class BlurKernel { Fused, Rows, Columns, Direct };
size_t blur_smem_per_thread (BlurKernel kernel, int channels, int radius);

}  // namespace cudavision
