/* cudavision tests and benchmarks — the face detector's speed inputs
 * (docs/PERFORMANCE.md), grey, built from the bundled pictures:
 *   mosaic     faces/face_tiles.png (100 LFW faces, 100 non-face crops)
 *   portraits  astronaut.png and grace_hopper.jpg side by side (2 faces)
 *   nonface    the 100 non-face cells of face_tiles.png, 10 x 10
 *   noise      uniform random bytes (the most work per window)
 *   leaves     the tuner's synthetic photograph (frames/dead_leaves.h),
 *              made at each size
 *   any other name: that picture of tests/data.
 * Needs OpenCV core and imgproc and GStreamer (gst_frames.h decodes). */
#pragma once

#include <opencv2/core.hpp>

#include <string>

namespace cvtest {

/* The input at its own size (an empty Mat for noise, which has none). */
cv::Mat face_input_source (const std::string & name);

/* `src` (face_input_source (name)) at w x h: cv::resize, INTER_AREA down
 * and INTER_LINEAR up; seeded noise for an empty source. */
cv::Mat face_input_at (const cv::Mat & src, int w, int h);

/* Input `name` at w x h: face_input_at (face_input_source (name), w, h),
 * or the synthetic photograph made at that size. */
cv::Mat face_input (const std::string & name, int w, int h);

}  // namespace cvtest
