/* cudaflow without a GPU (runs in CI):
 *  - the GPU path's arithmetic (cuda/flow_math.h) against OpenCV: its
 *    pyramids and Scharr derivatives bit for bit against
 *    cv::buildOpticalFlowPyramid (also through the pyramid kernels' own
 *    per-thread code), its tracker (run on the host on OpenCV's pyramids)
 *    against cv::calcOpticalFlowPyrLK, and the tracker's warp layout, lane
 *    by lane, against that host model;
 *  - the element on backend=cpu: OpenCV's results exactly (basketball pair,
 *    consecutive frames of realshort.mp4, the grid of the dense mode),
 *    synthetic sub-pixel translations against the true motion, colour
 *    input, drawing, flow colours, keypoints from upstream, resets on
 *    DISCONT / flush / segment / timestamp gaps / new caps, messages,
 *    properties and caps;
 *  - NV12 and I420 (odd sizes, padded rows) tracked on their own Y plane,
 *    every packed RGB layout on its luma, and draw=true's lines in `color`
 *    with the sparse crosses in `marker-color` on top, checked byte by
 *    byte on every plane; renegotiation between formats mid-stream. */
#include "../common/flow_ref.h"
#include "../common/harness.h"
#include "../common/harris_ref.h"
#include "../common/overlay_check.h"

#include "../../core/draw/flow_draw.h"
#include "../../core/draw/corner_marker.h"
#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <cmath>

using namespace cvtest;
using cudavision::FlowParams;
using cudavision::FlowVector;

namespace {

/* The element's sparse behaviour, written out: track with OpenCV, drop
 * the lost points, detect again on the interval, when none or fewer than
 * half of the detected ones are left. */
std::vector<std::vector<FlowVector>>
reference_sparse (const std::vector<cv::Mat> & frames, const FlowParams & p, int max_corners, int interval)
{
  std::vector<std::vector<FlowVector>> out (frames.size ());
  std::vector<cv::Point2f> pts = opencv_features (frames[0], max_corners);
  size_t detected = pts.size ();
  int since = 0;
  for (size_t k = 1; k < frames.size (); k++) {
    out[k] = clipped (opencv_lk (frames[k - 1], frames[k], pts, p), frames[k].cols, frames[k].rows);
    since++;
    pts.clear ();
    for (const FlowVector & v : out[k])
      if (v.status)
        pts.emplace_back (v.x, v.y);
    if (pts.empty () || (interval > 0 && since >= interval) || pts.size () * 2 < detected) {
      pts = opencv_features (frames[k], max_corners);
      detected = pts.size ();
      since = 0;
    }
  }
  return out;
}

/* Vectors whose start is at least `margin` px inside the frame. */
std::vector<FlowVector>
interior (const std::vector<FlowVector> & v, int w, int h, float margin)
{
  std::vector<FlowVector> out;
  for (const FlowVector & f : v)
    if (f.prev_x >= margin && f.prev_y >= margin && f.prev_x < w - margin && f.prev_y < h - margin)
      out.push_back (f);
  return out;
}

/* Colour of a flow vector by OpenCV's float HSV conversion, independent of
 * flow_draw.h: H = direction in degrees, S = magnitude / max, V = 1. */
cv::Vec3b
reference_color (double dx, double dy, double max_flow)
{
  const double mag = std::hypot (dx, dy);
  double deg = mag > 0 ? std::atan2 (dy, dx) * 180.0 / CV_PI : 0;
  if (deg < 0)
    deg += 360;
  cv::Mat hsv (1, 1, CV_32FC3, cv::Scalar ((float) deg, (float) std::min (1.0, mag / max_flow), 1.f)), rgb;
  cv::cvtColor (hsv, rgb, cv::COLOR_HSV2RGB);
  const cv::Vec3f c = rgb.at<cv::Vec3f> (0, 0);
  return cv::Vec3b (cv::saturate_cast<uchar> (c[0] * 255), cv::saturate_cast<uchar> (c[1] * 255),
      cv::saturate_cast<uchar> (c[2] * 255));
}

const cv::Mat &
basketball (int i)
{
  static const cv::Mat a = load_gray (data_path ("basketball1.png")), b = load_gray (data_path ("basketball2.png"));
  return i == 1 ? a : b;
}

const cv::Mat &
basketball_rgb (int i)
{
  static const cv::Mat a = load_rgb (data_path ("basketball1.png")), b = load_rgb (data_path ("basketball2.png"));
  return i == 1 ? a : b;
}

/* The vectors cudaflow must give on each frame of `luma` with its
 * defaults: sparse mode's behaviour (reference_sparse), or the grid. */
std::vector<std::vector<FlowVector>>
reference_flow (const std::vector<cv::Mat> & luma, bool dense, int interval = 10, int step = 8)
{
  if (!dense)
    return reference_sparse (luma, FlowParams (), 500, interval);
  std::vector<std::vector<FlowVector>> out (luma.size ());
  for (size_t k = 1; k < luma.size (); k++)
    out[k] = clipped (opencv_lk (luma[k - 1], luma[k], grid_points (luma[k].cols, luma[k].rows, step), FlowParams ()),
        luma[k].cols, luma[k].rows);
  return out;
}

/* `s` through "cudaflow backend=cpu `props`" (mode=dense with `dense`):
 * every frame's vectors are OpenCV's on the lumas of the frames' own
 * bytes, and every plane of every output is the input's with (`drawn`)
 * the lines of those vectors painted in `line`, then in sparse mode their
 * crosses in `marker` on top. */
void
check_flow_and_drawing (const std::string & props, const FrameSequence & s, bool dense, guint32 line, guint32 marker,
    bool drawn, int interval = 10)
{
  SCOPED_TRACE (s.what + (dense ? " dense: " : " sparse: ") + props);
  const FlowRun r = run_flow ("cudaflow backend=cpu " + props + (dense ? " mode=dense" : ""), s.caps, s.caps,
      s.inputs ());
  ASSERT_TRUE (r.ok);
  ASSERT_EQ (r.frames.size (), s.rgb.size ());
  const auto ref = reference_flow (s.luma, dense, interval);
  size_t tracked = 0;
  for (size_t k = 0; k < ref.size (); k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_TRUE (r.frames[k].has_meta);
    EXPECT_EQ (diff_vectors (r.frames[k].vectors, ref[k]), "");
    const std::vector<cv::Mat> want =
        drawn ? expected_flow_drawing (s.planes[k], &s.info, ref[k], line, marker, !dense) : s.planes[k];
    EXPECT_EQ (diff_planes (r.frames[k].planes, want), "");
    for (const FlowVector & v : ref[k])
      tracked += v.status;
  }
  /* there is motion to draw: a drawing that lost it shows */
  EXPECT_GT (tracked, 100 * (ref.size () - 1));
}

}  // namespace

