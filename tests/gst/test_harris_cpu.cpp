/* cudaharris through GStreamer on the CPU backend (runs in CI): the corner
 * list of cv::goodFeaturesToTrack exactly, the normalized response of
 * cv::cornerHarris, the chessboard of left01.jpg, tiny frames, drawing,
 * messages, the meta, properties and caps; NV12 and I420 (odd sizes,
 * padded rows) detected on their own Y plane and 3-byte RGB on its luma,
 * the crosses in `color` checked byte by byte on every plane, and
 * renegotiation between formats mid-stream. */
#include "../common/harness.h"
#include "../common/harris_ref.h"
#include "../common/overlay_check.h"

#include "../../core/draw/corner_marker.h"
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

const cv::Mat &
picture (const char *name)
{
  static const cv::Mat left01 = load_rgb (data_path ("left01.jpg")), building = load_rgb (data_path ("building.jpg"));
  return std::string (name) == "left01.jpg" ? left01 : building;
}

/* NV12 and I420 frames: two pictures, an odd size (chroma planes of
 * (w + 1) / 2 samples; the last chroma row and column cover one luma row
 * or column), and padded rows (odd strides) that the element must read
 * through the video meta. */
std::vector<FrameCase>
yuv_cases ()
{
  const cv::Mat odd = picture ("building.jpg") (cv::Rect (101, 57, 641, 479)).clone ();
  std::vector<FrameCase> cases;
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    cases.push_back ({ "left01", picture ("left01.jpg"), f });
    cases.push_back ({ "building", picture ("building.jpg"), f });
    cases.push_back ({ "building crop", odd, f });
    cases.push_back ({ "building crop", odd, f, 3 });
  }
  cases.push_back ({ "left01", picture ("left01.jpg"), GST_VIDEO_FORMAT_NV12, 5 });
  return cases;
}

/* One frame of `c` through "cudaharris backend=cpu `props`": the meta is
 * cv::goodFeaturesToTrack (the element's defaults) on the luma of the
 * input's own bytes, and every plane of the output is the input's but for
 * exactly the crosses at those corners, painted in `argb` (none when
 * `drawn` is false). */
