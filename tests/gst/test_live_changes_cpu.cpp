/* Properties that shape the caps or the frame layout, changed while
 * PLAYING on the CPU backend (runs in CI): cudaharris's `output`,
 * cudaflow's `output` and `mode`, set between two frames of a running
 * appsrc ! element ! appsink pipeline. Every buffer must agree with the
 * caps it arrives with (its size the caps' frame size, its bytes the
 * output those caps describe: the input frame, the response map of its
 * luma, the flow colours of its own vectors), a change applies from the
 * next frame on, downstream (videoconvert) follows the new caps, and a
 * change the element cannot make is refused with a warning naming the
 * property. */
#include "../common/flow_ref.h"
#include "../common/harris_ref.h"
#include "../common/live_run.h"
#include "../common/test_util.h"

#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

using namespace cvtest;
using cudavision::FlowParams;
using cudavision::FlowVector;

namespace {

/* The frame size, the buffer's size: the bytes cannot disagree with it. */
void
expect_frame_size (const LiveRun & r, size_t k)
{
  const GstVideoInfo info = r.info (k);
  EXPECT_EQ (GST_VIDEO_INFO_WIDTH (&info), kLiveWidth);
  EXPECT_EQ (GST_VIDEO_INFO_HEIGHT (&info), kLiveHeight);
  EXPECT_EQ (gst_buffer_get_size (r.buffer (k)), GST_VIDEO_INFO_SIZE (&info));
}

/* ---------------------------------------------------------------- harris */

/* output=response on frames 3 to 5, passthrough before and after, set
 * while playing: the response map (GRAY8, new caps unless the input is
 * GRAY8 already) exactly from frame 3, the input frame again from frame
 * 6 in its own caps; the corners on every frame. */
TEST (LiveChangesCpu, HarrisOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
    const FrameSequence seq ("astronaut", pictures, f);
    SCOPED_TRACE (seq.what);
    LiveRun r;
    run_live (&r, "cudaharris backend=cpu", seq, switch_at ("output", { 3, 6 }, "response", "passthrough"));
    ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
    for (size_t k = 0; k < kLiveFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const bool response = k >= 3 && k < 6;
      EXPECT_EQ (format_of (r, k), response ? GST_VIDEO_FORMAT_GRAY8 : f);
      expect_frame_size (r, k);
      const std::vector<cv::Mat> planes = buffer_planes (r.buffer (k), r.caps (k));
      if (response) {
        ASSERT_EQ (planes.size (), 1u);
        const cv::Mat want = opencv_normalized_response (seq.luma[k], cudavision::CornerParams ());
        EXPECT_EQ (compare (planes[0], want).differing, 0);
      } else {
        EXPECT_EQ (diff_planes (planes, seq.planes[k]), "");
      }
      EXPECT_NE (gst_buffer_get_cv_keypoints_meta (r.buffer (k)), nullptr);
    }
  }
}

/* A downstream converter gets the new caps: BGRx in, RGBA after
 * videoconvert, whose frames are the input's colours, then the grey of
 * the response map, then the colours again. */
TEST (LiveChangesCpu, HarrisOutputReachesVideoconvert)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_BGRx);
  LiveRun r;
  run_live (&r, "cudaharris backend=cpu", seq, switch_at ("output", { 3, 6 }, "response", "passthrough"),
      "videoconvert ! video/x-raw,format=RGBA ! ");
  ASSERT_EQ (r.samples.size (), kLiveFrames) << r.first_error ();
  for (size_t k = 0; k < kLiveFrames; k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_EQ (format_of (r, k), GST_VIDEO_FORMAT_RGBA);
    expect_frame_size (r, k);
    const cv::Mat out = buffer_to_mat (r.buffer (k), r.caps (k));
    std::vector<cv::Mat> ch;
    cv::split (out, ch);
    if (k >= 3 && k < 6) {
      const cv::Mat want = opencv_normalized_response (seq.luma[k], cudavision::CornerParams ());
      for (int c = 0; c < 3; c++)
        EXPECT_EQ (compare (ch[c], want).differing, 0) << "channel " << c;
    } else {
      cv::Mat rgb;
      cv::merge (std::vector<cv::Mat> { ch[0], ch[1], ch[2] }, rgb);
      EXPECT_EQ (compare (rgb, seq.rgb[k]).differing, 0);
    }
  }
}

