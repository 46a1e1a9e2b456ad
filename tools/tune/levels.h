/* cudavision-tune — the pyramid levels of kernels that run once per level
 * (Tunable::expand_sizes): which sizes a run measures for them. (The face
 * detector's kernels cover every level in one launch and are keyed by the
 * frame size.)
 *
 * A measurement has one table key, the work size of the launch it times,
 * so a kernel launched at several sizes per frame is measured one level
 * size at a time, at the sizes the elements' default settings produce for
 * the run's frame sizes. Pure C++ (unit-tested without a GPU). */
#pragma once

#include "search_space.h"

#include <vector>

namespace cvtune {

/* cudaflow's pyramid for the element's default window and highest level
 * (FlowParams): with `pyrdown_sources` the levels a flow.pyrdown launch
 * reads (every level but the last), else every level (what flow.scharr
 * runs on), for each of `sizes`; each size once, in order. */
std::vector<FrameSize> flow_level_sizes (const std::vector<FrameSize> & sizes, bool pyrdown_sources);

}  // namespace cvtune
