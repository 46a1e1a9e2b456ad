/* cudaharris through GStreamer on the CPU backend (runs in CI): the corner
 * list of cv::goodFeaturesToTrack exactly, the normalized response of
 * cv::cornerHarris, the chessboard of left01.jpg, tiny frames, drawing,
 * messages, the meta, properties and caps. */
#include "../common/harness.h"
#include "../common/harris_ref.h"

#include "gstcvkeypointsmeta.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

using namespace cvtest;
using cudavision::Corner;
using cudavision::CornerDetectParams;
using cudavision::CornerMethod;

namespace {

CornerDetectParams
detect_params (CornerMethod m, int block, int aperture, double quality, double min_distance, int max_corners)
{
  CornerDetectParams p;
  p.corner.method = m;
  p.corner.block_size = block;
  p.corner.aperture = aperture;
  p.quality_level = quality;
  p.min_distance = min_distance;
  p.max_corners = max_corners;
  return p;
}

}  // namespace

TEST (HarrisCpu, BundledImagesAreGoodFeaturesToTrackExactly)
{
  const auto images = test_images ();
  ASSERT_GE (images.size (), 10u);
  for (const auto & path : images) {
    const cv::Mat g = load_gray (path);
    const CornerDetectParams p = detect_params (CornerMethod::Harris, 3, 3, 0.01, 10, 0);
    const HarrisRun r = run_harris_gray ("cudaharris backend=cpu", g);
    ASSERT_TRUE (r.ok) << path;
    ASSERT_TRUE (r.has_meta) << path;
    const auto ref = opencv_corners (g, p);
    EXPECT_GT (ref.size (), 0u) << path;
    EXPECT_EQ (diff_corner_lists (r.corners, ref), "") << path;
    /* passthrough: the frame itself */
    EXPECT_EQ (compare (r.out, g).differing, 0) << path;
  }
}

TEST (HarrisCpu, ParametersReachOpenCV)
{
  const CornerDetectParams cases[] = {
    detect_params (CornerMethod::ShiTomasi, 3, 3, 0.01, 10, 0),
    detect_params (CornerMethod::Harris, 2, 5, 0.05, 0, 0),
    detect_params (CornerMethod::ShiTomasi, 7, 7, 0.001, 4.5, 200),
    detect_params (CornerMethod::Harris, 5, 3, 0.1, 20, 10),
  };
  for (const char *name : { "building.jpg", "sudoku.png" }) {
    const cv::Mat g = load_gray (data_path (name));
    for (const auto & p : cases) {
      const std::string e = harris_element ("cpu", p);
      const HarrisRun r = run_harris_gray (e, g);
      ASSERT_TRUE (r.ok) << e;
      EXPECT_EQ (diff_corner_lists (r.corners, opencv_corners (g, p)), "") << name << " " << e;
    }
  }
  /* k reaches OpenCV too: a different k changes the scores */
  const cv::Mat g = load_gray (data_path ("building.jpg"));
  CornerDetectParams p = detect_params (CornerMethod::Harris, 3, 3, 0.01, 10, 0);
  p.corner.k = 0.15;
  const HarrisRun r = run_harris_gray (harris_element ("cpu", p), g);
  EXPECT_EQ (diff_corner_lists (r.corners, opencv_corners (g, p)), "");
  EXPECT_NE (diff_corner_lists (r.corners, opencv_corners (g, detect_params (CornerMethod::Harris, 3, 3, 0.01, 10, 0))), "");
}

/* Colour input: detection on cvtColor's luma, the colour frame out. */
TEST (HarrisCpu, ColourInputDetectsOnLuma)
{
  const cv::Mat rgb = load_rgb (data_path ("grace_hopper.jpg"));
  cv::Mat g;
  cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
  const auto ref = opencv_corners (g, detect_params (CornerMethod::Harris, 3, 3, 0.01, 10, 0));
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx }) {
    const HarrisRun r = run_harris_rgb ("cudaharris backend=cpu", rgb, f, f);
    ASSERT_TRUE (r.ok) << gst_video_format_to_string (f);
    EXPECT_EQ (diff_corner_lists (r.corners, ref), "") << gst_video_format_to_string (f);
    EXPECT_EQ (compare (r.out, packed_frame (rgb, f)).differing, 0) << "passthrough changed the frame";
  }
}

