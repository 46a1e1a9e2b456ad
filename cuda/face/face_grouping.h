/* cudavision — grouping of raw cascade detections, with the semantics of
 * OpenCV's cv::groupRectangles (rectList, groupThreshold, eps) and the
 * clipping of CascadeClassifier::detectMultiScale.
 *
 * The classes (which raw windows cluster together) are found on the GPU
 * when the detector has its raw list there (face_grouping.cu), or here by
 * partition_rectangles; merge_classes then averages and filters them on
 * the host (a few hundred classes at most). Pure C++. */
#pragma once

#include "../../core/face/face_types.h"

#include <vector>

namespace cudavision {

/* Clusters rectangles whose corners lie within eps * (mean of the smaller
 * sizes) / 2 of each other, averages each cluster, drops clusters of
 * min_neighbors members or fewer and clusters inside a stronger one.
 * min_neighbors <= 0 returns the list unchanged, as OpenCV does. The output
 * order is OpenCV's (clusters in order of their first member). With
 * `neighbors`, each output rectangle's cluster size, as cv::groupRectangles'
 * weights (1 each where min_neighbors <= 0). */
void group_rectangles (std::vector<FaceRect> & rects, int min_neighbors, double eps = kFaceGroupEps,
    std::vector<int> * neighbors = nullptr);

/* The first half of group_rectangles: each rectangle's class (0, 1, ...
 * numbered by their first member, as cv::partition numbers them); returns
 * the number of classes. */
int partition_rectangles (const std::vector<FaceRect> & rects, std::vector<int> & labels, double eps = kFaceGroupEps);

/* The second half: replaces `rects` by its classes' means, less those of
 * min_neighbors members or fewer and those inside a stronger one; with
 * `neighbors`, the kept classes' member counts. */
void merge_classes (std::vector<FaceRect> & rects, const std::vector<int> & labels, int nclasses, int min_neighbors,
    double eps = kFaceGroupEps, std::vector<int> * neighbors = nullptr);

/* Intersects each rectangle with the image and drops empty ones
 * (cv::CascadeClassifier::detectMultiScale's final step); `neighbors`
 * (one per rectangle, may be null) keeps up. */
void clip_rectangles (std::vector<FaceRect> & rects, int width, int height, std::vector<int> * neighbors = nullptr);

}  // namespace cudavision
