/* cudavision — pyramid planning (see face_levels.h).
 *
 * The arithmetic types matter: OpenCV multiplies the factor in double,
 * stores it as float, divides the image size by the float and rounds with
 * cvRound (round half to even), so this file does the same. */
#include "face_levels.h"

#include <algorithm>
#include <cmath>

namespace cudavision {

namespace {

int
round_even (double v)
{
  return (int) std::lrint (v);
}

int
round_even (float v)
{
  return (int) std::lrintf (v);
}

}  // namespace

std::vector<FaceLevel>
plan_face_levels (int width, int height, int window_width, int window_height, const FaceDetectParams & p)
{
  std::vector<FaceLevel> levels;
  if (!(p.scale_factor > 1.0) || window_width <= 0 || window_height <= 0 || width < window_width ||
      height < window_height)
    return levels;
  int max_w = p.max_width, max_h = p.max_height;
  if (max_w == 0 || max_h == 0) {
    max_w = width;
    max_h = height;
  }

  /* Every scale whose window fits the image, then the min/max filter. */
  std::vector<float> all, scales;
  for (double factor = 1;; factor *= p.scale_factor) {
    const int ww = round_even (window_width * factor), wh = round_even (window_height * factor);
    if (ww > width || wh > height)
      break;
    all.push_back ((float) factor);
  }
  for (float s : all) {
    const int ww = round_even (window_width * s), wh = round_even (window_height * s);
    if (ww > max_w || wh > max_h)
      break;
    if (ww < p.min_width || wh < p.min_height)
      continue;
    scales.push_back (s);
  }
  /* OpenCV's fallback when the filter leaves nothing (meant for
   * min size == max size between two scales): the scale whose window is
   * nearest to the minimum size. */
  if (scales.empty () && !all.empty ()) {
    size_t best = 0;
    double best_d = 0;
    for (size_t i = 0; i < all.size (); i++) {
      const int ww = round_even (window_width * all[i]), wh = round_even (window_height * all[i]);
      const double d = (double) (p.min_width - ww) * (p.min_width - ww) + (double) (p.min_height - wh) * (p.min_height - wh);
      if (i == 0 || best_d > d) {
        best = i;
        best_d = d;
      }
    }
    scales.push_back (all[best]);
  }

  for (float s : scales) {
    FaceLevel l;
    l.scale = s;
    l.width = round_even ((float) width / s);
    l.height = round_even ((float) height / s);
    l.step = s >= 2 ? 1 : 2;
    l.win_width = round_even (window_width * s);
    l.win_height = round_even (window_height * s);
    const int work_x = std::max (l.width + 1 - window_width, 0);
    const int work_y = std::max (l.height + 1 - window_height, 0);
    l.grid_x = (work_x + l.step - 1) / l.step;
    l.grid_y = (work_y + l.step - 1) / l.step;
    levels.push_back (l);
  }
  return levels;
}

}  // namespace cudavision