TEST (HarrisCpu, ResponseOutputIsNormalizedCornerHarris)
{
  for (const char *name : { "left01.jpg", "text.png", "astronaut.png" }) {
    const cv::Mat rgb = load_rgb (data_path (name));
    cv::Mat g;
    cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
    for (CornerMethod m : { CornerMethod::Harris, CornerMethod::ShiTomasi }) {
      cudavision::CornerParams p;
      p.method = m;
      const std::string e = std::string ("cudaharris backend=cpu output=response method=") +
          (m == CornerMethod::Harris ? "harris" : "shi-tomasi");
      /* GRAY8 in, and RGBA in with GRAY8 out */
      const HarrisRun a = run_harris_gray (e, g);
      const HarrisRun b = run_harris_rgb (e, rgb, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8);
      ASSERT_TRUE (a.ok && b.ok) << name;
      const cv::Mat want = opencv_normalized_response (g, p);
      EXPECT_GT (cv::countNonZero (want), 100) << name;
      EXPECT_EQ (compare (a.out, want).differing, 0) << name << " " << e;
      EXPECT_EQ (compare (b.out, want).differing, 0) << name << " " << e << " (RGBA in)";
      EXPECT_TRUE (a.has_meta);
    }
  }
}

/* The 54 inner corners of the chessboard (findChessboardCorners, refined)
 * are among the detections. Within 2.5 px, not 2: on an X junction the
 * 3x3-summed response peaks off the saddle point itself, and OpenCV's own
 * goodFeaturesToTrack lands 1.7 px from the refined corners on average,
 * 2.39 px at worst (40 of 54 within 2 px) with these settings. */
TEST (HarrisCpu, Left01ChessboardCornersFound)
{
  const cv::Mat g = load_gray (data_path ("left01.jpg"));
  const auto truth = left01_chessboard (g);
  ASSERT_EQ (truth.size (), 54u) << "findChessboardCorners failed on left01.jpg";
  for (const char *method : { "harris", "shi-tomasi" }) {
    const HarrisRun r = run_harris_gray (std::string ("cudaharris backend=cpu max-corners=0 quality-level=0.01 "
                                               "min-distance=10 method=") + method, g);
    ASSERT_TRUE (r.ok);
    EXPECT_EQ (matched (truth, r.corners, kChessboardRadius), 54) << method << ": " << r.corners.size () << " detections";
  }
  /* the test can fail: the 54 are not found among 5 corners */
  const HarrisRun few = run_harris_gray ("cudaharris backend=cpu max-corners=5", g);
  EXPECT_LT (matched (truth, few.corners, kChessboardRadius), 54);
}

TEST (HarrisCpu, TinyFrames)
{
  const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 2 }, { 5, 5 }, { 6, 7 } };
  for (const auto & s : sizes) {
    const cv::Mat rgb = random_rgb (s[0], s[1], 7 * s[0] + s[1]);
    cv::Mat g;
    cv::cvtColor (rgb, g, cv::COLOR_RGB2GRAY);
    for (const char *ap : { "3", "7" }) {
      const std::string e = std::string ("cudaharris backend=cpu corner-block-size=7 min-distance=1 aperture=") + ap;
      const HarrisRun r = run_harris_gray (e, g);
      ASSERT_TRUE (r.ok) << s[0] << "x" << s[1];
      CornerDetectParams p = detect_params (CornerMethod::Harris, 7, std::atoi (ap), 0.01, 1, 0);
      EXPECT_EQ (diff_corner_lists (r.corners, opencv_corners (g, p)), "") << s[0] << "x" << s[1];
      const HarrisRun resp = run_harris_gray (e + " output=response", g);
      ASSERT_TRUE (resp.ok);
      EXPECT_EQ (compare (resp.out, opencv_normalized_response (g, p.corner)).differing, 0) << s[0] << "x" << s[1];
    }
  }
}

/* Marks: red crosses at the corners on colour, nothing else changed. */
TEST (HarrisCpu, DrawMarksCornersInRed)
{
  const cv::Mat rgb = load_rgb (data_path ("left01.jpg"));
  const HarrisRun r = run_harris_rgb ("cudaharris backend=cpu draw=true max-corners=30", rgb, GST_VIDEO_FORMAT_BGRx,
      GST_VIDEO_FORMAT_BGRx);
  ASSERT_TRUE (r.ok);
  ASSERT_EQ (r.corners.size (), 30u);
  /* BGRx: red is byte 2 */
  const MarkCheck c = check_marks (r.out, packed_frame (rgb, GST_VIDEO_FORMAT_BGRx), r.corners, 2, 1, 0);
  EXPECT_EQ (c.not_red, 0);
  EXPECT_EQ (c.changed_outside, 0);
  EXPECT_GT (c.marker_pixels, 30 * 10);
}

TEST (HarrisCpu, MessagesCarryCountAndStrongest)
{
  const cv::Mat g = load_gray (data_path ("sudoku.png"));
  const HarrisRun quiet = run_harris_gray ("cudaharris backend=cpu", g);
  EXPECT_EQ (quiet.messages, 0);
  const HarrisRun r = run_harris_gray ("cudaharris backend=cpu post-messages=true", g);
  ASSERT_TRUE (r.ok);
  ASSERT_EQ (r.messages, 1);
  EXPECT_EQ (r.msg_count, r.corners.size ());
  ASSERT_GT (r.corners.size (), 50u);
  ASSERT_EQ (r.msg_corners.size (), 50u);
  const std::vector<Corner> first (r.corners.begin (), r.corners.begin () + 50);
  EXPECT_EQ (diff_corner_lists (r.msg_corners, first), "");
  for (size_t i = 1; i < r.corners.size (); i++)
    ASSERT_GE (r.corners[i - 1].score, r.corners[i].score) << "not strongest first at " << i;
}