/* ------------------------------------------------ the GPU path's arithmetic */

TEST (FlowMath, PyramidLevelsAreOpenCVs)
{
  const int sizes[][2] = { { 640, 480 }, { 1920, 1080 }, { 43, 43 }, { 44, 90 }, { 21, 21 }, { 22, 100 }, { 1, 1 } };
  for (const auto & s : sizes) {
    for (int window : { 3, 7, 21, 32 }) {
      for (int max_level : { 0, 1, 3, 8 }) {
        std::vector<cv::Mat> pyr;
        const int top = cv::buildOpticalFlowPyramid (cv::Mat (s[1], s[0], CV_8UC1, cv::Scalar (0)), pyr,
            cv::Size (window, window), max_level, false);
        EXPECT_EQ (cudavision::flow_pyramid_levels (s[0], s[1], window, max_level), top)
            << s[0] << "x" << s[1] << " window " << window << " max-level " << max_level;
      }
    }
  }
}

TEST (FlowMath, PyramidAndScharrBitExact)
{
  std::vector<cv::Mat> images = { basketball (1), load_gray (data_path ("astronaut.png")) };
  /* odd and tiny sizes: reflections at every level and at both ends */
  images.push_back (images[1] (cv::Rect (3, 5, 301, 177)).clone ());
  for (const auto & s : std::vector<cv::Size> { { 1, 1 }, { 2, 3 }, { 5, 4 }, { 31, 23 } })
    images.push_back (images[1] (cv::Rect (100, 100, s.width, s.height)).clone ());
  for (const cv::Mat & g : images) {
    for (int window : { 5, 21 }) {
      const CvPyramid ref = opencv_pyramid (g, window, 5), got = model_pyramid (g, window, 5);
      ASSERT_EQ (got.images.size (), ref.images.size ()) << g.cols << "x" << g.rows;
      for (size_t l = 0; l < ref.images.size (); l++) {
        EXPECT_EQ (compare (got.images[l], ref.images[l]).differing, 0) << g.cols << "x" << g.rows << " level " << l;
        EXPECT_EQ (compare (got.derivs[l], ref.derivs[l]).differing, 0)
            << g.cols << "x" << g.rows << " derivatives of level " << l;
      }
    }
  }
}

/* The pyramid kernels' per-thread code (4 pixels from word loads, edges
 * through reflection), run on the host over every thread: the same levels
 * and derivatives, for widths that leave 0 to 3 pixels in the last word,
 * levels narrower than the words, and a 256-byte pitch with no slack. */
TEST (FlowMath, PyramidKernelsThreadCodeBitExact)
{
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  std::vector<cv::Mat> images = { basketball (1), astro (cv::Rect (3, 5, 301, 177)).clone () };
  for (const auto & s : std::vector<cv::Size> { { 1, 1 }, { 2, 3 }, { 3, 1 }, { 5, 4 }, { 7, 9 }, { 8, 8 }, { 13, 6 },
           { 16, 17 }, { 31, 23 }, { 45, 44 }, { 257, 33 } })
    images.push_back (astro (cv::Rect (100, 100, s.width, s.height)).clone ());
  for (const cv::Mat & g : images) {
    for (int window : { 5, 21 }) {
      const CvPyramid ref = opencv_pyramid (g, window, 5), got = model_pyramid4 (g, window, 5);
      ASSERT_EQ (got.images.size (), ref.images.size ()) << g.cols << "x" << g.rows;
      for (size_t l = 0; l < ref.images.size (); l++) {
        EXPECT_EQ (compare (got.images[l], ref.images[l]).differing, 0) << g.cols << "x" << g.rows << " level " << l;
        EXPECT_EQ (compare (got.derivs[l], ref.derivs[l]).differing, 0)
            << g.cols << "x" << g.rows << " derivatives of level " << l;
      }
    }
  }
}

/* The tracker's warp layout (runs of 4 samples a lane, word loads, dp2a,
 * the constant part of the mismatch sums taken out), each lane's code run
 * on the host: the host model's points bit for bit, for windows that give
 * every segments-per-lane count (1, 2, 4, 8), partial runs at the window's
 * right edge, and windows over the level's borders. */
TEST (FlowMath, TrackerWarpLayoutIsTheHostModel)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  std::vector<cv::Point2f> corners = opencv_features (b1, 400, 0.001, 5);
  corners.insert (corners.end (), { { -3.f, 10.f }, { -21.f, 5.f }, { -25.f, 30.f }, { 650.f, 470.f },
      { 639.5f, 479.5f }, { 0.f, 0.f }, { 639.f, 479.f }, { 1.5f, 478.f } });
  const cv::Mat moved = shifted (astro, 2.25, -1.5);
  /* under the sanitizers every 32nd pixel: windows over every border still */
  const auto grid = grid_points (astro.cols, astro.rows, sanitizer_pass () ? 32 : 16);
  const cv::Mat t1 = astro (cv::Rect (200, 200, 13, 9)).clone (), t2 = astro (cv::Rect (201, 199, 13, 9)).clone ();
  for (const FlowParams & p : { FlowParams (), flow_params (4, 3, 30, 0.01, 1e-4), flow_params (7, 5, 10, 0.001, 1e-3),
           flow_params (11, 3, 30, 0.01, 1e-4), flow_params (16, 3, 30, 0.01, 1e-4), flow_params (17, 2, 30, 0.01, 1e-4),
           flow_params (25, 3, 30, 0.01, 1e-4), flow_params (32, 2, 100, 0, 0), flow_params (3, 1, 5, 0.5, 1e-4) }) {
    const std::string what = flow_element ("-", p);
    EXPECT_EQ (diff_vectors (lane_model_lk (b1, b2, corners, p), model_lk (b1, b2, corners, p)), "")
        << "basketball " << what;
    EXPECT_EQ (diff_vectors (lane_model_lk (astro, moved, grid, p), model_lk (astro, moved, grid, p)), "")
        << "astronaut grid " << what;
    EXPECT_EQ (diff_vectors (lane_model_lk (t1, t2, grid_points (13, 9, 1), p), model_lk (t1, t2, grid_points (13, 9, 1), p)),
        "") << "13x9 " << what;
  }
}

/* The tracker the kernel runs, on OpenCV's pyramids: OpenCV's points up to
 * its float sums. The bound is far below the GPU tests' 0.1 px, so a
 * misread rule (borders, stopping, status) shows. */
