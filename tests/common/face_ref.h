/* cudavision tests — references for cudafacedetect, shared by the CPU and
 * GPU suites: OpenCV's detections, the LFW known-position mosaic, and one
 * frame through the element with its metas and messages. */
#pragma once

#include "video_frames.h"

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace cvtest {

/* Debian's opencv-data cascades (an absolute path: that file). */
std::string haar_path (const std::string & file);
bool have_haar_cascades ();
constexpr const char *kDefaultCascade = "haarcascade_frontalface_default.xml";
/* In a test: skipped, with the reason, without the cascades. */
#define REQUIRE_CASCADES()                                                  \
  do {                                                                      \
    if (!::cvtest::have_haar_cascades ())                                   \
      GTEST_SKIP () << "opencv-data's Haar cascades are not installed";     \
  } while (0)

/* cv::CascadeClassifier::detectMultiScale on a GRAY8 image (flags 0). */
std::vector<cv::Rect> opencv_faces (const cv::Mat & gray, const std::string & cascade_file = kDefaultCascade,
    double scale = 1.1, int min_neighbors = 3, int min_size = 0, int max_size = 0);

double iou (const cv::Rect & a, const cv::Rect & b);
std::string rects_str (const std::vector<cv::Rect> & r);
/* The same rectangles, whatever the order. */
bool same_rects (std::vector<cv::Rect> a, std::vector<cv::Rect> b);

/* Each rectangle of `ref` has one of `got` with IoU >= min_iou, and the
 * counts agree; the message lists both sides. */
::testing::AssertionResult faces_match (const std::vector<cv::Rect> & got, const std::vector<cv::Rect> & ref,
    double min_iou);

/* tests/data/faces/face_tiles.png (200 tiles of LFW crops, 100 of them
 * faces, built by tests/data/make_face_tiles.py) and its ground truth. */
struct FaceTiles {
  cv::Mat rgb;
  std::vector<cv::Rect> truth;
  int tiles = 0;
};
FaceTiles load_face_tiles ();

/* Detections against ground truth: each truth box matched by the best
 * unused detection with IoU >= min_iou; the rest are false positives. */
struct FaceScore {
  int hits = 0;
  int false_positives = 0;
  double worst_iou = 1.0;  /* of the matches */
};
FaceScore score_faces (const std::vector<cv::Rect> & got, const std::vector<cv::Rect> & truth, double min_iou);

/* One frame through a cudafacedetect description with GstHarness. */
struct FaceRun {
  bool ok = false;                 /* an output buffer came */
  cv::Mat out;                     /* plane 0 of the output */
  std::vector<cv::Mat> planes;     /* every plane of the output (buffer_planes) */
  std::vector<cv::Rect> metas;     /* GstVideoRegionOfInterestMeta of type "face" */
  int other_metas = 0;             /* region metas of other types */
  int messages = 0;                /* "facedetect" element messages */
  std::vector<cv::Rect> msg_faces; /* of the last message */
  bool msg_timing = false;         /* the last message had the four timing fields */
  guint64 msg_timestamp = GST_CLOCK_TIME_NONE;
};
FaceRun run_face (const std::string & element, const std::string & in_caps, const std::string & out_caps,
    GstBuffer * in);
/* An RGB image in as format `f` (rgb_to_buffer), or a GRAY8 frame. */
FaceRun run_face_rgb (const std::string & element, const cv::Mat & rgb, GstVideoFormat f,
    const char *out_feature = nullptr);
FaceRun run_face_gray (const std::string & element, const cv::Mat & gray, const char *out_feature = nullptr);

/* The GstVideoRegionOfInterestMeta of type "face" on a buffer, in order;
 * `others` (may be null) gets the count of region metas of other types. */
std::vector<cv::Rect> face_metas (GstBuffer * buf, int *others = nullptr);

/* Every pixel of the boxes the element draws for `faces` on a frame of
 * `width` x `height` (face_draw.h's borders), in order, repeats kept:
 * what overlay_matches expects painted. */
std::vector<cv::Point> box_pixels (const std::vector<cv::Rect> & faces, int width, int height);

}  // namespace cvtest
