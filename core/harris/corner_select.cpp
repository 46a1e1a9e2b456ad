#include "corner_select.h"

#include <algorithm>
#include <cmath>

namespace cudavision {

std::vector<Corner>
select_corners (const Corner * sorted, size_t n, int width, int height, double min_distance, int max_corners)
{
  std::vector<Corner> out;
  if (min_distance < 1) {
    const size_t keep = max_corners > 0 ? std::min (n, (size_t) max_corners) : n;
    out.assign (sorted, sorted + keep);
    return out;
  }
  /* cvRound: round half to even, as lrint in the default rounding mode */
  const int cell = (int) std::lrint (min_distance);
  const int grid_w = (width + cell - 1) / cell;
  const int grid_h = (height + cell - 1) / cell;
  std::vector<std::vector<Corner>> grid ((size_t) grid_w * grid_h);
  const double min_d2 = min_distance * min_distance;

  for (size_t i = 0; i < n; i++) {
    const Corner & c = sorted[i];
    const int x = (int) c.x, y = (int) c.y;
    const int xc = x / cell, yc = y / cell;
    const int x1 = std::max (0, xc - 1), y1 = std::max (0, yc - 1);
    const int x2 = std::min (grid_w - 1, xc + 1), y2 = std::min (grid_h - 1, yc + 1);
    bool good = true;
    for (int yy = y1; yy <= y2 && good; yy++) {
      for (int xx = x1; xx <= x2 && good; xx++) {
        for (const Corner & m : grid[(size_t) yy * grid_w + xx]) {
          const float dx = x - m.x, dy = y - m.y;
          if (dx * dx + dy * dy < min_d2) {
            good = false;
            break;
          }
        }
      }
    }
    if (!good)
      continue;
    grid[(size_t) yc * grid_w + xc].push_back (c);
    out.push_back (c);
    if (max_corners > 0 && (int) out.size () == max_corners)
      break;
  }
  return out;
}

}  // namespace cudavision