TEST (FlowMath, TrackerIsCalcOpticalFlowPyrLK)
{
  struct Case {
    const char *what;
    cv::Mat prev, next;
    std::vector<cv::Point2f> pts;
  };
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  std::vector<Case> cases = {
    { "basketball corners", b1, b2, opencv_features (b1, 1000, 0.001, 5) },
    /* under the sanitizers a grid of half the rows and columns */
    { "basketball grid (windows over every edge)", b1, b2,
        grid_points (b1.cols, b1.rows, sanitizer_pass () ? 16 : 8) },
    { "astronaut shifted (3.25, -1.5)", astro, shifted (astro, 3.25, -1.5), opencv_features (astro, 500) },
    { "astronaut rotated 2 degrees", astro, rotated (astro, 2), opencv_features (astro, 500) },
    { "tiny 9x7", astro (cv::Rect (200, 200, 9, 7)).clone (), astro (cv::Rect (201, 200, 9, 7)).clone (),
        grid_points (9, 7, 2) },
  };
  /* points off the frame and beyond the window border */
  cases[0].pts.insert (cases[0].pts.end (), { { -3.f, 10.f }, { -21.f, 5.f }, { -25.f, 30.f }, { 650.f, 470.f },
      { 639.5f, 479.5f }, { 100.25f, -15.75f } });
  const FlowParams params[] = {
    flow_params (21, 3, 30, 0.01, 1e-4),
    flow_params (7, 5, 10, 0.001, 1e-3),
    flow_params (15, 0, 30, 0.01, 1e-4),
    flow_params (32, 2, 100, 0.0, 0.0),
    flow_params (3, 1, 5, 0.5, 1e-4),
  };
  for (const Case & c : cases) {
    for (const FlowParams & p : params) {
      const FlowCompare r = compare_flow (model_lk (c.prev, c.next, c.pts, p), opencv_lk (c.prev, c.next, c.pts, p));
      const std::string what = std::string (c.what) + " " + flow_element ("-", p) + ": " + r.str ();
      EXPECT_GE (r.agreement (), 0.995) << what;
      EXPECT_LE (r.median, 1e-4) << what;
      EXPECT_LE (r.p90, 1e-3) << what;
    }
  }
}

TEST (FlowMath, GridCoversTheFrame)
{
  /* 640x480, step 8: 80x60 cells centred on 3.5 + 8k; 10x7, step 4: the
   * edge cells are narrower */
  EXPECT_EQ (grid_points (640, 480, 8).size (), 80u * 60u);
  const auto g = grid_points (10, 7, 4);
  ASSERT_EQ (g.size (), 3u * 2u);
  EXPECT_EQ (g[0], cv::Point2f (1.5f, 1.5f));
  EXPECT_EQ (g[2], cv::Point2f (8.5f, 1.5f));
  EXPECT_EQ (g[5], cv::Point2f (8.5f, 5.f));
}

/* ------------------------------------------------------------ the element */

TEST (FlowCpu, BasketballIsCalcOpticalFlowPyrLK)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const FlowParams defaults;
  const FlowRun r = run_flow_gray ("cudaflow backend=cpu", { b1, b2 });
  ASSERT_TRUE (r.ok);
  ASSERT_EQ (r.frames.size (), 2u);
  /* no previous frame: an empty meta */
  EXPECT_TRUE (r.frames[0].has_meta);
  EXPECT_TRUE (r.frames[0].vectors.empty ());
  ASSERT_TRUE (r.frames[1].has_meta);
  const auto ref = clipped (opencv_lk (b1, b2, opencv_features (b1, 500), defaults), b1.cols, b1.rows);
  EXPECT_GT (ref.size (), 200u);
  EXPECT_EQ (diff_vectors (r.frames[1].vectors, ref), "");
  EXPECT_EQ (r.frames[1].grid_step, 0u);
  /* passthrough: the frames themselves */
  EXPECT_EQ (compare (r.frames[1].out, b2).differing, 0);

  /* every tracking parameter reaches OpenCV */
  for (const FlowParams & p : { flow_params (9, 1, 5, 0.1, 1e-3), flow_params (31, 5, 50, 0.001, 1e-5) }) {
    const FlowRun q = run_flow_gray (flow_element ("cpu", p) + " max-corners=200 quality-level=0.02 min-distance=7",
        { b1, b2 });
    ASSERT_TRUE (q.ok);
    const auto want = clipped (opencv_lk (b1, b2, opencv_features (b1, 200, 0.02, 7), p), b1.cols, b1.rows);
    EXPECT_EQ (diff_vectors (q.frames[1].vectors, want), "") << flow_element ("cpu", p);
    EXPECT_NE (diff_vectors (q.frames[1].vectors, ref), "");
  }
}

TEST (FlowCpu, DenseIsTheSameLucasKanadeOnAGrid)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  for (int step : { 8, 13 }) {
    const FlowRun r = run_flow_gray ("cudaflow backend=cpu mode=dense grid-step=" + std::to_string (step), { b1, b2 });
    ASSERT_TRUE (r.ok);
    const auto ref = clipped (opencv_lk (b1, b2, grid_points (b1.cols, b1.rows, step), FlowParams ()), b1.cols, b1.rows);
    EXPECT_EQ (diff_vectors (r.frames[1].vectors, ref), "") << "step " << step;
    EXPECT_EQ (r.frames[1].grid_step, (unsigned) step);
    EXPECT_EQ (r.frames[1].grid_cols * r.frames[1].grid_rows, ref.size ());
    EXPECT_EQ (r.frames[1].grid_cols, (unsigned) (b1.cols + step - 1) / step);
  }
}

/* Consecutive video frames, decoded by GStreamer (the CPU machine has an
 * H.264 decoder): every frame's vectors are the reference's, through
 * re-detections on the interval and when tracks run low. */
TEST (FlowCpu, RealshortFramesFollowOpenCV)
{
  const std::vector<cv::Mat> frames = realshort_gray (36);
  if (frames.size () < 2)
    GTEST_SKIP () << "realshort.mp4 cannot be decoded here (no avdec_h264)";
  for (int interval : { 10, 3, 0 }) {
    const FlowRun r = run_flow_gray ("cudaflow backend=cpu redetect-interval=" + std::to_string (interval), frames);
    ASSERT_TRUE (r.ok);
    ASSERT_EQ (r.frames.size (), frames.size ());
    const auto ref = reference_sparse (frames, FlowParams (), 500, interval);
    size_t tracked = 0;
    for (size_t k = 0; k < frames.size (); k++) {
      EXPECT_EQ (diff_vectors (r.frames[k].vectors, ref[k]), "") << "interval " << interval << " frame " << k;
      for (const auto & v : ref[k])
        tracked += v.status;
    }
    EXPECT_GT (tracked, 50 * (frames.size () - 1)) << "interval " << interval;
  }
}

