/* cudavision — the face detector's device layout and batches (see
 * face_batches.h). */
#include "face_batches.h"

#include <algorithm>
#include <climits>

namespace cudavision {
namespace facedetect {

FacePlan
plan_face_batches (const std::vector<FaceLevel> & levels, int frame_width, int frame_height, size_t cap_bytes)
{
  FacePlan p;
  p.levels = levels;
  p.key = face_key_layout (frame_width, frame_height, (int) levels.size ());
  FaceBatch cur;
  auto close = [&] () {
    if (cur.count == 0)
      return;
    p.batches.push_back (cur);
    p.max_integral_elements = std::max (p.max_integral_elements, cur.integral_elements);
    p.max_carry_elements = std::max (p.max_carry_elements, cur.carry_elements);
    p.max_batch_windows = std::max (p.max_batch_windows, cur.windows);
    cur = FaceBatch ();
    cur.first = (int) p.descs.size ();
  };
  for (const FaceLevel & l : levels) {
    LevelDesc d;
    /* OpenCV's resize takes its coefficient scale as 1. / (dst / src) */
    d.scale_x = 1. / ((double) l.width / frame_width);
    d.scale_y = 1. / ((double) l.height / frame_height);
    d.width = l.width;
    d.height = l.height;
    d.pitch = (l.width + 1 + kIntegralAlign - 1) / kIntegralAlign * kIntegralAlign;
    d.step = l.step;
    d.grid_x = l.grid_x;
    d.grid_y = l.grid_y;
    d.scale = l.scale;
    d.win_width = l.win_width;
    d.win_height = l.win_height;
    d.index = (int) p.descs.size ();
    d.key_x_shift = p.key.x_shift;
    d.key_y_shift = p.key.y_shift;
    const size_t elements = (size_t) d.pitch * (size_t) (l.height + 1);
    const long windows = (long) l.grid_x * l.grid_y;
    const bool over_cap = (cur.integral_elements + elements) * 2 * sizeof (uint32_t) > cap_bytes;
    const bool over_count = cur.windows + windows > INT_MAX;
    if (cur.count > 0 && (over_cap || over_count || cur.count == kMaxBatchLevels))
      close ();
    d.offset = cur.integral_elements;
    cur.integral_elements += elements;
    d.carry_offset = cur.carry_elements;
    cur.carry_elements = level_carries (d).end;
    cur.windows += windows;
    cur.count++;
    p.descs.push_back (d);
  }
  close ();
  return p;
}

}  // namespace facedetect
}  // namespace cudavision
