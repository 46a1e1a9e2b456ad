/* cudavision — cudablur's CPU backend: OpenCV's GaussianBlur on the same
 * plain image views the GPU path takes; and a plain C++ model of the GPU
 * arithmetic, which the tests hold against OpenCV on machines without a
 * GPU. */
#pragma once

#include "../core/image.h"

#include <cstdint>

namespace cudavision {
namespace cpu {

/* cv::GaussianBlur (src, dst, Size (ksize_x, ksize_y), sigma_x, sigma_y,
 * BORDER_REFLECT_101) on `channels` interleaved 8-bit channels (1 or 4).
 * Kernel sizes odd and positive; sigma_y 0 means sigma_x. */
void gaussian_blur (ConstImage8 src, Image8 dst, int channels, int ksize_x, int ksize_y, double sigma_x,
    double sigma_y);

/* What the GPU kernels compute, written plainly: 8.8 fixed-point taps
 * (`taps_x` / `taps_y`, full kernels of ksize_x / ksize_y values summing to
 * 256), a row pass into 8.8, a column pass into 16.16, (v + 2^15) >> 16,
 * reflect-101 borders folded as often as needed. */
void gaussian_blur_fixed_reference (ConstImage8 src, Image8 dst, int channels, const uint16_t *taps_x,
    int ksize_x, const uint16_t *taps_y, int ksize_y);

}  // namespace cpu
}  // namespace cudavision
