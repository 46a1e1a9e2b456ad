/* cudavision-tune — pyramid level sizes (levels.h). */
#include "levels.h"

#include "../../core/flow/flow_params.h"

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

}  // namespace cvtune
