/* Properties that shape the caps or the frame layout, changed while
 * PLAYING on the GPU (backend=cuda): cudaharris's `output`, cudaflow's
 * `output` and `mode`, set between two frames of a running appsrc !
 * element ! appsink pipeline, out in system memory and in device frames
 * (memory:CudaVisionMemory); the held frames of latency-frames=1 (device
 * memory on both pads) across a renegotiation. Every buffer must agree
 * with the caps it arrives with (system memory: its size the caps' frame
 * size; device frames: a video meta of the caps' format whose planes lie
 * in the buffer), its bytes the output those caps describe (the input
 * frame, the response map of its luma within a grey level of OpenCV's,
 * the flow colours of its own vectors), a change applying from the next
 * frame on; a change the element cannot make is refused with a warning
 * naming the property. tests/gst/test_live_changes_cpu.cpp is the CPU
 * backend's counterpart (exact there). Skips (exit 77) without a CUDA
 * device. */
#include "../common/flow_ref.h"
#include "../common/harris_ref.h"
#include "../common/live_run.h"
#include "../common/test_util.h"

#include "gstcvflowmeta.h"
#include "gstcvkeypointsmeta.h"
#include "gstcvmemory.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

using namespace cvtest;
using cudavision::FlowParams;
using cudavision::FlowVector;

namespace {

/* Where the frames go out: system memory or our device frames. */
struct OutMemory {
  const char *name;
  const char *tail;
  bool device;
};
const OutMemory kOutMemories[] = {
  { "system memory", "video/x-raw ! ", false },
  { "device memory", "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! ", true },
};

/* Buffer k holds a frame of its caps: in system memory exactly the
 * caps' frame size; a device frame (pitched rows) with a video meta of
 * the caps' format and size whose planes lie inside the buffer. */
void
expect_layout (const LiveRun & r, size_t k, bool device)
{
  const GstVideoInfo info = r.info (k);
  EXPECT_EQ (GST_VIDEO_INFO_WIDTH (&info), kLiveWidth);
  EXPECT_EQ (GST_VIDEO_INFO_HEIGHT (&info), kLiveHeight);
  EXPECT_EQ (gst_caps_features_contains (gst_caps_get_features (r.caps (k), 0), GST_CAPS_FEATURE_MEMORY_CUDAVISION),
      device);
  GstBuffer *b = r.buffer (k);
  const gsize size = gst_buffer_get_size (b);
  if (!device) {
    EXPECT_EQ (size, GST_VIDEO_INFO_SIZE (&info));
    return;
  }
  const GstVideoMeta *m = gst_buffer_get_video_meta (b);
  ASSERT_NE (m, nullptr);
  EXPECT_EQ (m->format, GST_VIDEO_INFO_FORMAT (&info));
  EXPECT_EQ ((int) m->width, kLiveWidth);
  EXPECT_EQ ((int) m->height, kLiveHeight);
  ASSERT_EQ (m->n_planes, GST_VIDEO_INFO_N_PLANES (&info));
  for (guint p = 0; p < m->n_planes; p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info.finfo, p, comps);
    const gsize rows = (gsize) GST_VIDEO_INFO_COMP_HEIGHT (&info, comps[0]);
    const gsize row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, comps[0]) *
        (gsize) GST_VIDEO_INFO_COMP_PSTRIDE (&info, comps[0]);
    EXPECT_GE ((gsize) m->stride[p], row_bytes) << "plane " << p;
    EXPECT_LE (m->offset[p] + (gsize) m->stride[p] * rows, size) << "plane " << p;
  }
}

/* The GRAY8 response map of `luma`: within one grey level of OpenCV's (1e-4
 * of the maximum can move a rounding), on nearly all pixels exactly. */
void
expect_response (const cv::Mat & got, const cv::Mat & luma)
{
  const cv::Mat want = opencv_normalized_response (luma, cudavision::CornerParams ());
  const Diff d = compare (got, want);
  EXPECT_LE (d.max_abs, 1);
  EXPECT_LE (d.differing, (long) want.total () / 1000 + 1);
}