/* Known sub-pixel translations of real images (warpAffine, INTER_LINEAR):
 * the median error against the true motion, away from the reflected
 * borders. Measured on the CPU machine: sparse 0.003..0.033 px, dense
 * 0.008..0.061 px. */
TEST (FlowCpu, SubPixelTranslations)
{
  const double shifts[][2] = { { 0.5, 0 }, { 0, -0.75 }, { 1.25, 0.5 }, { -2.5, 3.75 }, { 5.0, -4.25 }, { 7.5, 6.5 },
    { -10, 0.25 }, { 0.03125, 9.96875 } };
  /* building.jpg, the largest, not under the sanitizers */
  for (const char *name : { "basketball1.png", "astronaut.png", "building.jpg" }) {
    if (sanitizer_pass () && std::string (name) == "building.jpg")
      continue;
    const cv::Mat g = load_gray (data_path (name));
    for (const auto & s : shifts) {
      for (const char *mode : { "sparse", "dense" }) {
        const FlowRun r = run_flow_gray (std::string ("cudaflow backend=cpu mode=") + mode, { g, shifted (g, s[0], s[1]) });
        ASSERT_TRUE (r.ok);
        const TruthError e = truth_error (interior (r.frames[1].vectors, g.cols, g.rows, 40), s[0], s[1]);
        const std::string what = std::string (name) + " " + mode + " shift (" + std::to_string (s[0]) + ", " +
            std::to_string (s[1]) + "): " + e.str ();
        /* the grid also samples flat areas (basketball's wall), where the
         * window barely constrains the motion */
        EXPECT_LE (e.median, std::string (mode) == "sparse" ? 0.05 : 0.1) << what;
        EXPECT_GE (e.tracked, e.n * 9 / 10) << what;
        EXPECT_GT (e.n, 20u) << what;
      }
    }
  }
}

/* Colour frames are tracked on cvtColor's luma and come out unchanged. */
TEST (FlowCpu, ColourInputTracksLuma)
{
  const cv::Mat rgb1 = load_rgb (data_path ("astronaut.png"));
  const cv::Mat rgb2 = [&] {
    cv::Mat m = (cv::Mat_<double> (2, 3) << 1, 0, 1.5, 0, 1, -0.75), o;
    cv::warpAffine (rgb1, o, m, rgb1.size (), cv::INTER_LINEAR, cv::BORDER_REFLECT_101);
    return o;
  }();
  cv::Mat g1, g2;
  cv::cvtColor (rgb1, g1, cv::COLOR_RGB2GRAY);
  cv::cvtColor (rgb2, g2, cv::COLOR_RGB2GRAY);
  const auto ref = clipped (opencv_lk (g1, g2, opencv_features (g1, 500), FlowParams ()), g1.cols, g1.rows);
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx }) {
    const std::string caps = caps_string (f, g1.cols, g1.rows);
    const FlowRun r = run_flow ("cudaflow backend=cpu", caps, caps, { { rgb_to_buffer (rgb1, f) }, { rgb_to_buffer (rgb2, f) } });
    ASSERT_TRUE (r.ok) << gst_video_format_to_string (f);
    EXPECT_EQ (diff_vectors (r.frames[1].vectors, ref), "") << gst_video_format_to_string (f);
    EXPECT_EQ (compare (r.frames[1].out, packed_frame (rgb2, f)).differing, 0) << "passthrough changed the frame";
  }
}

/* draw=true: green motion vectors, red crosses at the tracked points,
 * nothing else touched; white on GRAY8. */
TEST (FlowCpu, DrawShowsTheVectors)
{
  const cv::Mat rgb1 = load_rgb (data_path ("basketball1.png")), rgb2 = load_rgb (data_path ("basketball2.png"));
  const GstVideoFormat f = GST_VIDEO_FORMAT_BGRx; /* red is byte 2, green byte 1 */
  const std::string caps = caps_string (f, rgb1.cols, rgb1.rows);
  const FlowRun r = run_flow ("cudaflow backend=cpu draw=true max-corners=40", caps, caps,
      { { rgb_to_buffer (rgb1, f) }, { rgb_to_buffer (rgb2, f) } });
  ASSERT_TRUE (r.ok);
  const cv::Mat orig = packed_frame (rgb2, f), & out = r.frames[1].out;
  long changed = 0, wrong = 0;
  for (int y = 0; y < out.rows; y++) {
    for (int x = 0; x < out.cols; x++) {
      const cv::Vec4b o = out.at<cv::Vec4b> (y, x), i = orig.at<cv::Vec4b> (y, x);
      if (o == i)
        continue;
      changed++;
      const bool green = o[0] == 0 && o[1] == 255 && o[2] == 0, red = o[0] == 0 && o[1] == 0 && o[2] == 255;
      wrong += !(green || red) || o[3] != i[3];
    }
  }
  EXPECT_EQ (wrong, 0);
  EXPECT_GT (changed, 40 * 10);
  size_t tracked = 0;
  for (const FlowVector & v : r.frames[1].vectors) {
    if (!v.status)
      continue;
    tracked++;
    const cv::Vec4b c = out.at<cv::Vec4b> (cudavision::flow_round_px (v.y), cudavision::flow_round_px (v.x));
    EXPECT_EQ (c[2], 255) << "no red cross at (" << v.x << ", " << v.y << ")";
  }
  EXPECT_GT (tracked, 30u);
  /* the first frame has no vectors: nothing drawn */
  EXPECT_EQ (compare (r.frames[0].out, packed_frame (rgb1, f)).differing, 0);

  /* GRAY8: white */
  const FlowRun g = run_flow_gray ("cudaflow backend=cpu draw=true max-corners=40", { basketball (1), basketball (2) });
  cv::Mat diff = g.frames[1].out != basketball (2);
  EXPECT_GT (cv::countNonZero (diff), 40 * 10);
  cv::Mat white = g.frames[1].out == 255;
  EXPECT_EQ (cv::countNonZero (diff & ~white), 0);
}

