/* cudavision — the image pyramid of a cascade detection, planned on the
 * host exactly as OpenCV 4.x plans it (CascadeClassifierImpl::
 * detectMultiScaleNoGrouping and FeatureEvaluator::updateScaleData): the
 * same float scale factors, level sizes, window steps and window sizes, so
 * GPU and CPU look at the same windows. Pure C++. */
#pragma once

#include "../../core/face/face_types.h"

#include <vector>

namespace cudavision {

struct FaceLevel {
  float scale = 1.f;        /* OpenCV's (float) factor */
  int width = 0, height = 0;  /* the resized image: cvRound(W / scale) */
  int step = 2;             /* window step in level pixels: 1 when scale >= 2 */
  int win_width = 0, win_height = 0;  /* the window in frame pixels */
  /* Window positions: x = i * step for i < grid_x (OpenCV's working size
   * max(width + 1 - window, 0), stepped). */
  int grid_x = 0, grid_y = 0;
};

/* The levels OpenCV evaluates for a `width` x `height` image and a
 * `window_width` x `window_height` cascade; empty when the image is smaller
 * than the window or scale_factor <= 1. */
std::vector<FaceLevel> plan_face_levels (int width, int height, int window_width, int window_height,
    const FaceDetectParams & params);

}  // namespace cudavision
