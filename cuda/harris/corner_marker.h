/* cudavision — the mark cudaharris draws at each corner (draw=true): a
 * cross of arms kCornerMarkerArm pixels long, one pixel wide, clipped at
 * the frame edges. Red on colour frames, white on GRAY8. Shared by the GPU
 * kernel and the CPU backend so both draw the same pixels. */
#pragma once

#include "../gray/gray_weights.h" /* CV_HD */

namespace cudavision {

constexpr int kCornerMarkerArm = 4;
/* horizontal bar (2*arm + 1 pixels), then the vertical bar without its centre */
constexpr int kCornerMarkerPixels = 4 * kCornerMarkerArm + 1;

/* Offset of marker pixel k (0 <= k < kCornerMarkerPixels) from the corner. */
CV_HD void
corner_marker_offset (int k, int *dx, int *dy)
{
  const int bar = 2 * kCornerMarkerArm + 1;
  if (k < bar) {
    *dx = k - kCornerMarkerArm;
    *dy = 0;
  } else {
    const int v = k - bar; /* 0 .. 2*arm - 1, skipping the centre */
    *dx = 0;
    *dy = v < kCornerMarkerArm ? v - kCornerMarkerArm : v - kCornerMarkerArm + 1;
  }
}

/* Paints one marker pixel: white on GRAY8 (channels 1), else red at the
 * layout's byte offsets (the 4th byte is left alone). */
CV_HD void
paint_marker_pixel (uint8_t *px, int channels, int r, int g, int b)
{
  if (channels == 1) {
    px[0] = 255;
  } else {
    px[r] = 255;
    px[g] = 0;
    px[b] = 0;
  }
}

}  // namespace cudavision