/* ---------------------------------------------------------------- harris */

/* Frame k of cudaharris switched to output=response on frames 3 to 5,
 * from an input of format `input`: the response map of its luma there
 * (GRAY8), the input frame in its own caps elsewhere. */
void
expect_harris_frame (const LiveRun & r, size_t k, const FrameSequence & seq, GstVideoFormat input, bool device)
{
  const bool response = k >= 3 && k < 6;
  EXPECT_EQ (format_of (r, k), response ? GST_VIDEO_FORMAT_GRAY8 : input);
  expect_layout (r, k, device);
  const std::vector<cv::Mat> planes = buffer_planes (r.buffer (k), r.caps (k));
  if (response) {
    ASSERT_EQ (planes.size (), 1u);
    expect_response (planes[0], seq.luma[k]);
  } else {
    EXPECT_EQ (diff_planes (planes, seq.planes[k]), "");
  }
}

/* output=response on frames 3 to 5, passthrough before and after, set
 * while playing, out in system and device memory: the response map
 * (GRAY8, new caps unless the input is GRAY8 already) from frame 3, the
 * input frame again from frame 6 in its own caps; the corners on every
 * frame. */
TEST (LiveChangesGpu, HarrisOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (const OutMemory & mem : kOutMemories) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
      const FrameSequence seq ("astronaut", pictures, f);
      SCOPED_TRACE (seq.what + ", " + mem.name);
      LiveRun r;
      run_live (&r, "cudaharris backend=cuda", seq, switch_at ("output", { 3, 6 }, "response", "passthrough"),
          mem.tail);
      ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
      for (size_t k = 0; k < kLiveFrames; k++) {
        SCOPED_TRACE ("frame " + std::to_string (k));
        ASSERT_NO_FATAL_FAILURE (expect_harris_frame (r, k, seq, f, mem.device));
        EXPECT_NE (gst_buffer_get_cv_keypoints_meta (r.buffer (k)), nullptr);
      }
    }
  }
}

/* ------------------------------------------------------------------ flow */

const std::string kDense = "cudaflow backend=cuda mode=dense grid-step=" + std::to_string (kLiveStep) + " max-flow=4";

/* Vectors against OpenCV's on the same points: status agreement >= 98%,
 * median endpoint error <= 0.1 px, most points tracked (test_flow_gpu's
 * bounds). */
void
expect_like_opencv (const std::vector<FlowVector> & got, const std::vector<FlowVector> & ref)
{
  const FlowCompare c = compare_flow (got, ref);
  EXPECT_GE (c.agreement (), 0.98) << c.str ();
  EXPECT_LE (c.median, 0.1) << c.str ();
  EXPECT_GT (c.both, c.n / 2) << c.str ();
}

/* Frame k's grid vectors (from frame k - 1) against OpenCV's. */
void
expect_dense (const FrameSequence & s, size_t k, const FlowFrame & got)
{
  EXPECT_EQ (got.grid_step, (unsigned) kLiveStep);
  const std::vector<FlowVector> ref = dense_reference (s, k);
  EXPECT_EQ (got.vectors.size (), ref.size ());
  expect_like_opencv (got.vectors, ref);
}

/* Frame k's sparse vectors: their own starting points tracked as OpenCV
 * tracks them, and, on the first frame tracked after a (re)start, those
 * points goodFeaturesToTrack's of frame k - 1. */
void
expect_sparse (const FrameSequence & s, size_t k, const FlowFrame & got, bool first_tracked)
{
  EXPECT_EQ (got.grid_step, 0u);
  ASSERT_FALSE (got.vectors.empty ());
  const cv::Mat & a = s.luma[k - 1], & b = s.luma[k];
  expect_like_opencv (got.vectors, clipped (opencv_lk (a, b, prev_points (got.vectors), FlowParams ()), kLiveWidth,
      kLiveHeight));
  if (first_tracked) {
    std::vector<cudavision::Corner> pts, want;
    for (const FlowVector & v : got.vectors)
      pts.push_back ({ v.prev_x, v.prev_y, 0 });
    for (const cv::Point2f & q : opencv_features (a, 500))
      want.push_back ({ q.x, q.y, 0 });
    EXPECT_GE (recall (pts, want, 1.0), 0.95) << pts.size () << " points vs OpenCV's " << want.size ();
  }
}

