/* cudavision — cudaharris's CPU backend: OpenCV's cornerHarris /
 * cornerMinEigenVal and goodFeaturesToTrack, the references users know, on
 * the same plain image views the GPU path takes. */
#pragma once

#include "../core/draw/canvas.h"
#include "../core/harris/corner_params.h"
#include "../core/harris/corner_select.h"
#include "../core/image.h"

#include <vector>

namespace cudavision {
namespace cpu {

/* cv::goodFeaturesToTrack on a GRAY8 view with the same parameters
 * (gradientSize = aperture); scores are its cornersQuality, the response
 * at each corner. Strongest first. */
std::vector<Corner> good_features (ConstImage8 gray, const CornerDetectParams & p);

/* The response map (cornerHarris or cornerMinEigenVal, BORDER_REFLECT_101)
 * normalized to GRAY8: response.convertTo (dst, CV_8U, 255 / max), all 0
 * when the maximum is not positive. */
void normalized_response (ConstImage8 gray, const CornerParams & p, Image8 dst);

/* Marks corners (corner_marker.h) on a frame's canvas. */
void draw_corners (const Canvas & canvas, const std::vector<Corner> & corners);

}  // namespace cpu
}  // namespace cudavision
