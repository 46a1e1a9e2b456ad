/* cudavision-tune — a synthetic photograph for the face kernels: the
 * "dead leaves" model of natural images (Matheron; Lee, Mumford and
 * Huang 2001), discs of uniform grey, radii distributed as 1/r^3, painted
 * over each other until the frame is covered several times, plus a little
 * sensor noise. It has a photograph's statistics at every scale (flat
 * regions with edges between them, a 1/f spectrum), which is what decides
 * how many windows the cascade's first stages keep: uniform noise keeps far
 * more than any photograph (docs/BLOCK-SIZING.md, Table 2), so shapes tuned
 * on noise suit the deep kernels' noise workload, not a camera's. No data
 * file: the tuner stays self-contained. Deterministic for a seed and size.
 * Header-only; the face benchmark shows the same frame as "leaves". */
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

namespace cvtune {

/* Paints a width x height GRAY8 frame at `out` (rows `pitch` bytes apart). */
inline void
dead_leaves_frame (int width, int height, uint32_t seed, uint8_t *out, size_t pitch)
{
  if (width <= 0 || height <= 0)
    return;
  std::mt19937 rng (seed ^ (uint32_t) (width * 73856093u) ^ (uint32_t) (height * 19349663u));
  std::uniform_real_distribution<double> unit (0.0, 1.0);
  for (int y = 0; y < height; y++)
    std::fill (out + (size_t) y * pitch, out + (size_t) y * pitch + width, (uint8_t) 128);
  /* radii on [rmin, rmax] with density ~ r^-3 (scale invariance), by the
   * inverse of its distribution function. The smallest leaves are 1.5% of
   * the frame's smaller side: with leaves down to single pixels OpenCV's
   * cascade works on the frame longer than on uniform noise; at 1.5% it
   * spends about what it spends on the bundled photographs (the calibration in
   * docs/BLOCK-SIZING.md). */
  const double side = std::min (width, height);
  const double rmin = std::max (1.5, 0.015 * side), rmax = std::max (2 * rmin, side / 3.0);
  const double a = 1.0 / (rmin * rmin), b = 1.0 / (rmax * rmax);
  /* painted area four times the frame's: every pixel covered, the last
   * discs on top */
  const double budget = 4.0 * width * height;
  for (double painted = 0; painted < budget;) {
    const double r = 1.0 / std::sqrt (a - unit (rng) * (a - b));
    const double cx = unit (rng) * width, cy = unit (rng) * height;
    const uint8_t grey = (uint8_t) (24 + rng () % 208);
    painted += M_PI * r * r;
    const int y0 = std::max (0, (int) std::ceil (cy - r)), y1 = std::min (height - 1, (int) std::floor (cy + r));
    for (int y = y0; y <= y1; y++) {
      const double dy = y - cy, half = std::sqrt (std::max (0.0, r * r - dy * dy));
      const int x0 = std::max (0, (int) std::ceil (cx - half)), x1 = std::min (width - 1, (int) std::floor (cx + half));
      if (x0 <= x1)
        std::fill (out + (size_t) y * pitch + x0, out + (size_t) y * pitch + x1 + 1, grey);
    }
  }
  /* sensor noise, +-3 grey levels: flat regions are not perfectly flat */
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      uint8_t & p = out[(size_t) y * pitch + x];
      p = (uint8_t) std::clamp ((int) p + (int) (rng () % 7) - 3, 0, 255);
    }
}

}  // namespace cvtune
