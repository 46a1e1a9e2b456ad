/* cudavision — cudaflow's CPU backend: OpenCV's cv::calcOpticalFlowPyrLK,
 * the reference users know, on the same plain image views the GPU path
 * takes; the flow colours and the drawing are the GPU's (flow_draw.h). */
#pragma once

#include "../core/draw/flow_draw.h"
#include "../core/flow/flow_params.h"
#include "../core/image.h"

#include <vector>

namespace cudavision {
namespace cpu {

/* cv::calcOpticalFlowPyrLK (prev, next, points) with p's winSize (square),
 * maxLevel, TermCriteria (COUNT + EPS, iterations, epsilon) and
 * minEigThreshold, no flags, no error output; `xy` holds x y pairs. With
 * `clip_to_frame`, points outside the frame after tracking are lost
 * (flow_in_frame). One vector per point, in order. */
std::vector<FlowVector> track_lk (ConstImage8 prev, ConstImage8 next, const std::vector<float> & xy,
    const FlowParams & p, bool clip_to_frame);

/* The grid of flow_grid_point as x y pairs. */
std::vector<float> grid_points (int width, int height, int step);

/* output=flow-color from the grid's vectors: every pixel its cell's
 * flow_color_rgb, black where lost; RGBA, alpha 255. */
void flow_color (const std::vector<FlowVector> & grid, int step, float max_flow, Image8 rgba);

/* draw=true: the motion vectors (green; white on GRAY8), then with
 * `markers` red crosses at the current positions. */
void draw_flow (const FlowOverlay & overlay, const std::vector<FlowVector> & v, bool markers);

}  // namespace cpu
}  // namespace cudavision