TEST (FlowCpu, FlowColorIsTheHueWheel)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const double max_flow = 4.0;
  const std::string in = caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows);
  const std::string out = caps_string (GST_VIDEO_FORMAT_RGBA, b1.cols, b1.rows);
  const FlowRun r = run_flow ("cudaflow backend=cpu mode=dense output=flow-color grid-step=6 max-flow=4", in, out,
      { { mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8) }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) } });
  ASSERT_TRUE (r.ok);
  /* no flow yet: black, opaque */
  std::vector<cv::Mat> ch;
  cv::split (r.frames[0].out, ch);
  EXPECT_EQ (cv::countNonZero (ch[0]) + cv::countNonZero (ch[1]) + cv::countNonZero (ch[2]), 0);
  EXPECT_EQ (cv::countNonZero (ch[3] == 255), b1.cols * b1.rows);
  const auto ref = clipped (opencv_lk (b1, b2, grid_points (b1.cols, b1.rows, 6), FlowParams ()), b1.cols, b1.rows);
  const cv::Mat & o = r.frames[1].out;
  long bad = 0, coloured = 0;
  const int cols = cudavision::flow_grid_cols (b1.cols, 6);
  for (int y = 0; y < o.rows; y++) {
    for (int x = 0; x < o.cols; x++) {
      const FlowVector & v = ref[(size_t) (y / 6) * cols + x / 6];
      const cv::Vec4b c = o.at<cv::Vec4b> (y, x);
      cv::Vec3b want (0, 0, 0);
      if (v.status)
        want = reference_color (v.x - v.prev_x, v.y - v.prev_y, max_flow);
      coloured += v.status && want != cv::Vec3b (255, 255, 255);
      bad += std::abs (c[0] - want[0]) > 1 || std::abs (c[1] - want[1]) > 1 || std::abs (c[2] - want[2]) > 1 ||
          c[3] != 255;
    }
  }
  EXPECT_EQ (bad, 0);
  EXPECT_GT (coloured, b1.cols * b1.rows / 4);
  /* the wheel: right red, down yellow-green (90 degrees), left cyan, up violet */
  uint8_t rr, gg, bb;
  cudavision::flow_color_rgb (4, 0, 4, &rr, &gg, &bb);
  EXPECT_EQ (cv::Vec3b (rr, gg, bb), cv::Vec3b (255, 0, 0));
  cudavision::flow_color_rgb (-8, 0, 4, &rr, &gg, &bb);
  EXPECT_EQ (cv::Vec3b (rr, gg, bb), cv::Vec3b (0, 255, 255));
  cudavision::flow_color_rgb (0, 0, 4, &rr, &gg, &bb);
  EXPECT_EQ (cv::Vec3b (rr, gg, bb), cv::Vec3b (255, 255, 255));
  cudavision::flow_color_rgb (0, 2, 4, &rr, &gg, &bb);
  EXPECT_EQ (cv::Vec3b (rr, gg, bb), reference_color (0, 2, 4));
}

/* A keypoints meta on the input (cudaharris upstream) gives the points. */
TEST (FlowCpu, KeypointsFromUpstream)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const std::vector<cv::Point2f> pts = { { 100, 100 }, { 320.5f, 240.25f }, { 500, 50 }, { 10, 470 }, { 200, 300 } };
  std::vector<GstCvKeypoint> kp;
  for (const auto & p : pts)
    kp.push_back ({ p.x, p.y, 1.f });
  GstBuffer *first = mat_to_buffer (b1, GST_VIDEO_FORMAT_GRAY8);
  gst_buffer_add_cv_keypoints_meta (first, kp.data (), (guint) kp.size ());
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows);
  const FlowRun r = run_flow ("cudaflow backend=cpu max-corners=4", caps, caps,
      { { first }, { mat_to_buffer (b2, GST_VIDEO_FORMAT_GRAY8) } });
  ASSERT_TRUE (r.ok);
  const std::vector<cv::Point2f> four (pts.begin (), pts.begin () + 4);
  EXPECT_EQ (diff_vectors (r.frames[1].vectors, clipped (opencv_lk (b1, b2, four, FlowParams ()), b1.cols, b1.rows)), "");
}

/* A frame that does not follow the previous one starts again: no vectors
 * on it, then flow from it to the next. */
TEST (FlowCpu, ResetsOnDiscontinuities)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  const auto flow12 = clipped (opencv_lk (b1, b2, opencv_features (b1, 500), FlowParams ()), b1.cols, b1.rows);
  const auto flow21 = clipped (opencv_lk (b2, b1, opencv_features (b2, 500), FlowParams ()), b1.cols, b1.rows);
  auto buf = [] (const cv::Mat & m, GstClockTime pts, bool discont = false) {
    GstBuffer *b = mat_to_buffer (m, GST_VIDEO_FORMAT_GRAY8);
    GST_BUFFER_PTS (b) = pts;
    GST_BUFFER_DURATION (b) = GST_SECOND / 30;
    if (discont)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    return b;
  };
  const GstClockTime d = GST_SECOND / 30;
  const std::string caps = caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows);
  struct Case {
    const char *what;
    FlowInput third;
  };
  const Case cases[] = {
    { "DISCONT", { buf (b2, 2 * d, true) } },
    { "flush", { buf (b2, 2 * d), true, false } },
    { "segment", { buf (b2, 2 * d), false, true } },
    { "gap of 4 frames", { buf (b2, 5 * d) } },
    { "timestamp back", { buf (b2, 0) } },
  };
  for (const Case & c : cases) {
    /* b1 b2 | b2 b1: the third frame starts again */
    const FlowRun r = run_flow ("cudaflow backend=cpu", caps, caps,
        { { buf (b1, 0) }, { buf (b2, d) }, c.third, { buf (b1, GST_BUFFER_PTS (c.third.buffer) + d) } });
    ASSERT_TRUE (r.ok) << c.what;
    ASSERT_EQ (r.frames.size (), 4u);
    EXPECT_EQ (diff_vectors (r.frames[1].vectors, flow12), "") << c.what;
    EXPECT_TRUE (r.frames[2].vectors.empty ()) << c.what << ": " << r.frames[2].vectors.size () << " vectors";
    EXPECT_EQ (diff_vectors (r.frames[3].vectors, flow21), "") << c.what;
  }
  /* the control: a gap of 2 frame durations is still the same stream */
  const FlowRun r = run_flow ("cudaflow backend=cpu", caps, caps, { { buf (b1, 0) }, { buf (b2, 3 * d) } });
  EXPECT_EQ (diff_vectors (r.frames[1].vectors, flow12), "");
}

TEST (FlowCpu, NewCapsStartAgain)
{
  const cv::Mat & b1 = basketball (1), & b2 = basketball (2);
  GstHarness *h = gst_harness_new_parse ("cudaflow backend=cpu");
  gst_harness_set_sink_caps_str (h, "video/x-raw,format=GRAY8");
  gst_harness_set_src_caps_str (h, caps_string (GST_VIDEO_FORMAT_GRAY8, b1.cols, b1.rows).c_str ());
  auto push = [&] (const cv::Mat & m) {
    GstBuffer *o = gst_harness_push_and_pull (h, mat_to_buffer (m, GST_VIDEO_FORMAT_GRAY8));
    const GstCvFlowMeta *meta = o ? gst_buffer_get_cv_flow_meta (o) : nullptr;
    const int n = meta ? (int) meta->n : -1;
    if (o)
      gst_buffer_unref (o);
    return n;
  };
  EXPECT_EQ (push (b1), 0);
  EXPECT_GT (push (b2), 100);
  /* same size, other framerate: new caps all the same */
  gst_harness_set_src_caps_str (h, ("video/x-raw,format=GRAY8,width=" + std::to_string (b1.cols) + ",height=" +
      std::to_string (b1.rows) + ",framerate=25/1").c_str ());
  EXPECT_EQ (push (b1), 0);
  EXPECT_GT (push (b2), 100);
  gst_harness_teardown (h);
}

