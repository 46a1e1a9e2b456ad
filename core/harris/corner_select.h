/* cudavision — the last step of cv::goodFeaturesToTrack: the greedy
 * minimum-distance selection over candidates sorted by response.
 *
 * Pure C++ (no CUDA): the GPU path runs it on the host over the compacted,
 * device-sorted candidate list. The pass is sequential by nature (a corner
 * is kept only if no *kept* corner is near), the list is short next to the
 * frame (thousands of candidates for millions of pixels), and the list has
 * to reach the host anyway for the buffer meta. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudavision {

/* A detected corner: integer pixel position (as goodFeaturesToTrack
 * returns) and its response. */
struct Corner {
  float x = 0;
  float y = 0;
  float score = 0;
};

/* OpenCV's selection, step for step: with min_distance >= 1, a grid of
 * cvRound(min_distance) cells; a candidate is rejected when a kept corner
 * in the 3x3 neighbouring cells is closer than min_distance (squared
 * distance in float, compared with the squared double); stops after
 * max_corners kept (0 = no limit). With min_distance < 1 every candidate is
 * kept up to max_corners. `sorted` must be in goodFeaturesToTrack's order
 * (response descending, equal responses the later raster position first). */
std::vector<Corner> select_corners (const Corner * sorted, size_t n, int width, int height, double min_distance,
    int max_corners);

}  // namespace cudavision