void
check_corners_and_marks (const std::string & props, const FrameCase & c, guint32 argb, bool drawn)
{
  SCOPED_TRACE (describe (c) + ": " + props);
  const CaseInput in = case_input (c);
  const std::vector<Corner> ref = opencv_corners (in.luma, CornerDetectParams ());
  /* the frames have corners: a list or a drawing that lost them shows */
  EXPECT_GT (ref.size (), 50u);
  const HarrisRun r = run_harris ("cudaharris backend=cpu " + props, in.caps, in.caps, in.buffer);
  ASSERT_TRUE (r.ok);
  ASSERT_TRUE (r.has_meta);
  EXPECT_EQ (diff_corner_lists (r.corners, ref), "");
  EXPECT_TRUE (overlay_matches (in.planes, r.planes, &in.info, argb,
      drawn ? corner_mark_pixels (ref, in.info.width, in.info.height) : std::vector<cv::Point> ()));
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

/* ------------------------------------------- NV12, I420, RGB, BGR, colours */

/* The cross corner_mark_pixels lists (the tests' statement of what
 * draw=true paints) is cv::drawMarker's 9-pixel, 1-pixel-wide cross,
 * clipped at every edge. */
TEST (HarrisCpu, MarkPixelsAreANinePixelCross)
{
  const int w = 40, h = 30;
  const std::vector<Corner> corners = { { 10, 10, 1 }, { 0, 0, 1 }, { 39, 29, 1 }, { 2, 27, 1 }, { 37, 1, 1 } };
  cv::Mat want (h, w, CV_8UC1, cv::Scalar (0));
  for (const Corner & c : corners)
    cv::drawMarker (want, cv::Point ((int) c.x, (int) c.y), 255, cv::MARKER_CROSS, 9, 1, cv::LINE_4);
  cv::Mat got (h, w, CV_8UC1, cv::Scalar (0));
  size_t listed = 0;
  for (const Corner & c : corners) {
    const auto px = corner_mark_pixels ({ c }, w, h);
    for (const cv::Point & p : px) {
      /* each pixel once a cross */
      EXPECT_EQ (got.at<uint8_t> (p), 0) << "(" << p.x << ", " << p.y << ") twice";
      got.at<uint8_t> (p) = 255;
    }
    listed += px.size ();
  }
  EXPECT_EQ (cv::countNonZero (got != want), 0);
  /* the crosses do not meet: every pixel listed once */
  EXPECT_EQ (listed, (size_t) cv::countNonZero (want));
  EXPECT_EQ ((size_t) cudavision::kCornerMarkerPixels, 17u);
}

/* NV12 and I420: the corners of the Y plane as it lies, the chroma
 * carried through, the crosses in `color` (red by default) on the luma
 * sample and the chroma sample above each of their pixels; draw=false
 * leaves every plane as it came. */
TEST (HarrisCpu, YuvFramesAreDetectedOnTheirYPlane)
{
  for (const FrameCase & c : yuv_cases ()) {
    check_corners_and_marks ("draw=true", c, cudavision::kCornerMarkerColor, true);
    check_corners_and_marks ("draw=true color=0xff20c0ff", c, 0xff20c0ffu, true);
    check_corners_and_marks ("draw=false color=0xff20c0ff", c, 0xff20c0ffu, false);
  }
  /* The colour's YUV bytes, independent of gstcvoverlay: red and green in
   * BT.601 limited range, what caps without colorimetry mean at these
   * sizes. overlay_matches takes its bytes from the element's code. */
  const GstVideoInfo info = caps_info (caps_string (GST_VIDEO_FORMAT_NV12, 640, 480));
  EXPECT_EQ (overlay_color_bytes (&info, 0xffff0000u), (std::vector<uint8_t> { 81, 90, 240 }));
  EXPECT_EQ (overlay_color_bytes (&info, 0xff00ff00u), (std::vector<uint8_t> { 145, 54, 34 }));
}

/* output=response on NV12 and I420: GRAY8, the normalized response of
 * the Y plane; with draw=true white crosses on it. */
TEST (HarrisCpu, YuvResponseIsTheYPlanes)
{
  for (const FrameCase & c : yuv_cases ()) {
    SCOPED_TRACE (describe (c));
    const CaseInput in = case_input (c);
    const std::string gray_caps = caps_string (GST_VIDEO_FORMAT_GRAY8, c.rgb.cols, c.rgb.rows);
    const GstVideoInfo gray_info = caps_info (gray_caps);
    const cv::Mat want = opencv_normalized_response (in.luma, cudavision::CornerParams ());
    EXPECT_GT (cv::countNonZero (want), 100);
    const HarrisRun r = run_harris ("cudaharris backend=cpu output=response", in.caps, gray_caps,
        gst_buffer_ref (in.buffer));
    ASSERT_TRUE (r.ok);
    ASSERT_EQ (r.planes.size (), 1u);
    EXPECT_EQ (compare (r.planes[0], want).differing, 0);
    EXPECT_EQ (diff_corner_lists (r.corners, opencv_corners (in.luma, CornerDetectParams ())), "");
    const HarrisRun d = run_harris ("cudaharris backend=cpu output=response draw=true color=0xff20c0ff", in.caps,
        gray_caps, in.buffer);
    ASSERT_TRUE (d.ok);
    EXPECT_TRUE (overlay_matches ({ want }, d.planes, &gray_info, 0xff20c0ffu,
        corner_mark_pixels (d.corners, in.info.width, in.info.height)));
  }
}

/* Every packed RGB layout, 3-byte RGB and BGR among them: the corners of
 * cvtColor's luma; the crosses in `color`, its alpha in an alpha byte (a
 * translucent yellow), padding bytes as they came. */
TEST (HarrisCpu, PackedRgbLayoutsAndColour)
{
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR };
  const cv::Mat odd = picture ("building.jpg") (cv::Rect (101, 57, 641, 479)).clone ();
  for (GstVideoFormat f : formats) {
    check_corners_and_marks ("draw=true", { "left01", picture ("left01.jpg"), f }, cudavision::kCornerMarkerColor, true);
    check_corners_and_marks ("draw=true color=0x80ffff00", { "left01", picture ("left01.jpg"), f }, 0x80ffff00u, true);
    check_corners_and_marks ("draw=true color=0x80ffff00", { "building crop", odd, f, 3 }, 0x80ffff00u, true);
  }
  /* the bytes themselves, apart from overlay_matches: RGBA takes R G B A =
   * ff ff 00 80 at a corner, RGB ff ff 00, BGRx 00 ff ff and its padding */
  const cv::Mat & rgb = picture ("left01.jpg");
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx }) {
    const std::string caps = caps_string (f, rgb.cols, rgb.rows);
    GstBuffer *in = rgb_to_buffer (rgb, f);
    const cv::Mat orig = caps_planes (in, caps)[0];
    const HarrisRun r = run_harris ("cudaharris backend=cpu draw=true color=0x80ffff00", caps, caps, in);
    ASSERT_TRUE (r.ok);
    ASSERT_FALSE (r.corners.empty ());
    const cv::Point at ((int) r.corners[0].x, (int) r.corners[0].y);
    const uint8_t *px = r.planes[0].ptr<uint8_t> (at.y) + at.x * r.planes[0].elemSize ();
    const uint8_t *was = orig.ptr<uint8_t> (at.y) + at.x * orig.elemSize ();
    const std::vector<uint8_t> got (px, px + r.planes[0].elemSize ());
    if (f == GST_VIDEO_FORMAT_RGBA) {
      EXPECT_EQ (got, (std::vector<uint8_t> { 0xff, 0xff, 0x00, 0x80 }));
    } else if (f == GST_VIDEO_FORMAT_RGB) {
      EXPECT_EQ (got, (std::vector<uint8_t> { 0xff, 0xff, 0x00 }));
    } else {
      EXPECT_EQ (got, (std::vector<uint8_t> { 0x00, 0xff, 0xff, was[3] }));
    }
  }
}

