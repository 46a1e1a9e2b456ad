/* cudavision — cudaotsu's CPU backend: OpenCV's Otsu threshold, the
 * reference users know, on the same plain image views the GPU path takes. */
#pragma once

#include "../core/image.h"

namespace cudavision {
namespace cpu {

/* The threshold of cv::threshold (src, ..., 0, 255, THRESH_BINARY |
 * THRESH_OTSU). With `binarize`, dst receives the binary image (THRESH_
 * BINARY_INV with `invert`); without, a copy of src. Returns the
 * threshold. */
int otsu (ConstImage8 src, Image8 dst, bool binarize, bool invert);

}  // namespace cpu
}  // namespace cudavision
