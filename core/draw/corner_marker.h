/* cudavision — the mark cudaharris draws at each corner (draw=true), and
 * cudaflow at each tracked point: a cross of arms kCornerMarkerArm pixels
 * long, one pixel wide, clipped at the frame edges, each pixel painted on
 * the frame's canvas (common/canvas.h). Shared by the GPU kernels and the
 * CPU backend so both draw the same pixels. */
#pragma once

#include "canvas.h"

namespace cudavision {

constexpr int kCornerMarkerArm = 4;
constexpr uint32_t kCornerMarkerColor = 0xffff0000u; /* ARGB: opaque red, cudaharris's default */
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

/* Paints the cross centred on (cx, cy), clipped to the canvas. */
CV_HD void
paint_marker (const Canvas & canvas, int cx, int cy)
{
  for (int k = 0; k < kCornerMarkerPixels; k++) {
    int dx, dy;
    corner_marker_offset (k, &dx, &dy);
    if (canvas.inside (cx + dx, cy + dy))
      canvas.paint (cx + dx, cy + dy);
  }
}

}  // namespace cudavision