/* output=flow-color as the GPU paints it from the vectors on the buffer:
 * the CPU backend's colours within one level on 99% of the pixels (the
 * hue's float arithmetic differs). */
void
expect_flow_colours (const cv::Mat & got, const std::vector<FlowVector> & v)
{
  const cv::Mat want = flow_colours (v);
  const Diff d = compare (got, want);
  EXPECT_LE (d.max_abs, 1);
  EXPECT_LE (d.differing, (long) want.total () / 100);
}

/* Frame k of cudaflow from an input of format `input`: RGBA with the
 * colours of its own vectors when `colour`, else the input frame in its
 * own caps. The frame, for its vectors' checks. */
FlowFrame
expect_flow_frame (const LiveRun & r, size_t k, const FrameSequence & seq, bool colour, GstVideoFormat input,
    bool device)
{
  EXPECT_EQ (format_of (r, k), colour ? GST_VIDEO_FORMAT_RGBA : input);
  expect_layout (r, k, device);
  FlowFrame got = flow_frame (r.buffer (k), r.caps (k));
  if (colour)
    expect_flow_colours (got.out, got.vectors);
  else
    EXPECT_EQ (diff_planes (got.planes, seq.planes[k]), "");
  return got;
}

/* Dense flow, output=flow-color on frames 3 to 5, set while playing, out
 * in system and device memory: RGBA (new caps unless the input is RGBA),
 * the colours of the frame's own vectors, then the input frame again in
 * its own caps. The input caps stay, so the tracking goes on across the
 * switches. The GRAY8 case colours RGBA rows into GRAY8 frames without
 * the fix (issue 36). */
TEST (LiveChangesGpu, FlowOutputFollowsTheProperty)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (const OutMemory & mem : kOutMemories) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12 }) {
      const FrameSequence seq ("astronaut", pictures, f);
      SCOPED_TRACE (seq.what + ", " + mem.name);
      LiveRun r;
      run_live (&r, kDense, seq, switch_at ("output", { 3, 6 }, "flow-color", "passthrough"), mem.tail);
      ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
      for (size_t k = 0; k < kLiveFrames; k++) {
        SCOPED_TRACE ("frame " + std::to_string (k));
        const FlowFrame got = expect_flow_frame (r, k, seq, k >= 3 && k < 6, f, mem.device);
        EXPECT_TRUE (got.has_meta);
        if (k > 0)
          expect_dense (seq, k, got);
        else
          EXPECT_TRUE (got.vectors.empty ());
      }
    }
  }
}

/* mode=dense on frames 3 to 5, sparse before and after, set while playing
 * (output=passthrough: the caps stay): each change starts the tracking
 * again; the frame of the change has no vectors, the next ones those of
 * the new mode (the session's points and its pending decision to detect
 * are the other mode's no more). */
TEST (LiveChangesGpu, FlowModeChangeStartsAgain)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  for (const OutMemory & mem : kOutMemories) {
    for (GstVideoFormat f : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBA }) {
      const FrameSequence seq ("astronaut", pictures, f);
      SCOPED_TRACE (seq.what + ", " + mem.name);
      LiveRun r;
      run_live (&r, "cudaflow backend=cuda grid-step=" + std::to_string (kLiveStep), seq,
          switch_at ("mode", { 3, 6 }, "dense", "sparse"), mem.tail);
      ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
      for (size_t k = 0; k < kLiveFrames; k++) {
        SCOPED_TRACE ("frame " + std::to_string (k));
        const FlowFrame got = expect_flow_frame (r, k, seq, false, f, mem.device);
        EXPECT_TRUE (got.has_meta);
        if (k == 0 || k == 3 || k == 6)
          EXPECT_TRUE (got.vectors.empty ());
        else if (k > 3 && k < 6)
          expect_dense (seq, k, got);
        else
          expect_sparse (seq, k, got, k == 1 || k == 7);
      }
    }
  }
}