TEST (FlowCpu, MessagesSummarizeTheMotion)
{
  const cv::Mat g = load_gray (data_path ("astronaut.png"));
  const FlowRun quiet = run_flow_gray ("cudaflow backend=cpu", { g, shifted (g, 2, 0) });
  EXPECT_TRUE (quiet.messages.empty ());
  const FlowRun r = run_flow_gray ("cudaflow backend=cpu post-messages=true", { g, shifted (g, 2, 0) });
  ASSERT_EQ (r.messages.size (), 2u);
  guint count = 99, points = 99;
  double mean = -1, median = -1;
  ASSERT_TRUE (gst_structure_get (r.messages[0], "count", G_TYPE_UINT, &count, "points", G_TYPE_UINT, &points, "mean",
      G_TYPE_DOUBLE, &mean, "median", G_TYPE_DOUBLE, &median, nullptr));
  EXPECT_EQ (count, 0u);
  EXPECT_EQ (points, 0u);
  ASSERT_TRUE (gst_structure_get (r.messages[1], "count", G_TYPE_UINT, &count, "points", G_TYPE_UINT, &points, "mean",
      G_TYPE_DOUBLE, &mean, "median", G_TYPE_DOUBLE, &median, nullptr));
  const auto & v = r.frames[1].vectors;
  EXPECT_EQ (points, v.size ());
  std::vector<double> d;
  for (const auto & f : v)
    if (f.status)
      d.push_back (std::hypot ((double) f.x - f.prev_x, (double) f.y - f.prev_y));
  EXPECT_EQ (count, d.size ());
  double sum = 0;
  for (double x : d)
    sum += x;
  EXPECT_NEAR (mean, sum / d.size (), 1e-9);
  std::sort (d.begin (), d.end ());
  EXPECT_DOUBLE_EQ (median, d[(d.size () - 1) / 2]);
  EXPECT_NEAR (median, 2.0, 0.05);
  guint64 ts = 0;
  EXPECT_TRUE (gst_structure_get_uint64 (r.messages[1], "timestamp", &ts));
}

TEST (FlowCpu, TinyFrames)
{
  const cv::Mat astro = load_gray (data_path ("astronaut.png"));
  for (const auto & s : std::vector<cv::Size> { { 1, 1 }, { 2, 2 }, { 7, 5 }, { 24, 3 } }) {
    const cv::Mat a = astro (cv::Rect (250, 250, s.width, s.height)).clone ();
    const cv::Mat b = astro (cv::Rect (251, 250, s.width, s.height)).clone ();
    for (const char *mode : { "sparse", "dense" }) {
      const FlowRun r = run_flow_gray (std::string ("cudaflow backend=cpu min-distance=1 grid-step=2 mode=") + mode, { a, b, a });
      ASSERT_TRUE (r.ok) << s.width << "x" << s.height << " " << mode;
      ASSERT_EQ (r.frames.size (), 3u);
      if (std::string (mode) == "dense") {
        EXPECT_EQ (diff_vectors (r.frames[1].vectors,
                       clipped (opencv_lk (a, b, grid_points (a.cols, a.rows, 2), FlowParams ()), a.cols, a.rows)),
            "") << s.width << "x" << s.height;
      }
    }
  }
}

/* The two vectors of the meta tests, as a buffer copy must have them. */
static void
expect_test_vectors (const GstCvFlowMeta * m)
{
  ASSERT_NE (m, nullptr);
  ASSERT_EQ (m->n, 2u);
  EXPECT_EQ (m->vectors[0].x, 12.f);
  EXPECT_EQ (m->vectors[1].prev_y, 4.f);
  EXPECT_EQ (m->vectors[1].status, 0);
  EXPECT_EQ (m->grid_step, 8u);
}

/* A new buffer with `b`'s flow meta through a scale from 100x100 to
 * 50x200 (nullptr when the transform refuses). */
static GstBuffer *
scaled_meta (GstBuffer * b)
{
  return scaled_meta_buffer (b, (GstMeta *) gst_buffer_get_cv_flow_meta (b), { 100, 100 }, { 50, 200 });
}

TEST (FlowCpu, MetaCopiesAndScales)
{
  GstBuffer *b = gst_buffer_new ();
  const GstCvFlowVector v[] = { { 10, 20, 12, 19, 1 }, { 3, 4, 0, 0, 0 } };
  GstCvFlowMeta *m = gst_buffer_add_cv_flow_meta (b, v, 2);
  ASSERT_NE (m, nullptr);
  m->grid_step = 8;
  gst_buffer_add_cv_flow_meta (b, v, 1); /* replaces: one meta per buffer */
  guint n = 0;
  gpointer state = nullptr;
  while (gst_buffer_iterate_meta_filtered (b, &state, GST_CV_FLOW_META_API_TYPE))
    n++;
  EXPECT_EQ (n, 1u);
  m = gst_buffer_add_cv_flow_meta (b, v, 2);
  m->grid_step = 8;
  GstBuffer *c = gst_buffer_copy (b);
  expect_test_vectors (gst_buffer_get_cv_flow_meta (c));

  GstBuffer *d = scaled_meta (b);
  ASSERT_NE (d, nullptr);
  m = gst_buffer_get_cv_flow_meta (d);
  ASSERT_NE (m, nullptr);
  EXPECT_FLOAT_EQ (m->vectors[0].prev_x, 5.f);
  EXPECT_FLOAT_EQ (m->vectors[0].x, 6.f);
  EXPECT_FLOAT_EQ (m->vectors[0].prev_y, 40.f);
  EXPECT_FLOAT_EQ (m->vectors[0].y, 38.f);
  gst_buffer_unref (b);
  gst_buffer_unref (c);
  gst_buffer_unref (d);
}

/* gst_buffer_add_cv_flow_meta_full's lender: how often it was told the
 * vectors are free, and that they were not written meanwhile. */
struct LentVectors {
  GstCvFlowVector v[2] = { { 10, 20, 12, 19, 1 }, { 3, 4, 0, 0, 0 } };
  int notified = 0;
  static void notify (gpointer data) { static_cast<LentVectors *> (data)->notified++; }
};

/* The meta borrows the vectors: no copy, the lender told once when the
 * buffer is freed or the meta replaced; copies and scales own theirs. */
