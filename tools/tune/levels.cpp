/* cudavision-tune — pyramid level sizes (levels.h). */
#include "levels.h"

#include "../../cuda/face/face_levels.h"
#include "../../cuda/flow/flow_params.h"

#include <algorithm>

using namespace cudavision;

namespace cvtune {

namespace {

bool
add_once (std::vector<FrameSize> & out, FrameSize f)
{
  if (std::find (out.begin (), out.end (), f) != out.end ())
    return false;
  out.push_back (f);
  return true;
}

}  // namespace

std::vector<FrameSize>
flow_level_sizes (const std::vector<FrameSize> & sizes, bool pyrdown_sources)
{
  const FlowParams p;
  std::vector<FrameSize> out;
  for (FrameSize f : sizes) {
    /* levels 0..top, each (n + 1) / 2 of the one below, as FlowPyramid
     * builds them */
    const int top = flow_pyramid_levels (f.width, f.height, p.window, p.max_level);
    for (int l = 0; l <= top - (pyrdown_sources ? 1 : 0); l++) {
      add_once (out, f);
      f = { (f.width + 1) / 2, (f.height + 1) / 2 };
    }
  }
  return out;
}

std::vector<std::pair<FrameSize, FaceLevelOrigin>>
face_levels (const std::vector<FrameSize> & sizes, int window_width, int window_height)
{
  std::vector<FrameSize> seen;
  std::vector<std::pair<FrameSize, FaceLevelOrigin>> out;
  for (FrameSize f : sizes)
    for (const FaceLevel & l : plan_face_levels (f.width, f.height, window_width, window_height, FaceDetectParams {}))
      if (add_once (seen, { l.width, l.height }))
        out.push_back ({ { l.width, l.height }, { f, l.win_width, l.win_height } });
  return out;
}

FaceDetectParams
single_level_params (const FaceLevelOrigin & o)
{
  FaceDetectParams p;
  p.min_width = p.max_width = o.win_width;
  p.min_height = p.max_height = o.win_height;
  return p;
}

}  // namespace cvtune
