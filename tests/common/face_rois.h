/* cudavision tests — cudafacedetect's region-of-interest metas as an
 * application reads them (by id, with their "detection" parameter), and
 * OpenCV's detections with their neighbour counts to hold them against.
 * Shared by the CPU and GPU suites. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace cvtest {

/* One "face" GstVideoRegionOfInterestMeta. */
struct FaceRoi {
  gint id = -1;
  cv::Rect rect;
  bool has_param = false;  /* a "detection" structure with both fields */
  int neighbors = -1;
  double scale = -1;
};
/* The "face" region metas of `buf`, in their order on the buffer. */
std::vector<FaceRoi> face_rois (GstBuffer * buf);

/* Every face of `rois` (face_rois (buf)) has its own id, and
 * gst_buffer_get_video_region_of_interest_meta_id (buf, id) returns that
 * very face; ids are `first_id`, `first_id` + 1, ... in order. */
::testing::AssertionResult faces_reached_by_id (GstBuffer * buf, const std::vector<FaceRoi> & rois, gint first_id = 0);

/* A detection as cv::CascadeClassifier::detectMultiScale's overload with
 * numDetections gives it. */
struct Detection {
  cv::Rect rect;
  int neighbors = 0;
};
/* That overload on a GRAY8 image (flags 0, the default cascade of
 * face_ref.h unless named); `window_width` (may be null) gets the cascade
 * window's width (getOriginalWindowSize). */
std::vector<Detection> opencv_detections (const cv::Mat & gray, double scale = 1.1, int min_neighbors = 3,
    int *window_width = nullptr, const std::string & cascade_file = "haarcascade_frontalface_default.xml");

/* `rois` are `want`, whatever the order: the same rectangles with the same
 * neighbour counts, and each scale its width over `window_width`. */
::testing::AssertionResult rois_are_detections (const std::vector<FaceRoi> & rois, std::vector<Detection> want,
    int window_width);

}  // namespace cvtest