TEST (HarrisCpu, MetaCopiesAndScales)
{
  GstBuffer *b = gst_buffer_new ();
  const GstCvKeypoint pts[] = { { 10, 20, 0.5f }, { 3, 4, 0.25f } };
  ASSERT_NE (gst_buffer_add_cv_keypoints_meta (b, pts, 2), nullptr);
  /* a second add replaces: one meta per buffer */
  gst_buffer_add_cv_keypoints_meta (b, pts, 1);
  guint n = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered (b, &state, GST_CV_KEYPOINTS_META_API_TYPE))
    n++;
  EXPECT_EQ (n, 1u);
  gst_buffer_add_cv_keypoints_meta (b, pts, 2);

  GstBuffer *c = gst_buffer_copy (b);
  GstCvKeypointsMeta *m = gst_buffer_get_cv_keypoints_meta (c);
  ASSERT_NE (m, nullptr);
  ASSERT_EQ (m->n, 2u);
  EXPECT_EQ (m->points[1].x, 3.f);
  EXPECT_EQ (m->points[0].score, 0.5f);

  GstBuffer *d = scaled_meta_buffer (b, (GstMeta *) gst_buffer_get_cv_keypoints_meta (b), { 100, 100 }, { 50, 200 });
  ASSERT_NE (d, nullptr) << "the keypoints meta refused the scale";
  m = gst_buffer_get_cv_keypoints_meta (d);
  ASSERT_NE (m, nullptr);
  EXPECT_FLOAT_EQ (m->points[0].x, 5.f);
  EXPECT_FLOAT_EQ (m->points[0].y, 40.f);
  gst_buffer_unref (b);
  gst_buffer_unref (c);
  gst_buffer_unref (d);
}

TEST (HarrisCpu, Properties)
{
  GstElement *e = gst_element_factory_make ("cudaharris", nullptr);
  ASSERT_NE (e, nullptr);
  gint method = 9, block = 0, aperture = 0, max_corners = -1, output = 9;
  gdouble k = 0, quality = 0, min_distance = 0;
  gboolean draw = TRUE, post = TRUE;
  g_object_get (e, "method", &method, "corner-block-size", &block, "aperture", &aperture, "k", &k, "quality-level",
      &quality, "min-distance", &min_distance, "max-corners", &max_corners, "output", &output, "draw", &draw,
      "post-messages", &post, nullptr);
  EXPECT_EQ (method, 0);
  EXPECT_EQ (block, 3);
  EXPECT_EQ (aperture, 3);
  EXPECT_DOUBLE_EQ (k, 0.04);
  EXPECT_DOUBLE_EQ (quality, 0.01);
  EXPECT_DOUBLE_EQ (min_distance, 10.0);
  EXPECT_EQ (max_corners, 0);
  EXPECT_EQ (output, 0);
  EXPECT_FALSE (draw);
  EXPECT_FALSE (post);
  /* an even aperture is refused with a warning; the old value stays */
  g_object_set (e, "aperture", 5, nullptr);
  g_object_set (e, "aperture", 4, nullptr);
  g_object_get (e, "aperture", &aperture, nullptr);
  EXPECT_EQ (aperture, 5);
  /* the base class's block-size is still the CUDA block shape */
  gchar *shape = nullptr;
  g_object_set (e, "block-size", "64x4", nullptr);
  g_object_get (e, "block-size", &shape, nullptr);
  EXPECT_STREQ (shape, "64x4");
  g_free (shape);
  gst_object_unref (e);
}

TEST (HarrisCpu, PipelinesAndCaps)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=5 pattern=checkers-8 ! video/x-raw,format=RGBA ! "
                              "cudaharris backend=cpu draw=true ! videoconvert ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  EXPECT_TRUE (r.warnings.empty ());
  /* response output negotiates GRAY8 from colour */
  r = run_pipeline ("videotestsrc num-buffers=3 ! video/x-raw,format=BGRx ! cudaharris backend=cpu output=response ! "
                    "video/x-raw,format=GRAY8 ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  /* formats outside the template are refused */
  r = run_pipeline ("videotestsrc num-buffers=2 ! video/x-raw,format=YUY2 ! cudaharris backend=cpu ! fakesink");
  EXPECT_FALSE (r.eos);
  EXPECT_FALSE (r.errors.empty ());
}
