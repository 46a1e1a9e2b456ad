#include "flow_cpu.h"

#include "../core/draw/corner_marker.h"
#include "../core/draw/flow_draw.h"

#include <opencv2/core.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>

namespace cudavision {
namespace cpu {

static cv::Mat
as_mat (ConstImage8 v)
{
  return cv::Mat (v.height, v.width, CV_8UC1, const_cast<uint8_t *> (v.data), v.pitch);
}

std::vector<FlowVector>
track_lk (ConstImage8 prev, ConstImage8 next, const std::vector<float> & xy, const FlowParams & p,
    bool clip_to_frame)
{
  std::vector<FlowVector> out;
  const size_t n = xy.size () / 2;
  if (n == 0 || prev.width <= 0 || prev.height <= 0)
    return out;
  std::vector<cv::Point2f> pts (n), next_pts;
  for (size_t i = 0; i < n; i++)
    pts[i] = { xy[2 * i], xy[2 * i + 1] };
  std::vector<uchar> status;
  cv::calcOpticalFlowPyrLK (as_mat (prev), as_mat (next), pts, next_pts, status, cv::noArray (),
      cv::Size (p.window, p.window), p.max_level,
      cv::TermCriteria (cv::TermCriteria::COUNT + cv::TermCriteria::EPS, p.iterations, p.epsilon), 0, p.min_eig);
  out.resize (n);
  for (size_t i = 0; i < n; i++) {
    FlowVector & v = out[i];
    v.prev_x = pts[i].x;
    v.prev_y = pts[i].y;
    v.x = next_pts[i].x;
    v.y = next_pts[i].y;
    v.status = status[i] && (!clip_to_frame || flow_in_frame (v.x, v.y, prev.width, prev.height)) ? 1 : 0;
  }
  return out;
}

std::vector<float>
grid_points (int width, int height, int step)
{
  const int n = flow_grid_cols (width, step) * flow_grid_rows (height, step);
  std::vector<float> xy ((size_t) n * 2);
  for (int i = 0; i < n; i++)
    flow_grid_point (i, width, height, step, &xy[2 * (size_t) i], &xy[2 * (size_t) i + 1]);
  return xy;
}

void
flow_color (const std::vector<FlowVector> & grid, int step, float max_flow, Image8 rgba)
{
  const int cols = flow_grid_cols (rgba.width, step);
  for (int y = 0; y < rgba.height; y++) {
    uint8_t *row = rgba.data + (size_t) y * rgba.pitch;
    for (int x = 0; x < rgba.width; x++) {
      const size_t i = (size_t) (y / step) * cols + x / step;
      uint8_t r = 0, g = 0, b = 0;
      if (i < grid.size () && grid[i].status)
        flow_color_rgb (grid[i].x - grid[i].prev_x, grid[i].y - grid[i].prev_y, max_flow, &r, &g, &b);
      row[4 * x] = r;
      row[4 * x + 1] = g;
      row[4 * x + 2] = b;
      row[4 * x + 3] = 255;
    }
  }
}

void
draw_flow (const FlowOverlay & overlay, const std::vector<FlowVector> & v, bool markers)
{
  /* every line before any marker, as the GPU's two launches */
  for (const FlowVector & f : v)
    if (f.status)
      paint_flow_line (overlay.lines, flow_round_px (f.prev_x), flow_round_px (f.prev_y), flow_round_px (f.x),
          flow_round_px (f.y));
  if (!markers)
    return;
  for (const FlowVector & f : v)
    if (f.status)
      paint_marker (overlay.markers, flow_round_px (f.x), flow_round_px (f.y));
}

}  // namespace cpu
}  // namespace cudavision
