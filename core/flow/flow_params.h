/* cudavision — the parameters and results of a Lucas-Kanade flow (cudaflow),
 * shared by the GPU path (flow.h), the CPU backend (cpu/flow_cpu.h), the
 * element and the tests. Pure C++: the CPU backend is built without the
 * CUDA headers; the CV_HD helpers also compile into the kernels. */
#pragma once

#include "../hd.h"

#include <cstdint>

namespace cudavision {

/* Window sizes the GPU kernel holds in registers (a warp of 32 lanes, at
 * most 32 window pixels a lane); OpenCV needs > 2. */
constexpr int kFlowMinWindow = 3, kFlowMaxWindow = 32;
/* Highest pyramid level asked for (OpenCV stops earlier anyway once a level
 * would not be larger than the window). */
constexpr int kFlowMaxLevel = 8;

/* cv::calcOpticalFlowPyrLK's parameters: winSize (square), maxLevel,
 * TermCriteria (COUNT + EPS: iterations, epsilon), minEigThreshold. No
 * initial flow, no error output. */
struct FlowParams {
  int window = 21;
  int max_level = 3;
  int iterations = 30;
  double epsilon = 0.01;
  double min_eig = 1e-4;
};

/* One tracked point: where it was in the previous frame, where LK puts it
 * in the current one, and whether it was tracked (1) or lost (0). */
struct FlowVector {
  float prev_x = 0, prev_y = 0;
  float x = 0, y = 0;
  uint8_t status = 0;
};

/* The highest pyramid level cv::buildOpticalFlowPyramid builds for a
 * `width` x `height` frame: halve ((n + 1) / 2) while the next level stays
 * larger than the window in both directions, at most `max_level` times. */
inline int
flow_pyramid_levels (int width, int height, int window, int max_level)
{
  int level = 0;
  for (; level < max_level; level++) {
    width = (width + 1) / 2;
    height = (height + 1) / 2;
    if (width <= window || height <= window)
      break;
  }
  return level;
}

/* Dense mode: one point per cell of `step` x `step` pixels (cells at the
 * right and bottom edges may be narrower), at the centre of the cell's
 * pixels, in raster order of the cells. */
CV_HD int
flow_grid_cols (int width, int step)
{
  return (width + step - 1) / step;
}

CV_HD int
flow_grid_rows (int height, int step)
{
  return (height + step - 1) / step;
}

CV_HD void
flow_grid_point (int i, int width, int height, int step, float *x, float *y)
{
  const int cols = flow_grid_cols (width, step);
  const int x0 = (i % cols) * step, y0 = (i / cols) * step;
  const int x1 = x0 + step < width ? x0 + step : width;
  const int y1 = y0 + step < height ? y0 + step : height;
  *x = (float) (x0 + x1 - 1) * 0.5f;
  *y = (float) (y0 + y1 - 1) * 0.5f;
}

/* cudaflow's rule on top of OpenCV's status: a point whose rounded
 * position is outside the frame is lost (OpenCV keeps points up to a window
 * beyond the edge). */
CV_HD bool
flow_in_frame (float x, float y, int width, int height)
{
  return x >= -0.5f && y >= -0.5f && x < (float) width - 0.5f && y < (float) height - 0.5f;
}

}  // namespace cudavision