/* Downstream that cannot take the new format: the renegotiation fails
 * with GStreamer's not-negotiated error; every frame that came out is
 * the input frame in the caps it was negotiated with. */
TEST (LiveChangesCpu, HarrisOutputDownstreamRefusesIsAnError)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_RGBA);
  LiveRun r;
  run_live (&r, "cudaharris backend=cpu", seq, switch_at ("output", { 2 }, "response", "passthrough"),
      "video/x-raw,format=RGBA ! ");
  EXPECT_FALSE (r.errors.empty ());
  EXPECT_TRUE (r.has_warning_containing ("el: not negotiated")) << r.warnings.size () << " warnings";
  EXPECT_LT (r.samples.size (), kLiveFrames);
  for (size_t k = 0; k < r.samples.size (); k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_EQ (format_of (r, k), GST_VIDEO_FORMAT_RGBA);
    expect_frame_size (r, k);
    EXPECT_EQ (diff_planes (buffer_planes (r.buffer (k), r.caps (k)), seq.planes[k]), "");
  }
}

/* ------------------------------------------------------------------ flow */

const std::string kDense = "cudaflow backend=cpu mode=dense grid-step=" + std::to_string (kLiveStep) + " max-flow=4";

/* Sparse tracking from frame `first` (detected there) up to frame `last`:
 * the element's rule (test_flow_cpu.cpp's reference_sparse), 500
 * corners, a new detection every 10 frames. */
std::vector<std::vector<FlowVector>>
sparse_reference (const FrameSequence & s, size_t first, size_t last)
{
  std::vector<std::vector<FlowVector>> out (last + 1);
  std::vector<cv::Point2f> pts = opencv_features (s.luma[first], 500);
  size_t detected = pts.size ();
  int since = 0;
  for (size_t k = first + 1; k <= last; k++) {
    out[k] = clipped (opencv_lk (s.luma[k - 1], s.luma[k], pts, FlowParams ()), kLiveWidth, kLiveHeight);
    since++;
    pts.clear ();
    for (const FlowVector & v : out[k])
      if (v.status)
        pts.emplace_back (v.x, v.y);
    if (pts.empty () || since >= 10 || pts.size () * 2 < detected) {
      pts = opencv_features (s.luma[k], 500);
      detected = pts.size ();
      since = 0;
    }
  }
  return out;
}

/* Frame k of cudaflow from an input of format `input`: RGBA with the
 * colours of its own vectors when `colour`, else the input frame in its
 * own caps. The frame, for its vectors' checks. */
FlowFrame
expect_flow_frame (const LiveRun & r, size_t k, const FrameSequence & seq, bool colour, GstVideoFormat input)
{
  EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : input);
  expect_frame_size (r, k);
  FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
  if (colour)
    EXPECT_EQ (compare (got.out, flow_colours (got.vectors)).differing, 0);
  else
    EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
  return got;
}

/* Dense flow, output=flow-color on frames 3 to 5, set while playing: RGBA
 * (new caps unless the input is RGBA), the colours of the frame's own
 * vectors, then the input frame again in its own caps. The input caps
 * stay, so the tracking goes on across the switches: every frame after
 * the first has the grid's vectors. The GRAY8 case wrote RGBA rows into
 * GRAY8 buffers (heap overflow, issue 36). */
TEST (LiveChangesCpu, FlowOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
    const FrameSequence seq ("astronaut", pictures, f);
    SCOPED_TRACE (seq.what);
    LiveRun r;
    run_live (&r, kDense, seq, switch_at ("output", { 3, 6 }, "flow-color", "passthrough"));
    ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
    for (size_t k = 0; k < kLiveFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const FlowFrame got = expect_flow_frame (r, k, seq, k >= 3 && k < 6, f);
      EXPECT_TRUE (got.has_meta);
      if (k > 0) {
        EXPECT_EQ (got.grid_step, (unsigned) kLiveStep);
        EXPECT_EQ (diff_vectors (got.vectors, dense_reference (seq, k)), "");
      } else {
        EXPECT_TRUE (got.vectors.empty ());
      }
    }
  }
}

