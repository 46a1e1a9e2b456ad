/* cudavision-tune — the pyramid levels of kernels that run once per level
 * (Tunable::expand_sizes): which sizes a run measures for them and, for the
 * face detector, how a detection is made to search exactly one level.
 *
 * A measurement has one table key, the work size of the launch it times,
 * so a kernel launched at several sizes per frame is measured one level
 * size at a time, at the sizes the elements' default settings produce for
 * the run's frame sizes. Pure C++ (unit-tested without a GPU). */
#pragma once

#include "search_space.h"

#include "../../cuda/face/face_types.h"

#include <utility>
#include <vector>

namespace cvtune {

/* cudaflow's pyramid for the element's default window and highest level
 * (FlowParams): with `pyrdown_sources` the levels a flow.pyrdown launch
 * reads (every level but the last), else every level (what flow.scharr
 * runs on), for each of `sizes`; each size once, in order. */
std::vector<FrameSize> flow_level_sizes (const std::vector<FrameSize> & sizes, bool pyrdown_sources);

/* One level of a face detection: the frame it is searched in, and the
 * level's window in that frame's pixels. */
struct FaceLevelOrigin {
  FrameSize frame;
  int win_width = 0, win_height = 0;
};

/* The levels a detection with the element's default parameters
 * (FaceDetectParams: scale factor 1.1, no size limits) searches in each
 * of `sizes`, for a `window_width` x `window_height` cascade: each level
 * size once, in order, with the first frame that produces it. */
std::vector<std::pair<FrameSize, FaceLevelOrigin>> face_levels (const std::vector<FrameSize> & sizes,
    int window_width, int window_height);

/* The default parameters with the minimum and the maximum size set to the
 * level's window: a detection on `o.frame` then searches that level alone
 * (plan_face_levels keeps the scales whose window lies between the two,
 * and the windows of successive scales differ by about 10%), with the
 * step, scale and window the full search gives it. */
cudavision::FaceDetectParams single_level_params (const FaceLevelOrigin & o);

}  // namespace cvtune