TEST (FlowCpu, MetaBorrowsVectors)
{
  LentVectors lent;
  GstBuffer *b = gst_buffer_new ();
  GstCvFlowMeta *m = gst_buffer_add_cv_flow_meta_full (b, lent.v, 2, LentVectors::notify, &lent);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (m->vectors, lent.v) << "the meta copied the vectors";
  EXPECT_EQ (m->n, 2u);
  m->grid_step = 8;

  /* a copy of the buffer gets its own vectors, the lender is not told */
  GstBuffer *c = gst_buffer_copy (b);
  const GstCvFlowMeta *mc = gst_buffer_get_cv_flow_meta (c);
  expect_test_vectors (mc);
  ASSERT_NE (mc, nullptr);
  EXPECT_NE (mc->vectors, lent.v);
  /* so does a scaled one, and the lent vectors stay as they were */
  GstBuffer *d = scaled_meta (b);
  ASSERT_NE (d, nullptr);
  EXPECT_FLOAT_EQ (gst_buffer_get_cv_flow_meta (d)->vectors[0].prev_x, 5.f);
  EXPECT_EQ (lent.v[0].prev_x, 10.f);
  gst_buffer_unref (d);
  EXPECT_EQ (lent.notified, 0);
  gst_buffer_unref (c);
  EXPECT_EQ (lent.notified, 0);

  /* replaced by another meta: told once */
  const GstCvFlowVector own[] = { { 1, 2, 3, 4, 1 } };
  gst_buffer_add_cv_flow_meta (b, own, 1);
  EXPECT_EQ (lent.notified, 1);
  gst_buffer_unref (b);
  EXPECT_EQ (lent.notified, 1);

  /* freed with the buffer: told once */
  LentVectors again;
  b = gst_buffer_new ();
  ASSERT_NE (gst_buffer_add_cv_flow_meta_full (b, again.v, 2, LentVectors::notify, &again), nullptr);
  EXPECT_EQ (again.notified, 0);
  gst_buffer_unref (b);
  EXPECT_EQ (again.notified, 1);

  /* without a notify the meta takes the array (g_free) */
  b = gst_buffer_new ();
  auto *owned = (GstCvFlowVector *) g_memdup2 (lent.v, sizeof (lent.v));
  m = gst_buffer_add_cv_flow_meta_full (b, owned, 2, nullptr, nullptr);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (m->vectors, owned);
  gst_buffer_unref (b);
}

TEST (FlowCpu, Properties)
{
  GstElement *e = gst_element_factory_make ("cudaflow", nullptr);
  ASSERT_NE (e, nullptr);
  gint mode = 9, output = 9, max_corners = 0, interval = 0, step = 0, window = 0, level = 0, iters = 0;
  gdouble quality = 0, min_distance = 0, eps = 0, min_eig = 0, max_flow = 0;
  gboolean draw = TRUE, post = TRUE;
  g_object_get (e, "mode", &mode, "output", &output, "max-corners", &max_corners, "quality-level", &quality,
      "min-distance", &min_distance, "redetect-interval", &interval, "grid-step", &step, "window-size", &window,
      "max-level", &level, "iterations", &iters, "epsilon", &eps, "min-eig-threshold", &min_eig, "max-flow",
      &max_flow, "draw", &draw, "post-messages", &post, nullptr);
  EXPECT_EQ (mode, 0);
  EXPECT_EQ (output, 0);
  EXPECT_EQ (max_corners, 500);
  EXPECT_DOUBLE_EQ (quality, 0.01);
  EXPECT_DOUBLE_EQ (min_distance, 10.0);
  EXPECT_EQ (interval, 10);
  EXPECT_EQ (step, 8);
  EXPECT_EQ (window, 21);
  EXPECT_EQ (level, 3);
  EXPECT_EQ (iters, 30);
  EXPECT_DOUBLE_EQ (eps, 0.01);
  EXPECT_DOUBLE_EQ (min_eig, 1e-4);
  EXPECT_DOUBLE_EQ (max_flow, 8.0);
  EXPECT_FALSE (draw);
  EXPECT_FALSE (post);
  gst_object_unref (e);
}

TEST (FlowCpu, PipelinesAndCaps)
{
  BusResult r = run_pipeline ("videotestsrc num-buffers=8 pattern=ball ! video/x-raw,format=BGRx,width=320,height=240 ! "
                              "cudaflow backend=cpu draw=true ! videoconvert ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  EXPECT_TRUE (r.warnings.empty ());
  /* flow colours are RGBA from any input */
  r = run_pipeline ("videotestsrc num-buffers=4 pattern=ball ! video/x-raw,format=GRAY8,width=160,height=120 ! "
                    "cudaflow backend=cpu mode=dense output=flow-color ! video/x-raw,format=RGBA ! fakesink");
  EXPECT_TRUE (r.eos) << (r.errors.empty () ? "" : r.errors[0]);
  /* flow colours need the dense mode: a clear error */
  r = run_pipeline ("videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8 ! cudaflow backend=cpu output=flow-color ! "
                    "fakesink");
  EXPECT_FALSE (r.eos);
  EXPECT_TRUE (r.has_error_containing ("mode=dense")) << (r.errors.empty () ? "no error" : r.errors[0]);
  /* formats outside the template are refused */
  r = run_pipeline ("videotestsrc num-buffers=2 ! video/x-raw,format=YUY2 ! cudaflow backend=cpu ! fakesink");
  EXPECT_FALSE (r.eos);
  EXPECT_FALSE (r.errors.empty ());
}

/* ------------------------------------------- NV12, I420, RGB, BGR, colours */

/* NV12 and I420 (an odd size, padded rows): tracked on the Y plane as it
 * lies, the chroma carried through; draw=true paints the lines in `color`
 * (green by default) and, in sparse mode, the crosses in `marker-color`
 * (red) over them, on the luma and the chroma sample above each pixel. */
TEST (FlowCpu, YuvFramesAreTrackedOnTheirYPlane)
{
  const std::vector<cv::Mat> pair = { basketball_rgb (1), basketball_rgb (2) };
  const cv::Rect odd (1, 2, 637, 475);
  const std::vector<cv::Mat> odd_pair = { pair[0] (odd).clone (), pair[1] (odd).clone () };
  std::vector<FrameSequence> seqs;
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    seqs.emplace_back ("basketball", pair, f);
    seqs.emplace_back ("basketball crop", odd_pair, f);
    seqs.emplace_back ("basketball crop", odd_pair, f, f == GST_VIDEO_FORMAT_NV12 ? 3 : 1);
  }
  for (const FrameSequence & s : seqs) {
    for (bool dense : { false, true }) {
      check_flow_and_drawing ("draw=false color=0xff2040ff", s, dense, 0, 0, false);
      check_flow_and_drawing ("draw=true", s, dense, cudavision::kFlowLineColor, cudavision::kCornerMarkerColor, true);
      check_flow_and_drawing ("draw=true color=0xff2040ff marker-color=0xffffff00", s, dense, 0xff2040ffu,
          0xffffff00u, true);
    }
  }
  /* the markers go over the lines: each cross covers its line's last
   * pixel and the chroma of some line pixels, so the other order would
   * give other bytes */
  const FrameSequence & s = seqs[0];
  const auto ref = reference_flow (s.luma, false);
  std::vector<cv::Mat> lines_last = s.planes[1];
  for (auto & m : lines_last)
    m = m.clone ();
  paint_pixels (lines_last, &s.info, cudavision::kCornerMarkerColor, flow_marker_pixels (ref[1], s.info.width, s.info.height));
  paint_pixels (lines_last, &s.info, cudavision::kFlowLineColor, flow_line_pixels (ref[1], s.info.width, s.info.height));
  EXPECT_NE (diff_planes (lines_last, expected_flow_drawing (s.planes[1], &s.info, ref[1],
                 cudavision::kFlowLineColor, cudavision::kCornerMarkerColor, true)),
      "");
}

