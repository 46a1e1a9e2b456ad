/* cudavision — cudagray's CPU backend: OpenCV's cvtColor, the reference
 * users know, on the same plain image views the GPU path takes. */
#pragma once

#include "../core/image.h"

namespace cudavision {
namespace cpu {

void rgb_to_gray (ConstImage8 src, PackedRgb layout, Image8 dst);
void copy_plane (ConstImage8 src, Image8 dst);

}  // namespace cpu
}  // namespace cudavision