/* Flow colours come from the dense grid: while playing, output=flow-color
 * in sparse mode and mode=sparse with output=flow-color are refused with a
 * warning naming the property, which keeps its value; dense mode then
 * flow colours, in that order, are taken. */
TEST (LiveChangesGpu, FlowRefusesColoursWithoutTheGrid)
{
  const FrameSequence seq ("astronaut", moving_pictures (), GST_VIDEO_FORMAT_GRAY8);
  for (const OutMemory & mem : kOutMemories) {
    SCOPED_TRACE (mem.name);
    LiveRun r;
    std::vector<std::string> seen;
    run_live (&r, "cudaflow backend=cuda grid-step=" + std::to_string (kLiveStep) + " max-flow=4", seq,
        flow_colour_changes (&seen), mem.tail);
    ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
    expect_flow_colour_refusals (r, seen);
    for (size_t k = 0; k < kLiveFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      expect_flow_frame (r, k, seq, k >= 4, GST_VIDEO_FORMAT_GRAY8, mem.device);
    }
  }
}

/* ------------------------------------------------- held frames, renegotiated */

/* latency-frames=1: after frame k was pushed, k frames were out. */
void
expect_one_frame_held (const LiveRun & r)
{
  for (size_t k = 0; k < r.out_when_pushed.size (); k++)
    EXPECT_EQ (r.out_when_pushed[k], k) << "after frame " << k << ": one frame held";
}

/* latency-frames=1 with device memory on both pads (an upstream element
 * of ours passes the frames through on the device): a frame leaves once
 * the next one is in. The renegotiation a change asks for pushes the held
 * frame first, in the caps it was made for; the next frames come in the
 * new caps, each with its own output. cudaharris on RGBA (response: GRAY8)
 * and cudaflow on GRAY8 (flow-color: RGBA). */
TEST (LiveChangesGpu, HeldFramesLeaveInTheirOwnCaps)
{
  const std::vector<cv::Mat> pictures = moving_pictures ();
  const std::string device = "video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDAVISION ") ! ";
  {
    SCOPED_TRACE ("cudaharris");
    const FrameSequence seq ("astronaut", pictures, GST_VIDEO_FORMAT_RGBA);
    LiveRun r;
    run_live (&r, "cudaharris backend=cuda ! " + device + "cudaharris backend=cuda latency-frames=1", seq,
        switch_at ("output", { 3, 6 }, "response", "passthrough"), device, 1);
    ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
    expect_one_frame_held (r);
    for (size_t k = 0; k < kLiveFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      ASSERT_NO_FATAL_FAILURE (expect_harris_frame (r, k, seq, GST_VIDEO_FORMAT_RGBA, true));
    }
  }
  {
    SCOPED_TRACE ("cudaflow");
    const FrameSequence seq ("astronaut", pictures, GST_VIDEO_FORMAT_GRAY8);
    LiveRun r;
    run_live (&r, "cudaflow backend=cuda mode=dense grid-step=64 ! " + device + kDense + " latency-frames=1", seq,
        switch_at ("output", { 3, 6 }, "flow-color", "passthrough"), device, 1);
    ASSERT_NO_FATAL_FAILURE (expect_all_out (r, kLiveFrames));
    expect_one_frame_held (r);
    for (size_t k = 0; k < kLiveFrames; k++) {
      SCOPED_TRACE ("frame " + std::to_string (k));
      const FlowFrame got = expect_flow_frame (r, k, seq, k >= 3 && k < 6, GST_VIDEO_FORMAT_GRAY8, true);
      if (k > 0)
        expect_dense (seq, k, got);
    }
  }
}

}  // namespace