/* Several NV12 frames: the sparse points follow the Y planes through
 * re-detections (every 2 frames, and only when tracks run low). */
TEST (FlowCpu, YuvSequenceFollowsOpenCV)
{
  const cv::Mat & b1 = basketball_rgb (1), & b2 = basketball_rgb (2);
  const std::vector<cv::Mat> frames = { b1, b2, shifted (b2, 1.5, -0.75), shifted (b2, 3.25, -1.5),
    shifted (b2, 4.5, -1.25), b2 };
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420 }) {
    const FrameSequence s ("basketball sequence", frames, f);
    for (int interval : { 2, 0 }) {
      check_flow_and_drawing ("draw=true redetect-interval=" + std::to_string (interval), s, false,
          cudavision::kFlowLineColor, cudavision::kCornerMarkerColor, true, interval);
    }
  }
}

/* Every packed RGB layout, 3-byte RGB and BGR among them: tracked on
 * cvtColor's luma; the lines and crosses in their colours, their alphas
 * in an alpha byte, padding bytes as they came. */
TEST (FlowCpu, PackedRgbLayoutsAndColours)
{
  const std::vector<cv::Mat> pair = { basketball_rgb (1), basketball_rgb (2) };
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR };
  for (GstVideoFormat f : formats) {
    const FrameSequence s ("basketball", pair, f, f == GST_VIDEO_FORMAT_RGB ? 1 : 0);
    check_flow_and_drawing ("draw=true", s, false, cudavision::kFlowLineColor, cudavision::kCornerMarkerColor, true);
    check_flow_and_drawing ("draw=true color=0x80ffff00 marker-color=0x40ff00ff", s, false, 0x80ffff00u, 0x40ff00ffu,
        true);
    check_flow_and_drawing ("draw=true color=0x80ffff00", s, true, 0x80ffff00u, 0, true);
  }
  /* the bytes themselves on RGBA, apart from the painter: a tracked
   * point's cross is magenta with alpha 0x40, its line's start (away from
   * every cross) yellow with alpha 0x80 */
  const FrameSequence s ("basketball", pair, GST_VIDEO_FORMAT_RGBA);
  const FlowRun r = run_flow ("cudaflow backend=cpu draw=true color=0x80ffff00 marker-color=0x40ff00ff", s.caps, s.caps,
      s.inputs ());
  ASSERT_TRUE (r.ok);
  const auto & v = r.frames[1].vectors;
  const auto markers = flow_marker_pixels (v, s.info.width, s.info.height);
  int checked = 0;
  for (const FlowVector & f : v) {
    if (!f.status)
      continue;
    const cv::Point end (cudavision::flow_round_px (f.x), cudavision::flow_round_px (f.y));
    const cv::Point start (cudavision::flow_round_px (f.prev_x), cudavision::flow_round_px (f.prev_y));
    EXPECT_EQ (r.frames[1].planes[0].at<cv::Vec4b> (end), cv::Vec4b (0xff, 0x00, 0xff, 0x40));
    if (std::find (markers.begin (), markers.end (), start) == markers.end ()) {
      EXPECT_EQ (r.frames[1].planes[0].at<cv::Vec4b> (start), cv::Vec4b (0xff, 0xff, 0x00, 0x80));
      checked++;
    }
  }
  EXPECT_GT (checked, 10);
}

/* New caps mid-stream, RGBA -> NV12 -> RGBA at one size: tracking starts
 * again on each (no vectors on the first frame after), and each frame is
 * tracked and drawn as its own format says. */
TEST (FlowCpu, RenegotiatesBetweenRgbaAndNv12)
{
  const cv::Mat & b1 = basketball_rgb (1), & b2 = basketball_rgb (2);
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA };
  const guint32 line = 0xff2040ffu, marker = 0xffffff00u;
  GstHarness *h = gst_harness_new_parse ("cudaflow backend=cpu draw=true color=0xff2040ff marker-color=0xffffff00");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format=(string){ RGBA, NV12 }");
  for (GstVideoFormat f : formats) {
    const FrameSequence s ("basketball", { b1, b2 }, f);
    SCOPED_TRACE (s.caps);
    gst_harness_set_src_caps_str (h, s.caps.c_str ());
    const auto ref = reference_flow (s.luma, false);
    GstCaps *want_caps = gst_caps_from_string (s.caps.c_str ());
    std::vector<FlowInput> in = s.inputs ();
    for (size_t k = 0; k < in.size (); k++) {
      GstBuffer *out = gst_harness_push_and_pull (h, in[k].buffer);
      ASSERT_NE (out, nullptr) << "frame " << k;
      GstCaps *now = gst_pad_get_current_caps (h->sinkpad);
      ASSERT_NE (now, nullptr);
      EXPECT_TRUE (gst_caps_is_equal (now, want_caps)) << "output caps " << gst_caps_to_string (now);
      gst_caps_unref (now);
      const FlowFrame got = flow_frame (out, want_caps);
      gst_buffer_unref (out);
      EXPECT_TRUE (got.has_meta);
      EXPECT_EQ (diff_vectors (got.vectors, ref[k]), "") << "frame " << k;
      EXPECT_EQ (diff_planes (got.planes, expected_flow_drawing (s.planes[k], &s.info, ref[k], line, marker, true)),
          "") << "frame " << k;
    }
    EXPECT_GT (ref[1].size (), 100u);
    gst_caps_unref (want_caps);
  }
  gst_harness_teardown (h);
}