/* mode=dense on frames 3 to 5, sparse before and after, set while playing
 * (output=passthrough: the caps stay): each change starts the tracking
 * again, as new caps do; the frame of the change has no vectors, the
 * next ones those of the new mode from there. */
TEST (LiveChangesCpu, FlowModeChangeStartsAgain)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA }) {
    const FrameSequence seq ("astronaut", pictures, f);
    SCOPED_TRACE (seq.what);
    LiveRun r;
    run_live (&r, "cudaflow backend=cpu draw=false grid-step=" + std::to_string (kLiveStep), seq,
        switch_at ("mode", { 3, 6 }, "dense", "sparse"));
    ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
    const auto before = sparse_reference (seq, 0, 2), after = sparse_reference (seq, 6, 8);
    for (size_t k = 0; k < kLiveFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const FlowFrame got = expect_flow_frame (r, k, seq, false, f);
      EXPECT_TRUE (got.has_meta);
      if (k == 0 || k == 3 || k == 6) {
        EXPECT_TRUE (got.vectors.empty ());
      } else if (k < 3) {
        EXPECT_EQ (got.grid_step, 0u);
        EXPECT_EQ (diff_vectors (got.vectors, before[k]), "");
      } else if (k < 6) {
        EXPECT_EQ (got.grid_step, (unsigned) kLiveStep);
        EXPECT_EQ (diff_vectors (got.vectors, dense_reference (seq, k)), "");
      } else {
        EXPECT_EQ (got.grid_step, 0u);
        EXPECT_EQ (diff_vectors (got.vectors, after[k]), "");
      }
    }
  }
}

/* Flow colours come from the dense grid: while playing, output=flow-color
 * in sparse mode and mode=sparse with output=flow-color are refused with
 * a warning naming the property, which keeps its value; dense mode then
 * flow colours, in that order, are taken. */
TEST (LiveChangesCpu, FlowRefusesColoursWithoutTheGrid)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_GRAY8);
  LiveRun r;
  std::vector<std::string> seen;
  run_live (&r, "cudaflow backend=cpu grid-step=" + std::to_string (kLiveStep) + " max-flow=4", seq,
      flow_colour_changes (&seen));
  ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
  expect_flow_colour_refusals (r, seen);
  for (size_t k = 0; k < kLiveFrames; k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    expect_flow_frame (r, k, seq, k >= 4, GST_VIDEO_FORMAT_GRAY8);
  }
}

/* The flow colours through videoconvert (BGRx): GRAY8 frames as grey,
 * then the colours, then grey again, as the caps change. */
TEST (LiveChangesCpu, FlowOutputReachesVideoconvert)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_GRAY8);
  LiveRun r;
  run_live (&r, kDense, seq, switch_at ("output", { 3, 6 }, "flow-color", "passthrough"),
      "videoconvert ! video/x-raw,format=BGRx ! ");
  ASSERT_EQ (r.samples.size (), kLiveFrames) << r.first_error ();
  for (size_t k = 0; k < kLiveFrames; k++) {
    SCOPED_TRACE ("frame " + std::to_string (k));
    EXPECT_EQ (format_of (r, k), GST_VIDEO_FORMAT_BGRx);
    expect_frame_size (r, k);
    std::vector<cv::Mat> ch;
    cv::split (buffer_to_mat (r.buffer (k), r.caps (k)), ch);
    if (k >= 3 && k < 6) {
      std::vector<cv::Mat> want;
      cv::split (flow_colours (dense_reference (seq, k)), want);
      for (int c = 0; c < 3; c++)
        EXPECT_EQ (compare (ch[2 - c], want[c]).differing, 0) << "channel " << c;
    } else {
      for (int c = 0; c < 3; c++)
        EXPECT_EQ (compare (ch[c], seq.luma[k]).differing, 0) << "channel " << c;
    }
  }
}

}  // namespace