/* New caps mid-stream, RGBA -> NV12 -> RGBA at other sizes: each frame is
 * detected and drawn as its own format says. */
TEST (HarrisCpu, RenegotiatesBetweenRgbaAndNv12)
{
  struct Step {
    const char *name;
    GstVideoFormat format;
  };
  const Step steps[] = { { "left01.jpg", GST_VIDEO_FORMAT_RGBA }, { "building.jpg", GST_VIDEO_FORMAT_NV12 },
    { "building.jpg", GST_VIDEO_FORMAT_RGBA }, { "left01.jpg", GST_VIDEO_FORMAT_NV12 },
    { "left01.jpg", GST_VIDEO_FORMAT_RGBA } };
  const guint32 argb = 0xff20c0ffu;
  GstHarness *h = gst_harness_new_parse ("cudaharris backend=cpu draw=true color=0xff20c0ff");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=(string){ RGBA, NV12 }");
  for (size_t i = 0; i < G_N_ELEMENTS (steps); i++) {
    const cv::Mat & rgb = picture (steps[i].name);
    const std::string caps = caps_string (steps[i].format, rgb.cols, rgb.rows);
    SCOPED_TRACE ("frame " + std::to_string (i) + ": " + caps);
    gst_harness_set_src_caps_str (h, caps.c_str ());
    GstBuffer *in = rgb_to_buffer (rgb, steps[i].format);
    const GstVideoInfo info = caps_info (caps);
    const std::vector<cv::Mat> in_planes = caps_planes (in, caps);
    const std::vector<Corner> ref = opencv_corners (frame_luma (in_planes, &info), CornerDetectParams ());
    GstBuffer *out = gst_harness_push_and_pull (h, in);
    if (!out) {
      ADD_FAILURE () << "no output";
      break;
    }
    GstCaps *now = gst_pad_get_current_caps (h->sinkpad);
    GstCaps *want = gst_caps_from_string (caps.c_str ());
    ASSERT_NE (now, nullptr);
    EXPECT_TRUE (gst_caps_is_equal (now, want)) << "output caps " << gst_caps_to_string (now);
    gst_caps_unref (now);
    gst_caps_unref (want);
    EXPECT_EQ (diff_corner_lists (buffer_corners (out), ref), "");
    EXPECT_TRUE (overlay_matches (in_planes, caps_planes (out, caps), &info, argb,
        corner_mark_pixels (ref, info.width, info.height)));
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}
