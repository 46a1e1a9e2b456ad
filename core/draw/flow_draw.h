/* cudavision — what cudaflow paints, shared by the GPU kernels and the CPU
 * backend so both give the same pixels:
 *  - flow_color_rgb: the colour of a flow vector for output=flow-color,
 *    HSV with hue = direction, saturation = magnitude / max-flow (capped
 *    at 1), value 1: no motion is white, hue 0 (red) is motion to the
 *    right, 90 (yellow-green) down, 180 (cyan) left, 270 (violet) up;
 *  - the motion vector of a tracked point (draw=true): a 1-pixel line from
 *    the previous to the current position, rounded to pixels, at most
 *    kFlowLineMax + 1 pixels from its start, in the element's `color`, and
 *    in sparse mode a cross (corner_marker.h) at the current position in
 *    `marker-color`, each pixel painted on the frame's canvas
 *    (common/canvas.h). */
#pragma once

#include "canvas.h"
#include "../exact_ops.h"

#include <cmath>
#include <cstdint>

namespace cudavision {

constexpr int kFlowLineMax = 256;
constexpr uint32_t kFlowLineColor = 0xff00ff00u; /* ARGB: opaque green, cudaflow's default `color` */

/* What draw=true paints: one frame's canvas in the tracks' colour and in
 * the markers'. */
struct FlowOverlay {
  Canvas lines;
  Canvas markers;
};

CV_HD int
flow_round_px (float v)
{
  return (int) floorf (v + 0.5f);
}

CV_HD int
floor_div (int a, int b) /* b > 0 */
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/* Pixels of the line from (x0, y0) to (x1, y1): steps + 1 of them, k-th at
 * flow_line_pixel (k). */
CV_HD int
flow_line_steps (int x0, int y0, int x1, int y1)
{
  const int dx = x1 > x0 ? x1 - x0 : x0 - x1, dy = y1 > y0 ? y1 - y0 : y0 - y1;
  return dx > dy ? dx : dy;
}

CV_HD void
flow_line_pixel (int x0, int y0, int x1, int y1, int steps, int k, int *x, int *y)
{
  if (steps == 0) {
    *x = x0;
    *y = y0;
    return;
  }
  /* round (d * k / steps), halves up, in integers */
  *x = x0 + floor_div (2 * (x1 - x0) * k + steps, 2 * steps);
  *y = y0 + floor_div (2 * (y1 - y0) * k + steps, 2 * steps);
}

/* Paints the line of a vector from (x0, y0) to (x1, y1) (rounded pixel
 * positions), clipped to the canvas. */
CV_HD void
paint_flow_line (const Canvas & canvas, int x0, int y0, int x1, int y1)
{
  const int steps = flow_line_steps (x0, y0, x1, y1);
  const int last = steps < kFlowLineMax ? steps : kFlowLineMax;
  for (int k = 0; k <= last; k++) {
    int x, y;
    flow_line_pixel (x0, y0, x1, y1, steps, k, &x, &y);
    if (canvas.inside (x, y))
      canvas.paint (x, y);
  }
}

CV_HD uint8_t
unit_to_u8 (float v)
{
  return (uint8_t) (int) (exact::fmul (v, 255.f) + 0.5f);
}

/* RGB of the flow (dx, dy); `max_flow` > 0 is the magnitude shown at full
 * saturation. */
CV_HD void
flow_color_rgb (float dx, float dy, float max_flow, uint8_t *r, uint8_t *g, uint8_t *b)
{
  const float mag = sqrtf (exact::fadd (exact::fmul (dx, dx), exact::fmul (dy, dy)));
  float s = mag / max_flow;
  s = s > 1.f ? 1.f : s;
  float deg = mag > 0.f ? atan2f (dy, dx) * (float) (180.0 / 3.14159265358979323846) : 0.f;
  if (deg < 0.f)
    deg += 360.f;
  const float h = deg / 60.f;
  int sector = (int) h;
  sector = sector > 5 ? 5 : sector;
  const float f = h - (float) sector;
  const float p = exact::fsub (1.f, s), q = exact::fsub (1.f, exact::fmul (s, f)), t = exact::fsub (1.f, exact::fmul (s, exact::fsub (1.f, f)));
  float rr, gg, bb;
  switch (sector) {
    case 0: rr = 1.f; gg = t; bb = p; break;
    case 1: rr = q; gg = 1.f; bb = p; break;
    case 2: rr = p; gg = 1.f; bb = t; break;
    case 3: rr = p; gg = q; bb = 1.f; break;
    case 4: rr = t; gg = p; bb = 1.f; break;
    default: rr = 1.f; gg = p; bb = q; break;
  }
  *r = unit_to_u8 (rr);
  *g = unit_to_u8 (gg);
  *b = unit_to_u8 (bb);
}

}  // namespace cudavision
