/* cudavision — grouping of raw cascade detections, with the semantics of
 * OpenCV's cv::groupRectangles (rectList, groupThreshold, eps) and the
 * clipping of CascadeClassifier::detectMultiScale.
 *
 * The GPU detector runs this on the host over its few hundred raw windows:
 * the union-find over a small list is sequential by nature and costs
 * microseconds, less than a kernel launch. Pure C++. */
#pragma once

#include "face_types.h"

#include <vector>

namespace cudavision {

/* Clusters rectangles whose corners lie within eps * (mean of the smaller
 * sizes) / 2 of each other, averages each cluster, drops clusters of
 * min_neighbors members or fewer and clusters inside a stronger one.
 * min_neighbors <= 0 returns the list unchanged, as OpenCV does. The output
 * order is OpenCV's (clusters in order of their first member). */
void group_rectangles (std::vector<FaceRect> & rects, int min_neighbors, double eps = kFaceGroupEps);

/* Intersects each rectangle with the image and drops empty ones
 * (cv::CascadeClassifier::detectMultiScale's final step). */
void clip_rectangles (std::vector<FaceRect> & rects, int width, int height);

}  // namespace cudavision
